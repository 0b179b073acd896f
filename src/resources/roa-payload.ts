/**
 * ROA authorisations as text (spec §2.7, §2.8; RFC 9582 for the maxLength rule): '10.0.0.0/24-28 => 64496',
 * normalised to an explicit max length as Krill does (krill-reference.md §5), and the ROA delta file format.
 * Used by api/roas.ts, the CLI (`svcc roas update --delta`), ca/roas.ts and objects/roa.ts.
 */
import { LibraryError, ParseError } from '../util/errors.js'
import { parseAsn } from './asn.js'
import { addressBits, familyName } from './ip-address.js'
import { formatPrefix, parsePrefix, type IpPrefix } from './ip.js'
import { shown } from './resource-list.js'

/** One authorisation: `asn` may originate `prefix` and its more-specifics up to `maxLength` (always explicit). */
export interface RoaPayload {
  readonly asn: number
  readonly prefix: IpPrefix
  readonly maxLength: number
}

/** What an operator configures: a payload and an optional comment. */
export interface RoaConfiguration {
  readonly payload: RoaPayload
  readonly comment?: string
}

/** A ROA delta (spec §2.8): configurations to add, payloads to remove. */
export interface RoaDelta {
  added: RoaConfiguration[]
  removed: RoaPayload[]
}

/** The largest max length the text form takes (Krill's wire type is a u8); the RFC 9582 bound is checkMaxLength's. */
const MAX_LENGTH_TEXT = /^[0-9]{1,3}$/
const SYNTAX = "expected '<prefix>/<length>[-<max_length>] => <asn>'"

/**
 * Parses '<prefix>/<len>[-<max>] => <asn>' with an optional 'AS' before the ASN and flexible blanks. An absent max
 * length becomes the prefix length. The syntax is checked here; whether the max length fits (RFC 9582 §4.3.2) is
 * checkMaxLength's job, so a delta can report all bad lengths together, as Krill's `invalid_length` does.
 */
export function parseRoaPayload(text: string): RoaPayload {
  if (typeof text !== 'string') throw new ParseError('', `ROA: expected text, got ${typeof text}`)
  const t = text.trim()
  const arrow = t.indexOf('=>')
  if (arrow < 0) throw new ParseError('', `${shown(t)} has no '=>': ${SYNTAX}`)
  if (t.indexOf('=>', arrow + 2) >= 0) throw new ParseError('', `${shown(t)} has more than one '=>': ${SYNTAX}`)
  const left = t.slice(0, arrow).trim()
  const asnText = t.slice(arrow + 2).trim()
  if (left === '') throw new ParseError('', `${shown(t)} has no prefix before '=>': ${SYNTAX}`)
  if (asnText === '') throw new ParseError('', `${shown(t)} has no ASN after '=>': ${SYNTAX}`)
  const dash = left.indexOf('-')
  const prefix = parsePrefix(dash < 0 ? left : left.slice(0, dash))
  const maxLength = dash < 0 ? prefix.len : parseMaxLength(left.slice(dash + 1).trim(), t)
  return Object.freeze({ asn: parseAsn(asnText), prefix, maxLength })
}

function parseMaxLength(text: string, whole: string): number {
  if (!MAX_LENGTH_TEXT.test(text)) throw new ParseError('', `max length ${shown(text)} in ${shown(whole)} is not a number`)
  const value = Number(text)
  if (value > 255) throw new ParseError('', `max length ${value} in ${shown(whole)} is out of range`)
  return value
}

/** '10.0.0.0/24 => 64496' when the max length equals the prefix length, else '10.0.0.0/24-28 => 64496'. */
export function formatRoaPayload(p: RoaPayload): string {
  const max = p.maxLength === p.prefix.len ? '' : `-${p.maxLength}`
  return `${formatPrefix(p.prefix)}${max} => ${p.asn}`
}

/**
 * The canonical key '10.0.0.0/24-24 => 64496' (always an explicit max length): equal payloads have equal keys.
 * Krill names a simple-mode ROA file hex(utf8(key)) + '.roa' (krill-reference.md §5).
 */
export function roaPayloadKey(p: RoaPayload): string {
  return `${formatPrefix(p.prefix)}-${p.maxLength} => ${p.asn}`
}

/** RFC 9582 §4.3.2: prefix length ≤ maxLength ≤ 32 (IPv4) or 128 (IPv6). Undefined when fine, else what is wrong. */
export function checkMaxLength(p: RoaPayload): string | undefined {
  const bits = addressBits(p.prefix.family)
  const prefix = formatPrefix(p.prefix)
  if (!Number.isInteger(p.maxLength)) return `max length ${String(p.maxLength)} of ${prefix} is not a whole number`
  if (p.maxLength < p.prefix.len) return `max length ${p.maxLength} is shorter than the prefix length ${p.prefix.len} of ${prefix}`
  if (p.maxLength > bits) {
    return `max length ${p.maxLength} of ${prefix} is longer than ${bits}, the size of an ${familyName(p.prefix.family)} address`
  }
  return undefined
}

/** Order for listings and ROA contents: IPv4 before IPv6, then address, prefix length, max length, ASN. */
export function compareRoaPayloads(a: RoaPayload, b: RoaPayload): number {
  if (a.prefix.family !== b.prefix.family) return a.prefix.family - b.prefix.family
  if (a.prefix.addr !== b.prefix.addr) return a.prefix.addr < b.prefix.addr ? -1 : 1
  if (a.prefix.len !== b.prefix.len) return a.prefix.len - b.prefix.len
  if (a.maxLength !== b.maxLength) return a.maxLength - b.maxLength
  return a.asn - b.asn
}

/** A line split into its item and its inline comment ('' when none). */
function splitComment(line: string): { item: string; comment: string } {
  const hash = line.indexOf('#')
  if (hash < 0) return { item: line.trim(), comment: '' }
  return { item: line.slice(0, hash).trim(), comment: line.slice(hash + 1).trim() }
}

/** One non-blank, non-comment delta line, added to `delta`; a ParseError says what is wrong with it. */
function parseDeltaLine(item: string, comment: string, delta: RoaDelta): void {
  const kind = item.slice(0, 2)
  const rest = item.slice(2)
  if (kind === 'A:') {
    const payload = parseRoaPayload(rest)
    delta.added.push(Object.freeze(comment === '' ? { payload } : { payload, comment }))
  } else if (kind === 'R:') {
    delta.removed.push(parseRoaPayload(rest))
  } else {
    throw new ParseError('', `expected 'A: <authorisation>' or 'R: <authorisation>', got ${shown(item)}`)
  }
}

/**
 * Parses a ROA delta file (spec §2.8): 'A: <payload> [# comment]' and 'R: <payload>' lines, blank lines,
 * '#' comments (full-line, indented or inline; an inline comment on an A: line becomes the configuration's
 * comment). CRLF is fine. Any error is a ParseError whose message starts 'line N: '.
 */
export function parseRoaDelta(text: string): RoaDelta {
  if (typeof text !== 'string') throw new ParseError('', `ROA delta: expected text, got ${typeof text}`)
  const delta: RoaDelta = { added: [], removed: [] }
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const { item, comment } = splitComment(lines[i])
    if (item === '') continue
    try {
      parseDeltaLine(item, comment, delta)
    } catch (e) {
      // Library code throws and does not catch; this re-throw only adds the line number for the user.
      if (e instanceof LibraryError) throw new ParseError('', `line ${i + 1}: ${e.message}`, { cause: e })
      throw e
    }
  }
  return delta
}
