/**
 * The JSON schema check of issue 16 over every answer svcd sent in a scenario test (recorded by
 * test/helpers/response-recorder.mjs, checked by the harness in test/helpers/daemon.ts when the daemon's test ends):
 * a Krill client compares the content type exactly and reads Krill's types, so
 * - every JSON answer, errors included, is typed exactly `application/json` (no charset), and nothing JSON-typed is
 *   not JSON;
 * - Krill's `Timestamp` fields are whole unix seconds (`timestamp`, `last_success`, `started`, `suspended`), except
 *   the history's `timestamp`, milliseconds as Krill's; Krill's `Time` fields are RFC 3339 strings (`not_before`,
 *   `not_after`, `this_update`, `next_update`, `last_update`, `time`);
 * - AS resources are written as Krill and rpki-rs write them: `AS65000-AS65010`, never `AS65000-65010`.
 * Error messages and their args may quote the caller's input, the history's `details` are the stored records as they
 * were stored, and `description`s (the OpenAPI document) are prose that may name the accepted input forms, so the AS
 * check leaves those alone.
 */
import { existsSync, readFileSync } from 'node:fs'

export interface RecordedResponse {
  method: string | null
  url: string | null
  status: number
  type: string | null
  body: string | null
  truncated?: boolean
  /** The client went away before the whole answer was sent (no body recorded). */
  aborted?: boolean
}

const JSON_TYPE = 'application/json'
const SECONDS_KEYS = new Set(['timestamp', 'last_success', 'started', 'suspended'])
const TIME_KEYS = new Set(['not_before', 'not_after', 'this_update', 'next_update', 'last_update', 'time'])
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
/** 2001-09-09 to 5138-11-16 in seconds: a plausible unix-seconds value (milliseconds are far above). */
const SECONDS = { min: 1e9, max: 1e11 }
const AS_ITEM = /^AS\d+(-AS\d+)?$/
const SHORT_AS_RANGE = /\bAS\d+\s*-\s*\d/

/** The recorded answers of one daemon (a partial last line, from a daemon still writing, is left out). */
export function readRecords(file: string): RecordedResponse[] {
  if (!existsSync(file)) return []
  const out: RecordedResponse[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      out.push(JSON.parse(line) as RecordedResponse)
    } catch {
      // cut short
    }
  }
  return out
}

/** What is wrong with one answer, as `METHOD url: problem` lines (none when it is as Krill sends it). */
export function krillJsonProblems(r: RecordedResponse): string[] {
  const where = `${r.method} ${r.url} (${r.status})`
  const problems: string[] = []
  const type = r.type ?? ''
  const jsonTyped = /json/i.test(type)
  if (jsonTyped && type !== JSON_TYPE) problems.push(`${where}: content type '${type}', expected exactly '${JSON_TYPE}'`)
  // A HEAD answer has the GET answer's headers and no body (RFC 9110 §9.3.2).
  if (r.body === null || r.truncated || r.method === 'HEAD') return problems
  const text = r.body.trim()
  let value: unknown
  try {
    value = text.startsWith('{') || text.startsWith('[') || jsonTyped ? JSON.parse(text) : undefined
  } catch {
    if (jsonTyped) problems.push(`${where}: typed JSON but the body is not JSON: ${text.slice(0, 80)}`)
    return problems
  }
  if (value === undefined) return problems
  if (!jsonTyped) problems.push(`${where}: a JSON body typed '${type || '(none)'}', expected exactly '${JSON_TYPE}'`)
  const history = /\/history\/commands(\/|\?|$)/.test(r.url ?? '')
  const details = /\/history\/details\//.test(r.url ?? '')
  walk(value, [], (path, key, v) => {
    const at = `${where} at ${path.join('.') || '(top)'}`
    if (SECONDS_KEYS.has(key) && v !== null && typeof v !== 'object') {
      const ms = history && key === 'timestamp'
      if (typeof v !== 'number' || !Number.isInteger(v)) problems.push(`${at}: ${JSON.stringify(v)} is not a whole number (Krill's ${ms ? 'milliseconds' : 'Timestamp, unix seconds'})`)
      else if (ms ? v < SECONDS.max : v < SECONDS.min || v >= SECONDS.max) problems.push(`${at}: ${v} is not ${ms ? 'milliseconds' : 'unix seconds'}`)
    }
    if (TIME_KEYS.has(key) && !(key === 'last_update' && v === null) && typeof v !== 'object') {
      if (typeof v !== 'string' || !RFC3339.test(v)) problems.push(`${at}: ${JSON.stringify(v)} is not an RFC 3339 time (Krill's Time)`)
    }
    const quoted = path.includes('msg') || path.includes('args') || (details && path[0] === 'details') || (details && path.includes('events'))
    if (typeof v === 'string' && !quoted) {
      if (key === 'asn' && v.trim() !== '' && !v.split(',').every((item) => AS_ITEM.test(item.trim()))) problems.push(`${at}: AS resources '${v}' not in Krill's form (AS65000-AS65010)`)
      else if (key !== 'description' && SHORT_AS_RANGE.test(v)) problems.push(`${at}: '${v.slice(0, 80)}' has an AS range not in Krill's form (AS65000-AS65010)`)
    }
  })
  return problems
}

/** Every problem of every answer. */
export function allProblems(records: readonly RecordedResponse[]): string[] {
  return records.flatMap(krillJsonProblems)
}

function walk(v: unknown, path: string[], visit: (path: string[], key: string, v: unknown) => void): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      visit([...path, String(i)], path[path.length - 1] ?? '', x)
      walk(x, [...path, String(i)], visit)
    })
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      visit([...path, k], k, x)
      walk(x, [...path, k], visit)
    }
  } else if (path.length === 0) visit([], '', v)
}
