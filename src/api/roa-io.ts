/**
 * A CA's ROAs and ASPAs out and in as CSV and JSON (issue 27, design.md §12; the CSV of all ROAs Krill users ask for,
 * NLnetLabs/krill#1029). Export: the ROA CSV `asn,prefix,max_length,comment` and the ASPA CSV `customer,providers`,
 * each with its header line, RFC 4180 quoting and the formula guard (api/csv.ts); JSON in Krill's shapes (the `added`
 * entries of a ROA delta; the ASPA list). Import: the same texts read back, every problem named with its line, and the
 * bodies of POST …/plans/import and …/plans/rollback. Pure; used by http/routes/roa-io.ts and svcc.
 */
import { AppError } from '../errors.js'
import { ASN_MAX, parseAsn } from '../resources/asn.js'
import { formatPrefix, parsePrefix } from '../resources/ip.js'
import { checkMaxLength } from '../resources/roa-payload.js'
import { sliceCounter, type Sliced } from '../util/slices.js'
import type { AspaDefinitionJson } from './cas.js'
import { csvLine, formulaSafe, formulaText, jsonArrayLines, readCsvSteps, type CsvRecord, type LineProblem } from './csv.js'
import { PLAN_COMMENT_MAX } from './plans.js'

export const ROA_CSV_COLUMNS = ['asn', 'prefix', 'max_length', 'comment'] as const
export const ASPA_CSV_COLUMNS = ['customer', 'providers'] as const
export const IO_FORMATS = ['csv', 'json'] as const
export type IoFormat = (typeof IO_FORMATS)[number]
export const IO_KINDS = ['roas', 'aspas'] as const
export type IoKind = (typeof IO_KINDS)[number]
export const IMPORT_MODES = ['replace', 'add'] as const
export type ImportMode = (typeof IMPORT_MODES)[number]
/** At most this many problems are listed in a refusal (all are counted). */
export const IMPORT_PROBLEMS_MAX = 100
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present'

/** A ROA as exported: Krill's RoaConfiguration (the `added` entry of a delta), the max length always given. */
export interface RoaExportJson {
  asn: number
  prefix: string
  max_length: number
  comment: string | null
}

/** POST /api/v1/cas/{ca}/plans/import: a file's content made into a plan. */
export interface PlanImportJson {
  format: IoFormat
  kind: IoKind
  /** replace: the CA ends with exactly the file's ROAs (or ASPAs); add: what the file has and the CA lacks is added. */
  mode: ImportMode
  content: string
  comment?: string
}

/** POST /api/v1/cas/{ca}/plans/rollback: a plan back to the ROA/ASPA configuration right after history version `version`. */
export interface PlanRollbackJson {
  version: number
  comment?: string
}

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const oneOf = (v: unknown, list: readonly string[]) => typeof v === 'string' && list.includes(v)
const commentProblem = (v: unknown) => (v !== undefined && (typeof v !== 'string' || v.length > PLAN_COMMENT_MAX) ? `"comment" must be a string of at most ${PLAN_COMMENT_MAX} characters` : undefined)

export function checkPlanImport(v: unknown): string | undefined {
  if (!obj(v)) return 'expected {"format":"csv"|"json","kind":"roas"|"aspas","mode":"replace"|"add","content":"…"}'
  if (!oneOf(v.format, IO_FORMATS)) return `"format" must be one of ${IO_FORMATS.join(', ')}`
  if (!oneOf(v.kind, IO_KINDS)) return `"kind" must be one of ${IO_KINDS.join(', ')}`
  if (!oneOf(v.mode, IMPORT_MODES)) return `"mode" must be one of ${IMPORT_MODES.join(', ')}`
  if (typeof v.content !== 'string') return '"content" must be the text of the file'
  return commentProblem(v.comment)
}

export function checkPlanRollback(v: unknown): string | undefined {
  if (!obj(v) || typeof v.version !== 'number' || !Number.isSafeInteger(v.version) || v.version < 1) return 'expected {"version": N} with N a history version (1 or more; svcc history shows them)'
  return commentProblem(v.comment)
}

//------------ Export ----------------------------------------------------------------------------------------------

/** The header line of the ROA CSV. */
export function roaCsvHeader(): string {
  return csvLine(ROA_CSV_COLUMNS)
}

/** One ROA as a CSV line: `AS65000,10.0.0.0/16,24,comment`, the comment formula-safe. */
export function roaCsvLine(r: RoaExportJson): string {
  return csvLine([`AS${r.asn}`, r.prefix, String(r.max_length), formulaSafe(r.comment ?? '')])
}

export function aspaCsvHeader(): string {
  return csvLine(ASPA_CSV_COLUMNS)
}

