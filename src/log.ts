/**
 * Structured logging for svcd: the only home of pino. Callers log `log.info('message', { fields })`; the
 * logger writes JSON lines to stderr or a file. Never pass key material or tokens as fields.
 */
import pino, { type Logger as PinoLogger } from 'pino'
import type { LogLevel, LogType } from './config.js'

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  debug(msg: string, fields?: Record<string, unknown>): void
  child(bindings: Record<string, unknown>): Logger
  /** Flush buffered output (before exit). */
  flush(): void
}

class PinoAdapter implements Logger {
  constructor(private readonly p: PinoLogger) {}
  error(msg: string, fields?: Record<string, unknown>) {
    this.p.error(fields ?? {}, msg)
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.p.warn(fields ?? {}, msg)
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.p.info(fields ?? {}, msg)
  }
  debug(msg: string, fields?: Record<string, unknown>) {
    this.p.debug(fields ?? {}, msg)
  }
  child(bindings: Record<string, unknown>): Logger {
    return new PinoAdapter(this.p.child(bindings))
  }
  flush() {
    this.p.flush()
  }
}

/** A logger at the given level writing to stderr or to a file (created if missing, appended to). */
export function createLogger(opts: { level: LogLevel; type: LogType; file?: string }): Logger {
  const level = opts.level === 'off' ? 'silent' : opts.level
  const dest = opts.type === 'file' ? pino.destination({ dest: opts.file, mkdir: true, sync: true }) : pino.destination({ fd: 2, sync: true })
  return new PinoAdapter(
    pino(
      {
        level,
        base: { pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: ['token', 'admin_token', 'authorization', '*.authorization', 'key', 'private_key'], censor: '***' },
      },
      dest,
    ),
  )
}

/** A logger that drops everything (tests, offline tools). */
export function silentLogger(): Logger {
  return new PinoAdapter(pino({ level: 'silent' }))
}
