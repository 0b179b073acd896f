/**
 * What svcc prints and how it exits (design.md §4): 0 success, 1 the server answered an error, 2 usage error,
 * 3 server unreachable, TLS failure or a non-JSON answer. Reports render as text (default), json, xml, csv (exports) or none.
 */
import { ClientError } from '../client/api-client.js'
import { errorDetailLines, messageBeforeDetails } from './error-details.js'
import { jsonSafe } from './terminal.js'

export type Format = 'none' | 'json' | 'text' | 'xml' | 'csv'
export const FORMATS: readonly Format[] = ['none', 'json', 'text', 'xml', 'csv']

/** A command's result in the forms it supports; `text` is required, `json` defaults to nothing printed. */
export interface Report {
  text: string
  json?: unknown
  xml?: string
  /** The CSV of an export (`svcc roas export`); commands without one refuse --format csv. */
  csv?: string
  /** The exit code after printing (default 0); offline commands use it, e.g. `svcc inspect` exits 1 on profile problems. */
  exitCode?: number
}

/** Bad invocation: a missing or malformed argument or variable. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Thrown after `--api` printed the call: nothing was sent; exit 0. */
export class ApiPrinted extends Error {}

/** A server error with the command's own text for its details (e.g. `roas update` names the delta file's lines). */
export class DetailedServerError extends Error {
  constructor(readonly error: ClientError, readonly lines: readonly string[]) {
    super(error.message)
    this.name = 'DetailedServerError'
  }
}

/** Print a report in the chosen format. */
export function render(report: Report, format: Format, out: (s: string) => void): void {
  if (format === 'none') return
  if (format === 'json') {
    if (report.json !== undefined) out(jsonSafe(JSON.stringify(report.json, null, 2)) + '\n')
    return
  }
  if (format === 'csv') {
    if (report.csv === undefined) throw new UsageError('this command has no CSV output; use --format text or json')
    if (report.csv !== '') out(report.csv)
    return
  }
  if (format === 'xml') {
    if (report.xml === undefined) throw new UsageError('this command has no XML output; use --format text or json')
    out(report.xml.endsWith('\n') ? report.xml : report.xml + '\n')
    return
  }
  if (report.text !== '') out(report.text.endsWith('\n') ? report.text : report.text + '\n')
}

/** The exit code and the stderr message for a failure. */
export function failure(err: unknown, format: Format): { code: number; message: string } {
  if (err instanceof UsageError) return { code: 2, message: `svcc: ${err.message}` }
  const detailed = err instanceof DetailedServerError ? err : undefined
  if (detailed !== undefined) err = detailed.error
  if (err instanceof ClientError) {
    if (err.kind === 'server') {
      if (format === 'json' && err.body) return { code: 1, message: jsonSafe(JSON.stringify(err.body, null, 2)) }
      // Text: the message, then each detail the JSON carries, so nobody has to ask for --format json to act.
      const details = detailed?.lines ?? (err.body ? errorDetailLines(err.body) : [])
      if (details.length === 0) return { code: 1, message: `svcc: error: ${err.message}${err.body ? ` (${err.body.label})` : ''}` }
      const head = `svcc: error: ${messageBeforeDetails(err.message)}${err.body ? ` (${err.body.label})` : ''}:`
      return { code: 1, message: [head, ...details.map((l) => `  ${l}`)].join('\n') }
    }
    return { code: 3, message: `svcc: ${err.message}` }
  }
  return { code: 1, message: `svcc: ${(err as Error)?.message ?? String(err)}` }
}

/** ISO 8601 with the local offset, e.g. 2026-11-22T10:04:05+01:00 (spec §2.10). */
export function isoWithOffset(d: Date): string {
  const off = -d.getTimezoneOffset()
  const sign = off >= 0 ? '+' : '-'
  const abs = Math.abs(off)
  const p = (n: number, w = 2) => String(n).padStart(w, '0')
  const date = `${p(d.getFullYear(), 4)}-${p(d.getMonth() + 1)}-${p(d.getDate())}`
  const time = `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
  return `${date}T${time}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`
}
