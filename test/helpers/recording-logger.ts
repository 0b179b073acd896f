/** A Logger that keeps what it is told (for unit tests of services that take one: the scheduler, the watchdog, alerts). */
import type { Logger } from '../../src/log.js'

export class RecordingLogger implements Logger {
  readonly lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  error(msg: string, fields?: Record<string, unknown>) { this.lines.push({ level: 'error', msg, fields }) }
  warn(msg: string, fields?: Record<string, unknown>) { this.lines.push({ level: 'warn', msg, fields }) }
  info(msg: string, fields?: Record<string, unknown>) { this.lines.push({ level: 'info', msg, fields }) }
  debug(msg: string, fields?: Record<string, unknown>) { this.lines.push({ level: 'debug', msg, fields }) }
  child() { return this }
  flush() {}
}
