/**
 * AS number resources (RFC 3779 §3; 4-octet ASNs, RFC 6793): AsBlocks, a canonical set of AS ranges with set
 * algebra and the two text forms: 'AS1, AS3-AS4' (both ends of a range with the AS prefix, as Krill and rpki-rs print
 * them; 'AS3-4' is accepted on input, spec §2.4) and RFC 6492 §3.3 ('1,3-4').
 * Used by resource-set.ts, roa-payload.ts, and the asn1, protocol and CA layers.
 */
import { ParseError } from '../util/errors.js'
import {
  canonicalRuns, coversRuns, findRun, intersectRuns, NUMBER_LINE, run, sameRuns, subtractRuns, unionRuns,
} from './range-list.js'
import { shown, splitList, splitRange } from './resource-list.js'

/** The largest AS number: ASNs are unsigned 32-bit (RFC 6793). Kept as a double, never in 32-bit bitwise ops. */
export const ASN_MAX = 4294967295

/** An inclusive range of AS numbers, 0..4294967295. */
export interface AsRange {
  readonly min: number
  readonly max: number
}

const DIGITS = /^[0-9]+$/

/** 'AS65000', 'as65000' or '65000' (surrounding blanks ignored) to a number; anything else is a ParseError. */
export function parseAsn(text: string): number {
  if (typeof text !== 'string') throw new ParseError('', `AS number: expected text, got ${typeof text}`)
  const t = text.trim()
  const hasPrefix = t.length > 2 && (t[0] === 'A' || t[0] === 'a') && (t[1] === 'S' || t[1] === 's')
  const digits = hasPrefix ? t.slice(2) : t
  if (!DIGITS.test(digits)) {
    throw new ParseError('', `${shown(t)} is not an AS number (expected e.g. 'AS65000' or '65000')`)
  }
  const value = Number(digits)
  // RFC 6793: AS numbers are four octets, so 4294967295 is the largest.
  if (value > ASN_MAX) throw new ParseError('', `AS number ${shown(t)} is out of range (the largest is 4294967295)`)
  return value
}

function isAsn(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= ASN_MAX
}

/** One list item: 'AS1', '1', 'AS3-AS4', '3-4', 'AS3 - 4'. */
function parseAsItem(item: string): AsRange {
  const ends = splitRange(item, 'AS')
  if (ends === undefined) {
    const asn = parseAsn(item)
    return run(asn, asn)
  }
  const min = parseAsn(ends[0])
  const max = parseAsn(ends[1])
  if (min > max) throw new ParseError('', `AS range ${shown(item)} is reversed: ${min} is above ${max}`)
  return run(min, max)
}

/** A set of AS numbers, kept canonical: sorted, with overlapping and adjacent ranges merged. Immutable. */
export class AsBlocks {
  private static readonly EMPTY = new AsBlocks([])
  private static readonly ALL = new AsBlocks([run(0, ASN_MAX)])

  /** The canonical ranges (RFC 3779 §3.2.3.6 order: ascending, disjoint, never adjacent). */
  readonly ranges: readonly AsRange[]

  private constructor(ranges: readonly AsRange[]) {
    this.ranges = Object.freeze(ranges)
    Object.freeze(this)
  }

  static empty(): AsBlocks {
    return AsBlocks.EMPTY
  }

  /** AS0-AS4294967295, as a trust anchor holds. */
  static all(): AsBlocks {
    return AsBlocks.ALL
  }

  /**
   * Parses 'AS1, AS3-4', 'AS3-AS4', '3-4', 'AS65000' and the RFC 6492 §3.3 form '64496-64511,65000'. Blank
   * text is the empty set. Items may overlap or touch; the result is merged.
   */
  static parse(text: string): AsBlocks {
    const items = splitList(text, 'AS resources')
    if (items.length === 0) return AsBlocks.EMPTY
    return AsBlocks.make(items.map(parseAsItem))
  }

  /** Canonicalises any ranges (sorts, merges overlapping and adjacent ones); checks each is a valid range. */
  static fromRanges(ranges: Iterable<AsRange>): AsBlocks {
    const runs: AsRange[] = []
    for (const r of ranges) {
      if (!isAsn(r.min) || !isAsn(r.max)) throw new ParseError('', `AS range ${r.min}-${r.max} is not within 0-4294967295`)
      if (r.min > r.max) throw new ParseError('', `AS range ${r.min}-${r.max} is reversed: ${r.min} is above ${r.max}`)
      runs.push(r)
    }
    return AsBlocks.make(runs)
  }

  private static make(runs: readonly AsRange[]): AsBlocks {
    const canonical = canonicalRuns(NUMBER_LINE, runs)
    return canonical.length === 0 ? AsBlocks.EMPTY : new AsBlocks(canonical)
  }

  private static of(runs: AsRange[]): AsBlocks {
    return runs.length === 0 ? AsBlocks.EMPTY : new AsBlocks(runs)
  }

  isEmpty(): boolean {
    return this.ranges.length === 0
  }

  containsAsn(asn: number): boolean {
    return isAsn(asn) && findRun(this.ranges, asn) >= 0
  }

  /** Whether every AS number of `o` is in this set. */
  contains(o: AsBlocks): boolean {
    return coversRuns(this.ranges, o.ranges)
  }

  union(o: AsBlocks): AsBlocks {
    if (o.isEmpty()) return this
    if (this.isEmpty()) return o
    return AsBlocks.of(unionRuns(NUMBER_LINE, this.ranges, o.ranges))
  }

  intersection(o: AsBlocks): AsBlocks {
    return AsBlocks.of(intersectRuns(this.ranges, o.ranges))
  }

  /** The AS numbers of this set that are not in `o`. */
  difference(o: AsBlocks): AsBlocks {
    if (o.isEmpty()) return this
    return AsBlocks.of(subtractRuns(NUMBER_LINE, this.ranges, o.ranges))
  }

  equals(o: AsBlocks): boolean {
    return sameRuns(this.ranges, o.ranges)
  }

  /** Krill's and rpki-rs's form: 'AS1, AS3-AS4'; a single AS as 'AS1'; '' when empty. */
  toString(): string {
    return this.ranges.map((r) => (r.min === r.max ? `AS${r.min}` : `AS${r.min}-AS${r.max}`)).join(', ')
  }

  /** RFC 6492 §3.3 form: decimal, no 'AS', no spaces: '1,3-4'. */
  toRfc6492(): string {
    return this.ranges.map((r) => (r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`)).join(',')
  }

  /** JSON.stringify gives the spec form, as in the API's `resources.asn`. */
  toJSON(): string {
    return this.toString()
  }
}
