/**
 * BGP route origins as seen by RIPE RIS (krill-reference.md §5: Krill's BGP analysis is built from the RIS whois
 * dumps): the dump format, and a compact index per address family for the lookups of the ROA analysis. Pure: the
 * loader (bgp/ris-loader.ts) fetches and decompresses, a worker thread builds the index, the service swaps it in.
 *
 * The dump format (riswhoisdump.IPv4 / .IPv6): lines '<origin AS> <prefix> <number of RIS peers that saw it>',
 * separated by blanks or tabs; '%' starts a comment line, blank lines are skipped. An AS set ('{64496,64497}') as
 * the origin is left out, as Krill does, and so is a pair seen by fewer than `minPeers` peers (Krill: 6) and an
 * AS0 origin (RFC 7607: never originated; it would match AS0 ROAs). Lines that are not of this form are counted and
 * left out: one odd line does not cost the whole dump.
 *
 * The index keeps the announcements sorted by (address, prefix length, origin) in typed arrays (a few bytes per
 * announcement, no object per entry), so the announcements inside a prefix or range are one binary search and a
 * contiguous run, and the whole index moves between threads as a few transferable buffers.
 */
import { addressBits, parsePrefix, type IpFamily, type IpPrefix } from '../../resources/ip.js'

/** One route origin: `asn` originates `prefix` (Krill's Announcement). */
export interface Announcement {
  readonly asn: number
  readonly prefix: IpPrefix
}

/** The index's arrays, as they travel between threads. */
export interface RouteOriginArrays {
  family: IpFamily
  /** Announcements in all. */
  size: number
  /** The addresses, 1 (IPv4) or 4 (IPv6) 32-bit words each, most significant first. */
  words: Uint32Array
  lens: Uint8Array
  asns: Uint32Array
}

/** What a parse left out, for the log. */
export interface ParseCounts {
  lines: number
  kept: number
  /** Lines that are not '<asn> <prefix> <peers>' of this family. */
  malformed: number
  /** Pairs seen by fewer than minPeers peers, or with an AS set or AS0 as the origin. */
  skipped: number
  /** The first malformed line (for the log), if any. */
  firstMalformed?: string
}

const words = (f: IpFamily) => (f === 4 ? 1 : 4)

/** Builds the index from dump lines: add lines (in any order), then `finish`. */
export class RouteOriginBuilder {
  private n = 0
  private words: Uint32Array
  private lens: Uint8Array
  private asns: Uint32Array
  readonly counts: ParseCounts = { lines: 0, kept: 0, malformed: 0, skipped: 0 }

  constructor(readonly family: IpFamily, private readonly minPeers: number) {
    this.words = new Uint32Array(1024 * words(family))
    this.lens = new Uint8Array(1024)
    this.asns = new Uint32Array(1024)
  }

  /** One line of a dump (without its line end). */
  addLine(line: string): void {
    const c = this.counts
    c.lines++
    const t = line.trim()
    if (t === '' || t.startsWith('%')) return
    const cols = t.split(/\s+/)
    const [asnText, prefixText, peersText] = cols
    if (cols.length !== 3 || !/^[0-9]{1,10}$/.test(peersText!)) return this.malformed(t)
    if (asnText!.startsWith('{')) return void c.skipped++
    if (!/^(AS)?[0-9]{1,10}$/i.test(asnText!)) return this.malformed(t)
    const asn = Number(asnText!.replace(/^AS/i, ''))
    if (asn > 0xffffffff) return this.malformed(t)
    if (asn === 0) return void c.skipped++
    let prefix: IpPrefix
    try {
      prefix = parsePrefix(prefixText!, this.family)
    } catch {
      return this.malformed(t)
    }
    if (Number(peersText) < this.minPeers) return void c.skipped++
    this.add(asn, prefix)
    c.kept++
  }

  /** One announcement. */
  add(asn: number, prefix: IpPrefix): void {
    if (prefix.family !== this.family) throw new RangeError(`an IPv${prefix.family} prefix in the IPv${this.family} index`)
    const w = words(this.family)
    if (this.n === this.lens.length) this.grow()
    toWords(prefix.addr, w, this.words, this.n * w)
    this.lens[this.n] = prefix.len
    this.asns[this.n] = asn
    this.n++
  }

  /** The sorted, de-duplicated index. */
  finish(): RouteOriginArrays {
    const w = words(this.family)
    const order = new Uint32Array(this.n)
    for (let i = 0; i < this.n; i++) order[i] = i
    const cmp = (a: number, b: number) => compareEntries(this.words, this.lens, this.asns, w, a, b)
    order.sort(cmp)
    const out = { family: this.family, size: 0, words: new Uint32Array(this.n * w), lens: new Uint8Array(this.n), asns: new Uint32Array(this.n) }
    for (let k = 0; k < this.n; k++) {
      const i = order[k]!
      if (k > 0 && cmp(order[k - 1]!, i) === 0) continue
      for (let j = 0; j < w; j++) out.words[out.size * w + j] = this.words[i * w + j]!
      out.lens[out.size] = this.lens[i]!
      out.asns[out.size] = this.asns[i]!
      out.size++
    }
    return { family: this.family, size: out.size, words: out.words.slice(0, out.size * w), lens: out.lens.slice(0, out.size), asns: out.asns.slice(0, out.size) }
  }

