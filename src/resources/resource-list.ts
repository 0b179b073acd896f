/**
 * Comma-separated resource lists as text: the spec form ('AS1, AS3-4', '10.0.0.0/8, 10.1.0.0-10.1.2.255',
 * spec §2.4) and the RFC 6492 §3.3 form ('1,3-4', no spaces). Splitting and error-message quoting only;
 * used by asn.ts and ip.ts. Linear time, no backtracking regexes, safe on hostile input.
 */
import { ParseError } from '../util/errors.js'

/** How much of a bad item an error message repeats (hostile input can be megabytes long). */
const SHOWN_MAX = 80

/** An item as shown in an error message: JSON-quoted, cut short when long. */
export function shown(text: string): string {
  return JSON.stringify(text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}…` : text)
}

/**
 * Splits a list on commas and trims each item. All-blank text is the empty list; an empty item between
 * commas (or before the first, after the last) is an error, so 'AS1,,AS2' never passes silently.
 */
export function splitList(text: string, what: string): string[] {
  if (typeof text !== 'string') throw new ParseError('', `${what}: expected text, got ${typeof text}`)
  const parts = text.split(',')
  if (parts.length === 1 && parts[0].trim() === '') return []
  const items: string[] = new Array(parts.length)
  for (let i = 0; i < parts.length; i++) {
    const item = parts[i].trim()
    if (item === '') throw new ParseError('', `${what}: empty item ${emptyPlace(i, parts.length)}`)
    items[i] = item
  }
  return items
}

function emptyPlace(index: number, count: number): string {
  if (index === 0) return 'before the first comma'
  if (index === count - 1) return 'after the last comma'
  return `between commas (item ${index + 1})`
}

/**
 * Splits a range item 'a-b' (spaces around '-' allowed) into its two ends, or returns undefined for an item
 * without '-'. More than one '-' is an error.
 */
export function splitRange(item: string, what: string): [string, string] | undefined {
  const dash = item.indexOf('-')
  if (dash < 0) return undefined
  if (item.indexOf('-', dash + 1) >= 0) throw new ParseError('', `${what} ${shown(item)} has more than one '-'`)
  const from = item.slice(0, dash).trim()
  const to = item.slice(dash + 1).trim()
  if (from === '' || to === '') throw new ParseError('', `${what} range ${shown(item)} is missing its ${from === '' ? 'start' : 'end'}`)
  return [from, to]
}