/** One ASPA definition as a CSV line: `AS65000,AS65001 AS65002` (providers separated by spaces, AS0 alone for none). */
export function aspaCsvLine(a: AspaDefinitionJson): string {
  return csvLine([`AS${a.customer}`, a.providers.map((p) => `AS${p}`).join(' ')])
}

/**
 * A CSV file in pieces: the header line, then the lines of `per` rows at a time (http/routes/roa-io.ts streams them,
 * yielding to the event loop between pieces: the file is never one string, issue 28 §3). Joined, it is the file.
 */
export function* csvPieces<T>(rows: readonly T[], header: string, line: (row: T) => string, per = 2_000): Generator<string> {
  yield header
  for (let i = 0; i < rows.length; i += per) {
    let piece = ''
    for (let k = i; k < Math.min(i + per, rows.length); k++) piece += line(rows[k]!)
    yield piece
  }
}

/** The file name an export is offered under (Content-Disposition): `<ca>-roas.csv`, `<ca>-aspas.json`. */
export function exportFileName(ca: string, kind: IoKind, format: IoFormat): string {
  return `${ca.replace(/[^A-Za-z0-9_-]/g, '_')}-${kind}.${format}`
}

//------------ Import ----------------------------------------------------------------------------------------------

/** The refusal of a file with problems: all counted, the first IMPORT_PROBLEMS_MAX listed by line; nothing is made. */
export function importSyntaxError(kind: IoKind, format: IoFormat, problems: readonly LineProblem[]): AppError {
  const sorted = [...problems].sort((a, b) => a.line - b.line)
  const listed = sorted.slice(0, IMPORT_PROBLEMS_MAX).map((p) => `line ${p.line}: ${p.reason}`)
  if (sorted.length > IMPORT_PROBLEMS_MAX) listed.push(`… and ${sorted.length - IMPORT_PROBLEMS_MAX} more`)
  return new AppError('ca-import-syntax', { kind, format: format.toUpperCase(), count: String(problems.length), problems: listed.join('\n') })
}

/** The ROAs of an import file (canonical prefixes, the max length always set), or ca-import-syntax naming each bad line. */
export function* roaImportSteps(format: IoFormat, text: string): Sliced<RoaExportJson[]> {
  const rows = format === 'csv' ? yield* csvRows(text, ROA_CSV_COLUMNS, ['asn', 'prefix']) : yield* jsonRows(text)
  const problems = [...rows.problems]
  const out: RoaExportJson[] = []
  const seen = new Map<string, number>()
  const due = sliceCounter()
  for (const { line, values } of rows.rows) {
    try {
      const r = roaOf(values, rows.json)
      const key = `${r.prefix}-${r.max_length} => ${r.asn}`
      const first = seen.get(key)
      if (first !== undefined) throw new Error(`the same authorisation as line ${first}`)
      seen.set(key, line)
      out.push(r)
    } catch (e) {
      problems.push({ line, reason: (e as Error).message })
    }
    if (due()) yield
  }
  if (problems.length) throw importSyntaxError('roas', format, problems)
  return out
}

/** The ASPA definitions of an import file, or ca-import-syntax naming each bad line. */
export function* aspaImportSteps(format: IoFormat, text: string): Sliced<AspaDefinitionJson[]> {
  const rows = format === 'csv' ? yield* csvRows(text, ASPA_CSV_COLUMNS, ASPA_CSV_COLUMNS) : yield* jsonRows(text)
  const problems = [...rows.problems]
  const out: AspaDefinitionJson[] = []
  const seen = new Map<number, number>()
  for (const { line, values } of rows.rows) {
    try {
      const a = aspaOf(values)
      const first = seen.get(a.customer)
      if (first !== undefined) throw new Error(`customer AS${a.customer} is also on line ${first}: one definition per customer`)
      seen.set(a.customer, line)
      out.push(a)
    } catch (e) {
      problems.push({ line, reason: (e as Error).message })
    }
  }
  if (problems.length) throw importSyntaxError('aspas', format, problems)
  return out
}

interface Rows {
  /** JSON entries: comments are taken as they are (CSV ones as formulaSafe wrote them). */
  json: boolean
  rows: { line: number; values: Record<string, unknown> }[]
  problems: LineProblem[]
}

/**
 * The records of a CSV as values by column. A first record whose first field names a column (any case) is the header
 * and gives the column order (columns among `columns`, `needed` present); without one the order is `columns`'.
 */
