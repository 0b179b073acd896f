/**
 * IP address resources (RFC 3779 §2) over bigint, one family at a time: prefixes, ranges and IpBlocks, a
 * canonical set with set algebra and the text forms of spec §2.4 and RFC 6492 §3.3.
 * Used by resource-set.ts, roa-payload.ts, and the asn1, objects, protocol and CA layers.
 */
import { ParseError } from '../util/errors.js'
import { addressBits, familyName, formatAddress, maxAddress, parseAddress, type IpFamily } from './ip-address.js'
import {
  BIGINT_LINE, canonicalRuns, coversRuns, findRun, intersectRuns, run, sameRuns, subtractRuns, unionRuns,
} from './range-list.js'
import { shown, splitList, splitRange } from './resource-list.js'

export { addressBits, formatAddress, parseAddress, type IpFamily } from './ip-address.js'

/** An inclusive range of addresses. */
export interface IpRange {
  readonly min: bigint
  readonly max: bigint
}

/** A CIDR prefix; `addr` has no bits set beyond `len`. */
export interface IpPrefix {
  readonly family: IpFamily
  readonly addr: bigint
  readonly len: number
}

const PREFIX_LENGTH = /^[0-9]{1,3}$/

/** Host masks by prefix length, per family: the low (bits - len) bits set. Precomputed for the hot paths. */
const HOST_MASKS = {
  4: Array.from({ length: 33 }, (_, len) => (1n << BigInt(32 - len)) - 1n),
  6: Array.from({ length: 129 }, (_, len) => (1n << BigInt(128 - len)) - 1n),
}

function hostMask(family: IpFamily, len: number): bigint {
  const mask = HOST_MASKS[family]?.[len]
  if (mask === undefined) throw new RangeError(`${String(len)} is not an IPv${String(family)} prefix length`)
  return mask
}

/**
 * Parses '10.0.0.0/8' or '2001:db8::/32' strictly: the length is at most 32/128 and the address has no host
 * bits set ('10.0.0.1/8' is an error that says so). Without `family`, a ':' means IPv6.
 */
export function parsePrefix(text: string, family?: IpFamily): IpPrefix {
  if (typeof text !== 'string') throw new ParseError('', `prefix: expected text, got ${typeof text}`)
  const t = text.trim()
  const slash = t.indexOf('/')
  if (slash < 0) throw new ParseError('', `${shown(t)} is not a prefix: '/<length>' is missing`)
  const { family: f, addr } = parseAddress(t.slice(0, slash), family)
  const lenText = t.slice(slash + 1)
  if (!PREFIX_LENGTH.test(lenText)) throw new ParseError('', `prefix length ${shown(lenText)} of ${shown(t)} is not a number`)
  const len = Number(lenText)
  const bits = addressBits(f)
  if (len > bits) throw new ParseError('', `prefix length ${len} of ${t} is longer than ${bits}, the size of an ${familyName(f)} address`)
  const host = hostMask(f, len)
  if ((addr & host) !== 0n) {
    throw new ParseError('', `${t} has host bits set (the prefix would be ${formatAddress(f, addr & ~host)}/${len})`)
  }
  return Object.freeze({ family: f, addr, len })
}

/** '10.0.0.0/8'; IPv6 in RFC 5952 form ('2001:db8::/32'). */
export function formatPrefix(p: IpPrefix): string {
  return `${formatAddress(p.family, p.addr)}/${p.len}`
}

/** The addresses a prefix covers. */
export function prefixRange(p: IpPrefix): IpRange {
  return run(p.addr, p.addr | hostMask(p.family, p.len))
}

/** The prefix a range is exactly, if it is one CIDR block: max - min is all ones (a host mask) and min is aligned. */
export function rangePrefix(family: IpFamily, r: IpRange): IpPrefix | undefined {
  const host = r.max - r.min
  if ((host & (host + 1n)) !== 0n || (r.min & host) !== 0n) return undefined
  return Object.freeze({ family, addr: r.min, len: addressBits(family) - bitLength(host) })
}

/** The number of bits of a non-negative bigint (0 for 0). */
function bitLength(n: bigint): number {
  if (n === 0n) return 0
  const hex = n.toString(16)
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0], 16)))
}