  private malformed(line: string): void {
    this.counts.malformed++
    this.counts.firstMalformed ??= line.slice(0, 200)
  }

  private grow(): void {
    const w = words(this.family)
    const size = this.lens.length * 2
    const grown = { words: new Uint32Array(size * w), lens: new Uint8Array(size), asns: new Uint32Array(size) }
    grown.words.set(this.words)
    grown.lens.set(this.lens)
    grown.asns.set(this.asns)
    this.words = grown.words
    this.lens = grown.lens
    this.asns = grown.asns
  }
}

/** Parse a whole dump's text into an index (tests, small dumps; the loader feeds lines as they come). */
export function parseRisWhois(text: string, family: IpFamily, minPeers: number): { index: RouteOrigins; counts: ParseCounts } {
  const b = new RouteOriginBuilder(family, minPeers)
  for (const line of text.split('\n')) b.addLine(line)
  return { index: new RouteOrigins(b.finish()), counts: b.counts }
}

/** The announcements of one family, sorted by (address, length, origin). */
export class RouteOrigins {
  readonly family: IpFamily
  readonly size: number
  private readonly w: number

  constructor(private readonly a: RouteOriginArrays) {
    this.family = a.family
    this.size = a.size
    this.w = words(a.family)
    if (a.words.length !== a.size * this.w || a.lens.length !== a.size || a.asns.length !== a.size) throw new RangeError('route origin arrays of unequal length')
  }

  static empty(family: IpFamily): RouteOrigins {
    return new RouteOrigins({ family, size: 0, words: new Uint32Array(0), lens: new Uint8Array(0), asns: new Uint32Array(0) })
  }

  /** The arrays (to send to another thread). */
  arrays(): RouteOriginArrays {
    return this.a
  }

  /** Announcements whose prefix lies inside the address range [min, max] (an equal prefix included), in index order. */
  within(min: bigint, max: bigint): Announcement[] {
    const out: Announcement[] = []
    const bits = addressBits(this.family)
    const key = new Uint32Array(this.w)
    toWords(min, this.w, key, 0)
    // The first entry whose address is at least min: every entry from there on with an address up to max starts
    // inside the range; it lies inside when it also ends there.
    let lo = 0
    let hi = this.size
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (compareAddress(this.a.words, mid * this.w, key, this.w) < 0) lo = mid + 1
      else hi = mid
    }
    for (let i = lo; i < this.size; i++) {
      const addr = this.address(i)
      if (addr > max) break
      const len = this.a.lens[i]!
      const end = addr | ((1n << BigInt(bits - len)) - 1n)
      if (end <= max) out.push({ asn: this.a.asns[i]!, prefix: { family: this.family, addr, len } })
    }
    return out
  }

  /** Every announcement, in index order (tests and small data). */
  all(): Announcement[] {
    return this.size === 0 ? [] : this.within(0n, this.family === 4 ? 0xffffffffn : (1n << 128n) - 1n)
  }

  private address(i: number): bigint {
    if (this.w === 1) return BigInt(this.a.words[i]!)
    let v = 0n
    for (let j = 0; j < this.w; j++) v = (v << 32n) | BigInt(this.a.words[i * this.w + j]!)
    return v
  }
}

/** Both families of a loaded dump. */
export interface RisWhois {
  v4: RouteOrigins
  v6: RouteOrigins
  /** When it was loaded (ISO 8601). */
  loaded: string
}

function toWords(addr: bigint, w: number, out: Uint32Array, at: number): void {
  if (w === 1) {
    out[at] = Number(addr)
    return
  }
  for (let j = w - 1; j >= 0; j--) {
    out[at + j] = Number(addr & 0xffffffffn)
    addr >>= 32n
  }
}

function compareAddress(words: Uint32Array, at: number, key: Uint32Array, w: number): number {
  for (let j = 0; j < w; j++) {
    const d = words[at + j]! - key[j]!
    if (d !== 0) return d
  }
  return 0
}

function compareEntries(words: Uint32Array, lens: Uint8Array, asns: Uint32Array, w: number, a: number, b: number): number {
  for (let j = 0; j < w; j++) {
    const d = words[a * w + j]! - words[b * w + j]!
    if (d !== 0) return d
  }
  return lens[a]! - lens[b]! || asns[a]! - asns[b]!
}