function* csvRows(text: string, columns: readonly string[], needed: readonly string[]): Sliced<Rows> {
  const { records, problems } = yield* readCsvSteps(text)
  let cols: readonly string[] = columns
  let body: CsvRecord[] = records
  const head = records[0]
  if (head && columns.includes(head.fields[0]!.toLowerCase())) {
    body = records.slice(1)
    const names = head.fields.map((f) => f.toLowerCase())
    const unknown = names.filter((n) => !columns.includes(n))
    const twice = names.filter((n, i) => names.indexOf(n) !== i)
    const missing = needed.filter((n) => !names.includes(n))
    if (unknown.length || twice.length || missing.length) {
      const reason = unknown.length ? `unknown column ${unknown.join(', ')}` : twice.length ? `column ${twice.join(', ')} twice` : `column ${missing.join(', ')} missing`
      return { json: false, rows: [], problems: [...problems, { line: head.line, reason: `header: ${reason} (the columns are ${columns.join(',')})` }] }
    }
    cols = names
  }
  const rows: Rows['rows'] = []
  const due = sliceCounter()
  for (const r of body) {
    const fixed = cols !== columns
    if (fixed ? r.fields.length !== cols.length : r.fields.length < needed.length || r.fields.length > cols.length) {
      const want = fixed || needed.length === cols.length ? `${cols.length}` : `${needed.length} to ${cols.length}`
      problems.push({ line: r.line, reason: `expected ${want} fields (${cols.join(',')}), found ${r.fields.length}` })
    } else rows.push({ line: r.line, values: Object.fromEntries(r.fields.map((f, i) => [cols[i]!, f])) })
    if (due()) yield
  }
  return { json: false, rows, problems }
}

/** The entries of a JSON array as values by member, each with the line it starts on; extra members are ignored. */
function* jsonRows(text: string): Sliced<Rows> {
  const scan = jsonArrayLines(text)
  yield
  if ('problem' in scan) return { json: true, rows: [], problems: [scan.problem] }
  const list = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown[]
  yield
  const rows: Rows['rows'] = []
  const problems: LineProblem[] = []
  list.forEach((v, i) => {
    const line = scan.lines[i]!
    if (obj(v)) rows.push({ line, values: v })
    else problems.push({ line, reason: `entry ${i + 1} is not an object` })
  })
  return { json: true, rows, problems }
}

/** An AS number from CSV text (`AS65000` or `65000`) or a JSON number. */
function asnOf(v: unknown, what: string): number {
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= 0 && v <= ASN_MAX) return v
    throw new Error(`${what} ${v} is not an AS number (0 to ${ASN_MAX})`)
  }
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${what} is missing`)
  try {
    return parseAsn(v)
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`)
  }
}

function roaOf(v: Record<string, unknown>, json: boolean): RoaExportJson {
  const asn = asnOf(v.asn, 'asn')
  if (typeof v.prefix !== 'string' || v.prefix.trim() === '') throw new Error('prefix is missing')
  let prefix
  try {
    prefix = parsePrefix(v.prefix)
  } catch (e) {
    throw new Error(`prefix: ${(e as Error).message}`)
  }
  const m = v.max_length
  let maxLength = prefix.len
  if (typeof m === 'number') maxLength = m
  else if (typeof m === 'string' && m !== '') {
    if (!/^[0-9]{1,3}$/.test(m)) throw new Error(`max_length '${m}' is not a number`)
    maxLength = Number(m)
  } else if (m !== undefined && m !== null && m !== '') throw new Error('max_length must be a number')
  const lengthProblem = checkMaxLength({ asn, prefix, maxLength })
  if (lengthProblem) throw new Error(lengthProblem)
  const c = v.comment
  if (c !== undefined && c !== null && typeof c !== 'string') throw new Error('comment must be text')
  // A CSV comment is read as formulaSafe wrote it; a JSON one is taken as it is.
  const comment = typeof c === 'string' ? (json ? c : formulaText(c)) : ''
  return { asn, prefix: formatPrefix(prefix), max_length: maxLength, comment: comment === '' ? null : comment }
}

function aspaOf(v: Record<string, unknown>): AspaDefinitionJson {
  const customer = asnOf(v.customer, 'customer')
  const p = v.providers
  const list: unknown[] = Array.isArray(p) ? p : typeof p === 'string' ? p.split(/[\s,;]+/).filter((x) => x !== '') : []
  if (!Array.isArray(p) && typeof p !== 'string') throw new Error('providers must be a list of AS numbers')
  if (list.length === 0) throw new Error('no providers (write AS0 for none)')
  const providers = list.map((x) => asnOf(x, 'provider'))
  const twice = providers.filter((x, i) => providers.indexOf(x) !== i)
  if (twice.length) throw new Error(`provider AS${twice[0]} is listed twice`)
  return { customer, providers }
}