/** floor(log2(n)) for n ≥ 1; exact for a power of two. */
function log2Floor(n: bigint): number {
  return bitLength(n) - 1
}

/** Appends the fewest CIDR prefixes that cover exactly `r`: at each step the largest aligned block that fits. */
function rangePrefixes(family: IpFamily, r: IpRange, out: IpPrefix[]): void {
  const bits = addressBits(family)
  let lo = r.min
  while (lo <= r.max) {
    const align = lo === 0n ? 1n << BigInt(bits) : lo & -lo
    const room = 1n << BigInt(log2Floor(r.max - lo + 1n))
    const size = align < room ? align : room
    out.push(Object.freeze({ family, addr: lo, len: bits - log2Floor(size) }))
    lo += size
  }
}

/** One list item: a prefix, a range 'a-b' (blanks around '-' allowed) or a single address. */
function parseIpItem(item: string, family: IpFamily): IpRange {
  const found: IpFamily = item.includes(':') ? 6 : 4
  if (found !== family) {
    throw new ParseError('', `${shown(item)} is ${familyName(found)}, expected ${familyName(family)}`)
  }
  const ends = splitRange(item, familyName(family))
  if (ends === undefined) {
    if (item.includes('/')) return prefixRange(parsePrefix(item, family))
    const { addr } = parseAddress(item, family)
    return run(addr, addr)
  }
  const min = parseAddress(ends[0], family).addr
  const max = parseAddress(ends[1], family).addr
  // RFC 3779 §2.2.3.9: a range runs from its min to its max address.
  if (min > max) throw new ParseError('', `${familyName(family)} range ${ends[0]}-${ends[1]} is reversed: the start is above the end`)
  return run(min, max)
}

/** A run as text: one prefix if it is exactly one CIDR block, otherwise 'a-b'. */
function runText(family: IpFamily, r: IpRange): string {
  const p = rangePrefix(family, r)
  return p !== undefined ? formatPrefix(p) : `${formatAddress(family, r.min)}-${formatAddress(family, r.max)}`
}

/** A set of addresses of one family, kept canonical: sorted, overlapping and adjacent runs merged. Immutable. */
export class IpBlocks {
  private static readonly EMPTY = { 4: new IpBlocks(4, []), 6: new IpBlocks(6, []) }
  private static readonly ALL = { 4: new IpBlocks(4, [run(0n, maxAddress(4))]), 6: new IpBlocks(6, [run(0n, maxAddress(6))]) }

  readonly family: IpFamily
  /** The canonical runs (RFC 3779 §2.2.3.6 order: ascending, disjoint, never adjacent). */
  readonly ranges: readonly IpRange[]

  private constructor(family: IpFamily, ranges: readonly IpRange[]) {
    this.family = family
    this.ranges = Object.freeze(ranges)
    Object.freeze(this)
  }

  static empty(f: IpFamily): IpBlocks {
    return IpBlocks.EMPTY[checkFamily(f)]
  }

  /** 0.0.0.0/0 or ::/0. */
  static all(f: IpFamily): IpBlocks {
    return IpBlocks.ALL[checkFamily(f)]
  }

  /**
   * Parses '10.0.0.0/8, 10.1.0.0-10.1.2.255', the RFC 6492 §3.3 form without spaces, single addresses and
   * uncompressed IPv6. Blank text is the empty set. Items may overlap or touch; the result is merged.
   */
  static parse(text: string, family: IpFamily): IpBlocks {
    checkFamily(family)
    const items = splitList(text, `${familyName(family)} resources`)
    if (items.length === 0) return IpBlocks.EMPTY[family]
    return IpBlocks.make(family, items.map((item) => parseIpItem(item, family)))
  }

  /** Canonicalises any ranges (sorts, merges overlapping and adjacent ones); checks each is a valid range. */
  static fromRanges(f: IpFamily, ranges: Iterable<IpRange>): IpBlocks {
    checkFamily(f)
    const top = maxAddress(f)
    const runs: IpRange[] = []
    for (const r of ranges) {
      if (typeof r.min !== 'bigint' || typeof r.max !== 'bigint' || r.min < 0n || r.max > top) {
        throw new ParseError('', `${familyName(f)} range ${String(r.min)}-${String(r.max)} is not within the ${familyName(f)} address space`)
      }
      if (r.min > r.max) {
        throw new ParseError('', `${familyName(f)} range ${formatAddress(f, r.min)}-${formatAddress(f, r.max)} is reversed: the start is above the end`)
      }
      runs.push(r)
    }
    return IpBlocks.make(f, runs)
  }

