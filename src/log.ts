/**
 * Structured logging for svcd: the only home of pino and pino-pretty. Callers log `log.info('message', { fields })`;
 * the logger writes JSON lines to stderr or a file, or human-readable lines (pino-pretty) on a terminal or when
 * log_format = "text". Never pass key material or tokens as fields.
 */
import { existsSync, openSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino'
import pretty from 'pino-pretty'
import type { LogFormat, LogLevel, LogType } from './config.js'

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

/**
 * The format actually written: an explicit "json" or "text" wins; "auto" is text only for stderr on a terminal, so
 * files, pipes and process supervisors keep getting JSON lines.
 */
export function logFormat(format: LogFormat, type: LogType, stderrIsTty: boolean): 'json' | 'text' {
  if (format !== 'auto') return format
  return type === 'stderr' && stderrIsTty ? 'text' : 'json'
}

export interface LoggerOptions {
  level: LogLevel
  type: LogType
  file?: string
  /** Default "auto". */
  format?: LogFormat
  /** Whether stderr is a terminal; default process.stderr.isTTY (tests pass it in). */
  stderrIsTty?: boolean
  /** Environment, for NO_COLOR; default process.env. */
  env?: NodeJS.ProcessEnv
}

/** The log file cannot be opened: svcd does not start (main.ts prints the message and exits 1). */
export class LogFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LogFileError'
  }
}

/**
 * Open the log file for appending (created if missing, mode 0640) before anything is logged (issue 22 defect 10: a
 * log_file in a missing directory ran with no log and no error). Its directory must exist, as with Krill: a typo in
 * the path stops start-up rather than logging somewhere unexpected.
 */
export function openLogFile(file: string): number {
  const dir = dirname(file)
  if (!existsSync(dir)) throw new LogFileError(`cannot open log_file '${file}': its directory '${dir}' does not exist (create it, or fix log_file)`)
  if (!statSync(dir).isDirectory()) throw new LogFileError(`cannot open log_file '${file}': '${dir}' is not a directory`)
  try {
    return openSync(file, 'a', 0o640)
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    throw new LogFileError(`cannot open log_file '${file}': ${err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'it is a directory' : (err.code ?? err.message)}`)
  }
}

/** A logger at the given level writing to stderr or to a file (openLogFile; appended to), as JSON or text. */
export function createLogger(opts: LoggerOptions): Logger {
  const level = opts.level === 'off' ? 'silent' : opts.level
  const isTty = opts.stderrIsTty ?? process.stderr.isTTY === true
  const text = logFormat(opts.format ?? 'auto', opts.type, isTty) === 'text'
  if (opts.type === 'file' && !opts.file) throw new LogFileError('log_type is "file" but no log_file is set')
  const target = { dest: opts.type === 'file' ? openLogFile(opts.file!) : 2 }
  // Both streams write synchronously, so the lines logged just before an exit or a crash are not lost: pino-pretty
  // runs in this thread as a plain stream, not as a worker-thread transport.
  const dest: DestinationStream = text
    ? pretty({
        destination: target.dest,
        sync: true,
        // Colours only on a terminal, and not when NO_COLOR is set (no-color.org).
        colorize: opts.type === 'stderr' && isTty && !(opts.env ?? process.env).NO_COLOR,
        // One line per event: time, level, pid, message, then the fields as compact JSON.
        singleLine: true,
        // UTC, like the JSON lines' ISO time, and marked as such.
        translateTime: "UTC:yyyy-mm-dd HH:MM:ss.l'Z'",
      })
    : pino.destination({ ...target, sync: true })
  return new PinoAdapter(
    pino(
      {
        level,
        base: { pid: process.pid },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        // Applied before either format sees the fields, so text lines are redacted like JSON ones.
        redact: { paths: ['token', 'admin_token', 'authorization', '*.authorization', 'key', 'private_key', 'user_pin', 'pin'], censor: '***' },
      },
      dest,
    ),
  )
}

/** A logger that drops everything (tests, offline tools). */
export function silentLogger(): Logger {
  return new PinoAdapter(pino({ level: 'silent' }))
}
