/**
 * ROA changes staged in the console: parsed from the form or from a delta file (`A: <prefix>[-<max>] => <asn> # comment`,
 * `R: …`, `#` comment lines; the format of `svcc roas update --delta`), sent as one delta, and the server's refusal
 * (`ca-roa-delta-error` with Krill's `delta_error` lists) tied back to each staged line.
 */

/** A ROA as the API takes it (RoaJson of the description), with its max length decided. Self-contained: unit tests load this file in Node. */
export interface RoaInput {
  asn: number
  prefix: string
  max_length: number
  comment?: string | null
}

/** The part of an error body read here (ErrorBody with Krill's delta_error lists). */
interface ErrorBody {
  label: string
  delta_error?: Record<string, { asn: number; prefix: string; max_length?: number; reason?: string }[]>
}

export interface Staged {
  kind: 'add' | 'remove'
  roa: RoaInput
  /** Where it came from: 'form', 'table' or '<file> line N'. */
  source: string
  /** Why the server refused it, once it has. */
  problem?: string
}

/** Why a line was refused, per `delta_error` list (src/ca/roas.ts checkRoaDelta). */
const REASONS: Record<string, string> = {
  notheld: 'the CA does not hold this prefix',
  duplicates: 'already configured, or staged twice',
  duplicate: 'already configured, or staged twice',
  invalid_length: 'invalid max length',
  unknowns: 'not configured, so it cannot be removed',
}

/** One authorisation from `<prefix>[-<max>] => [AS]<asn>`; throws with the reason. */
export function parseAuthorisation(text: string): { prefix: string; max_length: number; asn: number } {
  const m = /^\s*([0-9A-Fa-f.:]+)\/(\d{1,3})(?:-(\d{1,3}))?\s*=>\s*(?:AS)?(\d{1,10})\s*$/i.exec(text)
  if (!m) throw new Error(`'${text.trim()}' is not "<prefix>[-<max length>] => <asn>"`)
  const len = Number(m[2])
  const asn = Number(m[4])
  if (asn > 4294967295) throw new Error(`AS${m[4]} is not an AS number`)
  return { prefix: `${m[1]}/${len}`, max_length: m[3] === undefined ? len : Number(m[3]), asn }
}

/** A delta file's lines as staged changes, and the lines that could not be read (with their numbers). */
export function parseDeltaFile(text: string, file: string): { staged: Staged[]; errors: string[] } {
  const staged: Staged[] = []
  const errors: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (!line || line.startsWith('#')) return
    const where = `${file} line ${i + 1}`
    const m = /^([AR]):\s*(.*)$/i.exec(line)
    if (!m) return void errors.push(`${where}: expected "A: …" or "R: …"`)
    const hash = m[2].indexOf('#')
    const body = hash < 0 ? m[2] : m[2].slice(0, hash)
    const comment = hash < 0 ? '' : m[2].slice(hash + 1).trim()
    try {
      const roa = parseAuthorisation(body)
      const add = m[1].toUpperCase() === 'A'
      staged.push({ kind: add ? 'add' : 'remove', roa: add && comment ? { ...roa, comment } : roa, source: where })
    } catch (e) {
      errors.push(`${where}: ${(e as Error).message}`)
    }
  })
  return { staged, errors }
}

/** The delta of the staged changes. */
export function deltaOf(staged: Staged[]): { added: RoaInput[]; removed: RoaInput[] } {
  const strip = (s: Staged) => ({ asn: s.roa.asn, prefix: s.roa.prefix, max_length: s.roa.max_length, ...(s.roa.comment ? { comment: s.roa.comment } : {}) })
  return { added: staged.filter((s) => s.kind === 'add').map(strip), removed: staged.filter((s) => s.kind === 'remove').map(strip) }
}

/** The staged changes with the server's reason on each refused one; the problems no staged line matches. */
export function markProblems(staged: Staged[], body: ErrorBody): { staged: Staged[]; unmatched: string[] } {
  const lists = body.delta_error ?? {}
  const out = staged.map((s) => ({ ...s, problem: undefined as string | undefined }))
  const unmatched: string[] = []
  for (const [list, items] of Object.entries(lists)) {
    for (const r of items) {
      const item = `${r.prefix}${r.max_length === undefined ? '' : `-${r.max_length}`} => ${r.asn}`
      const reason = `${REASONS[list] ?? list}${r.reason ? `: ${r.reason}` : ''}`
      let key: string | undefined
      try {
        key = keyOf(r)
      } catch {
        key = undefined
      }
      const kinds = list === 'unknowns' ? ['remove'] : ['add']
      const hits = out.filter((s) => kinds.includes(s.kind) && keyOf(s.roa) === key)
      if (hits.length === 0) unmatched.push(`${item}: ${reason}`)
      for (const h of hits) h.problem = h.problem ? `${h.problem}; ${reason}` : reason
    }
  }
  return { staged: out, unmatched }
}

/** The same authorisation however its prefix is spelled (IPv6 zero compression, case). */
export function keyOf(r: { prefix: string; max_length?: number; asn: number }): string {
  const [addr, len] = r.prefix.split('/')
  return `${canonicalAddress(addr)}/${len}-${r.max_length ?? len}|${r.asn}`
}

function canonicalAddress(a: string): string {
  if (!a.includes(':')) return a.split('.').map((x) => String(Number(x))).join('.')
  const [head, tail] = a.toLowerCase().split('::')
  const h = head ? head.split(':') : []
  const t = tail !== undefined && tail ? tail.split(':') : []
  const groups = tail === undefined ? h : [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
  return groups.map((g) => parseInt(g || '0', 16).toString(16)).join(':')
}

/** `prefix[-max] => asn`, as the server writes it. */
export function authorisationText(r: { prefix: string; max_length?: number | null; asn: number }): string {
  const len = Number(r.prefix.split('/')[1])
  return `${r.prefix}${r.max_length !== undefined && r.max_length !== null && r.max_length !== len ? `-${r.max_length}` : ''} => ${r.asn}`
}

/** The ROAs as CSV (RFC 4180 quoting, formula cells neutralised): asn, prefix, max_length, comment. */
export function roasCsv(rows: { asn: number; prefix: string; max_length: number; comment: string | null }[]): string {
  return ['asn,prefix,max_length,comment', ...rows.map((r) => [String(r.asn), r.prefix, String(r.max_length), r.comment ?? ''].map(csvCell).join(','))].join('\r\n') + '\r\n'
}

/**
 * One CSV cell, safe to open in a spreadsheet (OWASP "CSV Injection"): a value a spreadsheet would read as a formula
 * (first character `=`, `+`, `-`, `@`, tab or carriage return, also after leading spaces, e.g. `=HYPERLINK(…)`) gets
 * a leading `'`, which spreadsheets show as text and do not evaluate; a plain number (`-1`, `+5`) stays as it is.
 * Then RFC 4180 quoting for `"`, `,` and line breaks.
 */
export function csvCell(value: string): string {
  const formula = /^[ ]*[=+\-@\t\r]/.test(value) && !/^[+-]?\d+(\.\d+)?$/.test(value)
  const v = formula ? `'${value}` : value
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v
}
