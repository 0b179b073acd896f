/**
 * Errors a person can act on (issue 12 item 7): the details an API error carries in its JSON beyond label, msg and
 * args, as text lines. A rejected ROA delta (`ca-roa-delta-error`, Krill's `delta_error` lists) names each offending
 * authorisation and why; `roas update` adds the line of the delta file it came from. Pure; used by report.ts.
 */
import type { ErrorBody } from '../api/status.js'
import { formatRoaPayload, parseRoaDelta } from '../resources/roa-payload.js'

/** Why a ROA delta line was refused, per `delta_error` list (src/ca/roas.ts checkRoaDelta). */
export const DELTA_REASONS: Readonly<Record<string, string>> = {
  notheld: 'the CA does not hold this prefix',
  duplicate: 'already configured, or listed twice in the delta',
  duplicates: 'already configured, or listed twice in the delta',
  invalid_length: 'invalid max length',
  unknowns: 'not configured, so it cannot be removed',
}

/** One refused authorisation: its list, the text the server reported, and the reason in words. */
export interface DeltaProblem {
  list: string
  /** As Krill's message writes it: '10.0.0.0/24 => 65000' (invalid_length adds ': <what is wrong>'). */
  item: string
  /** The authorisation alone, without the invalid_length detail. */
  payload: string
  reason: string
}

/** The refused authorisations of a `delta_error` body, in the server's order, each with its reason. */
export function deltaProblems(body: ErrorBody): DeltaProblem[] {
  const out: DeltaProblem[] = []
  for (const [list, items] of Object.entries(body.delta_error ?? {})) {
    for (const r of items) {
      const payload = `${r.prefix}${r.max_length === undefined ? '' : `-${r.max_length}`} => ${r.asn}`
      const detail = r.reason ? `: ${r.reason}` : ''
      out.push({ list, item: payload + detail, payload, reason: `${DELTA_REASONS[list] ?? list}${detail}` })
    }
  }
  return out
}

const STANDARD = new Set(['label', 'msg', 'args'])

/** Text lines for every detail of an error body: one per refused delta entry, `key: value` for anything else. */
export function errorDetailLines(body: ErrorBody): string[] {
  const lines = deltaProblems(body).map((p) => `${p.payload}: ${p.reason}`)
  for (const [k, v] of Object.entries(body)) {
    if (STANDARD.has(k) || k === 'delta_error' || v === undefined) continue
    if (Array.isArray(v)) lines.push(...v.map((x) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`))
    else lines.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
  }
  return lines
}

/**
 * The message of an error whose details follow it: Krill's old "…, see included json" points at what is now printed,
 * and its current "ROA delta rejected:" lists after a blank line what is now printed line by line.
 */
export function messageBeforeDetails(msg: string): string {
  return msg.split('\n\n')[0]!.replace(/,? see included json\.?$/i, '').replace(/:$/, '')
}

/** A delta file's A:/R: lines with their line numbers and the authorisation in the server's text form. */
function deltaFileLines(text: string): { line: number; kind: 'A' | 'R'; payload: string; source: string }[] {
  const out: { line: number; kind: 'A' | 'R'; payload: string; source: string }[] = []
  text.split('\n').forEach((raw, i) => {
    try {
      const d = parseRoaDelta(raw)
      const a = d.added[0]
      const r = d.removed[0]
      if (a !== undefined) out.push({ line: i + 1, kind: 'A', payload: formatRoaPayload(a.payload), source: raw.trim() })
      else if (r !== undefined) out.push({ line: i + 1, kind: 'R', payload: formatRoaPayload(r), source: raw.trim() })
    } catch {
      /* the whole file parsed before it was sent; a line that does not parse alone holds no authorisation */
    }
  })
  return out
}

/**
 * The refused entries of a `delta_error` body tied to the lines of the delta file that was sent: 'line 3: A:
 * 10.2.0.0/16 => 65010: the CA does not hold this prefix'. An entry no line matches is shown without a line number.
 */
export function deltaErrorLines(body: ErrorBody, deltaText: string): string[] {
  const lines = deltaFileLines(deltaText)
  const out: string[] = []
  for (const p of deltaProblems(body)) {
    const kind = p.list === 'unknowns' ? 'R' : 'A'
    const matches = lines.filter((l) => l.kind === kind && l.payload === p.payload)
    if (matches.length === 0) {
      out.push(`${kind}: ${p.payload}: ${p.reason}`)
      continue
    }
    if ((p.list === 'duplicates' || p.list === 'duplicate') && matches.length > 1) {
      // The same authorisation on several lines: each later line repeats the first.
      for (const m of matches.slice(1)) out.push(`line ${m.line}: ${m.source}: listed twice in the delta (first on line ${matches[0]!.line})`)
      continue
    }
    const reason = p.list === 'duplicates' || p.list === 'duplicate' ? 'already configured' : p.reason
    for (const m of matches) out.push(`line ${m.line}: ${m.source}: ${reason}`)
  }
  return out
}