  static fromPrefixes(f: IpFamily, ps: Iterable<IpPrefix>): IpBlocks {
    checkFamily(f)
    const runs: IpRange[] = []
    for (const p of ps) {
      if (p.family !== f) throw new ParseError('', `${formatPrefix(p)} is ${familyName(p.family)}, expected ${familyName(f)}`)
      runs.push(prefixRange(p))
    }
    return IpBlocks.make(f, runs)
  }

  private static make(f: IpFamily, runs: readonly IpRange[]): IpBlocks {
    return IpBlocks.of(f, canonicalRuns(BIGINT_LINE, runs))
  }

  private static of(f: IpFamily, runs: IpRange[]): IpBlocks {
    return runs.length === 0 ? IpBlocks.EMPTY[f] : new IpBlocks(f, runs)
  }

  isEmpty(): boolean {
    return this.ranges.length === 0
  }

  /**
   * Whether the whole prefix is in this set (false for a prefix of the other family). O(log n): a ROA's EE certificate
   * holds one run per prefix, and each of its prefixes is looked up (a scan made an aggregated ROA quadratic).
   */
  containsPrefix(p: IpPrefix): boolean {
    if (p.family !== this.family) return false
    const r = prefixRange(p)
    const i = findRun(this.ranges, r.min)
    return i >= 0 && this.ranges[i]!.max >= r.max
  }

  /** Whether one address is in this set. */
  containsAddress(addr: bigint): boolean {
    return findRun(this.ranges, addr) >= 0
  }

  /** Whether every address of `o` is in this set. */
  contains(o: IpBlocks): boolean {
    this.sameFamily(o)
    return coversRuns(this.ranges, o.ranges)
  }

  union(o: IpBlocks): IpBlocks {
    this.sameFamily(o)
    if (o.isEmpty()) return this
    if (this.isEmpty()) return o
    return IpBlocks.of(this.family, unionRuns(BIGINT_LINE, this.ranges, o.ranges))
  }

  intersection(o: IpBlocks): IpBlocks {
    this.sameFamily(o)
    return IpBlocks.of(this.family, intersectRuns(this.ranges, o.ranges))
  }

  /** The addresses of this set that are not in `o`. */
  difference(o: IpBlocks): IpBlocks {
    this.sameFamily(o)
    if (o.isEmpty()) return this
    return IpBlocks.of(this.family, subtractRuns(BIGINT_LINE, this.ranges, o.ranges))
  }

  /** Same family and same addresses. */
  equals(o: IpBlocks): boolean {
    return this.family === o.family && sameRuns(this.ranges, o.ranges)
  }

  /** Spec form: each run as one prefix if it is exactly one CIDR block, else 'a-b'; joined by ', '. */
  toString(): string {
    return this.ranges.map((r) => runText(this.family, r)).join(', ')
  }

  /** RFC 6492 §3.3 form: the same items joined by ',' without spaces. */
  toRfc6492(): string {
    return this.ranges.map((r) => runText(this.family, r)).join(',')
  }

  /** JSON.stringify gives the spec form, as in the API's `resources.ipv4`. */
  toJSON(): string {
    return this.toString()
  }

  /** The minimal CIDR decomposition of all runs, in address order (for tools that need prefixes). */
  prefixes(): IpPrefix[] {
    const out: IpPrefix[] = []
    for (const r of this.ranges) rangePrefixes(this.family, r, out)
    return out
  }

  private sameFamily(o: IpBlocks): void {
    if (o.family !== this.family) {
      throw new TypeError(`cannot combine ${familyName(this.family)} and ${familyName(o.family)} blocks`)
    }
  }
}

function checkFamily(f: IpFamily): IpFamily {
  if (f !== 4 && f !== 6) throw new TypeError(`IP family must be 4 or 6, got ${String(f)}`)
  return f
}
