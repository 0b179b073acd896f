/**
 * RFC 3779 certificate extensions ⇄ resources: IPAddrBlocks (id-pe-ipAddrBlocks, §2.2.3) and ASIdentifiers
 * (id-pe-autonomousSysIds, §3.2.3), with inherit. Encoders emit the unique canonical DER (rpki-encoding.md §6, the
 * same bytes as OpenSSL); decoders return canonical blocks plus `problems` for any non-canonical input found.
 * Used by objects/cert.ts (build, decode, inspect). Values are the extnValue contents (the inner SEQUENCE).
 */
import { AsBlocks, type AsRange } from '../resources/asn.js'
import { IpBlocks, type IpFamily, type IpRange } from '../resources/ip.js'
import { DecodeError } from '../util/errors.js'
import { bitString, EncodeError, explicit, int, nul, octetString, seq, seqOf } from './der.js'
import {
  children, cursor, type DerNode, expectSequence, parseDer, readBitString, readNull, readOctetString,
  readUint32,
} from './der-reader.js'

export type IpChoice = IpBlocks | 'inherit'
export type AsChoice = AsBlocks | 'inherit'

export interface IpAddrBlocksValue {
  ipv4?: IpChoice
  ipv6?: IpChoice
}

export interface DecodedIpAddrBlocks extends IpAddrBlocksValue {
  /** Non-canonical encodings found, each citing its rule ('RFC 3779 §2.2.3.6: IPv4 …'). Empty when canonical. */
  problems: string[]
}

export interface DecodedAsIdentifiers {
  asn?: AsChoice
  problems: string[]
}

const BITS = { 4: 32, 6: 128 } as const
const AFI = { 4: Uint8Array.of(0, 1), 6: Uint8Array.of(0, 2) } as const

// ---- IP addresses: bigint ⇄ BIT STRING (RFC 3779 §2.2.3.8) ----

/** Number of trailing bits of `x` (within `bits`) equal to `one`. */
function trailing(x: bigint, bits: number, one: boolean): number {
  const y = one ? ~x & ((1n << BigInt(bits)) - 1n) : x
  if (y === 0n) return bits
  return (y & -y).toString(2).length - 1
}

/** The top `nbits` bits of address `a` as a DER BIT STRING (pad bits zero). */
function addressBitString(a: bigint, bits: number, nbits: number): Uint8Array {
  const hex = a.toString(16).padStart(bits / 4, '0')
  const n = (nbits + 7) >> 3
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16)
  return bitString(out, n * 8 - nbits)
}

/** Prefix length when `r` is exactly one CIDR block, else -1. */
function prefixLength(r: IpRange, bits: number): number {
  const size = r.max - r.min + 1n
  if ((size & (size - 1n)) !== 0n || (r.min & (size - 1n)) !== 0n) return -1
  return bits - (size.toString(2).length - 1)
}

/** RFC 3779 §2.2.3.7–9: one prefix when possible, else a range with min/max trailing 0s/1s stripped. */
function encodeIpRange(r: IpRange, bits: number): Uint8Array {
  const len = prefixLength(r, bits)
  if (len >= 0) return addressBitString(r.min, bits, len)
  return seq(addressBitString(r.min, bits, bits - trailing(r.min, bits, false)),
    addressBitString(r.max, bits, bits - trailing(r.max, bits, true)))
}

function encodeFamily(family: IpFamily, choice: IpChoice): Uint8Array | undefined {
  if (choice === 'inherit') return seq(octetString(AFI[family]), nul())
  if (choice.family !== family) throw new EncodeError('RFC 3779 §2.2.3.3', `IPv${choice.family} blocks given as IPv${family}`)
  if (choice.ranges.length === 0) return undefined
  return seq(octetString(AFI[family]), seqOf(choice.ranges.map((r) => encodeIpRange(r, BITS[family]))))
}

/** The IPAddrBlocks extnValue: IPv4 first (RFC 3779 §2.2.3.3); a family with no blocks is left out. */
export function encodeIpAddrBlocks(v: IpAddrBlocksValue): Uint8Array {
  const families: Uint8Array[] = []
  for (const f of [4, 6] as const) {
    const choice = f === 4 ? v.ipv4 : v.ipv6
    const enc = choice === undefined ? undefined : encodeFamily(f, choice)
    if (enc !== undefined) families.push(enc)
  }
  // RFC 6487 §4.8.10: an IP resources extension holds at least one family (omit the extension instead).
  if (families.length === 0) throw new EncodeError('RFC 6487 §4.8.10', 'no IP resources to encode')
  return seqOf(families)
}

// ---- decoding ----

/** The address a BIT STRING stands for, padded with zeros (min) or ones (max); DecodeError beyond `bits`. */
function bitStringAddress(node: DerNode, bits: number, fillOnes: boolean): { addr: bigint; nbits: number; last: number } {
  const { bytes, unusedBits } = readBitString(node, 'RFC 3779 §2.2.3.8')
  const nbits = bytes.length * 8 - unusedBits
  if (nbits > bits) throw new DecodeError('RFC 3779 §2.2.3.8', `address of ${nbits} bits in an IPv${bits === 32 ? 4 : 6} block`)
  // Four 32-bit words at a time (IPv4 is one word): no strings, one BigInt per word.
  let addr = 0n
  for (let w = 0; w < bits / 32; w++) {
    let word = 0
    for (let k = 0; k < 4; k++) {
      const i = w * 4 + k
      let b = i < bytes.length ? bytes[i] : fillOnes ? 0xff : 0
      if (fillOnes && i === bytes.length - 1) b |= (1 << unusedBits) - 1
      word = word * 256 + b
    }
    addr = (addr << 32n) | BigInt(word)
  }
  const last = nbits === 0 ? -1 : (bytes[bytes.length - 1] >> unusedBits) & 1
  return { addr, nbits, last }
}

/** One IPAddressOrRange → range; encoding problems go to `problems`. */
function decodeIpItem(node: DerNode, family: IpFamily, problems: string[]): IpRange {
  const bits = BITS[family], name = `IPv${family}`
  if (node.tag === 0x03) {
    const min = bitStringAddress(node, bits, false), max = bitStringAddress(node, bits, true)
    return { min: min.addr, max: max.addr }
  }
  const c = expectSequence(node, 'RFC 3779 §2.2.3.7', 'IPAddressOrRange')
  const lo = bitStringAddress(c.next('RFC 3779 §2.2.3.9', 0x03, 'min'), bits, false)
  const hi = bitStringAddress(c.next('RFC 3779 §2.2.3.9', 0x03, 'max'), bits, true)
  c.end('RFC 3779 §2.2.3.9')
  if (lo.addr > hi.addr) throw new DecodeError('RFC 3779 §2.2.3.9', `${name} range is reversed`)
  const r = { min: lo.addr, max: hi.addr }
  if (lo.last === 0) problems.push(`RFC 3779 §2.2.3.9: ${name} range minimum keeps trailing zero bits`)
  if (hi.last === 1) problems.push(`RFC 3779 §2.2.3.9: ${name} range maximum keeps trailing one bits`)
  if (prefixLength(r, bits) >= 0) problems.push(`RFC 3779 §2.2.3.7: ${name} range that is a prefix is not encoded as one`)
  return r
}

/** Report order, overlap and adjacency between consecutive runs (RFC 3779 §2.2.3.6, §3.2.3.5). */
function checkOrder<T extends number | bigint>(runs: { min: T; max: T }[], name: string, rule: string, problems: string[]): void {
  for (let i = 1; i < runs.length; i++) {
    const p = runs[i - 1], r = runs[i]
    if (r.min < p.min) problems.push(`${rule}: ${name} blocks are not in ascending order`)
    else if (r.min <= p.max) problems.push(`${rule}: ${name} blocks overlap`)
    else if (BigInt(r.min) === BigInt(p.max) + 1n) problems.push(`${rule}: adjacent ${name} blocks are not merged`)
  }
}

/** Decode one IPAddressFamily into `out`; returns its AFI (for the order check). */
function decodeIpFamily(node: DerNode, out: DecodedIpAddrBlocks): number {
  const c = expectSequence(node, 'RFC 3779 §2.2.3.2', 'IPAddressFamily')
  const afi = readOctetString(c.next('RFC 3779 §2.2.3.3', 0x04, 'addressFamily'))
  const choice = c.next('RFC 3779 §2.2.3.4', undefined, 'ipAddressChoice')
  c.end('RFC 3779 §2.2.3.2')
  if (afi.length < 2 || afi.length > 3) throw new DecodeError('RFC 3779 §2.2.3.3', `addressFamily of ${afi.length} octets`)
  const family = afi[0] === 0 && (afi[1] === 1 || afi[1] === 2) ? (afi[1] === 1 ? 4 : 6) : undefined
  const afiNumber = afi[0] * 256 + afi[1]
  if (family === undefined) {
    out.problems.push(`RFC 6487 §4.8.10: address family ${afiNumber} is not IPv4 or IPv6`)
    return afiNumber
  }
  if (afi.length === 3) out.problems.push(`RFC 6487 §4.8.10: IPv${family} carries a SAFI`)
  const key = family === 4 ? 'ipv4' : 'ipv6'
  if (out[key] !== undefined) throw new DecodeError('RFC 3779 §2.2.3.3', `IPv${family} appears twice`)
  if (choice.tag === 0x05) {
    readNull(choice)
    out[key] = 'inherit'
    return afiNumber
  }
  if (choice.tag !== 0x30) throw new DecodeError('RFC 3779 §2.2.3.4', 'ipAddressChoice is neither NULL nor a SEQUENCE')
  const ranges = children(choice).map((n) => decodeIpItem(n, family, out.problems))
  if (ranges.length === 0) out.problems.push(`RFC 6487 §4.8.10: empty IPv${family} address list`)
  checkOrder(ranges, `IPv${family}`, 'RFC 3779 §2.2.3.6', out.problems)
  out[key] = IpBlocks.fromRanges(family, ranges)
  return afiNumber
}

/** Decode an IPAddrBlocks extnValue (strict DER); structure errors throw DecodeError, non-canonical forms are
 *  reported in `problems` and the blocks returned canonical. */
export function decodeIpAddrBlocks(bytes: Uint8Array): DecodedIpAddrBlocks {
  const out: DecodedIpAddrBlocks = { problems: [] }
  const families = children(expectSequence(parseDer(bytes), 'RFC 3779 §2.2.3.1', 'IPAddrBlocks').node)
  let prev = -1
  for (const f of families) {
    const afi = decodeIpFamily(f, out)
    if (afi < prev) out.problems.push('RFC 3779 §2.2.3.3: address families are not in ascending order')
    prev = afi
  }
  if (families.length === 0) out.problems.push('RFC 6487 §4.8.10: IPAddrBlocks holds no address family')
  return out
}

// ---- AS identifiers (RFC 3779 §3.2.3) ----

function encodeAsRange(r: AsRange): Uint8Array {
  return r.min === r.max ? int(r.min) : seq(int(r.min), int(r.max))
}

/** The ASIdentifiers extnValue: only asnum [0] (RFC 6487 §4.8.11: no rdi). */
export function encodeAsIdentifiers(asn: AsChoice): Uint8Array {
  if (asn === 'inherit') return seq(explicit(0, nul()))
  // RFC 6487 §4.8.11: an AS resources extension holds asnum (omit the extension instead).
  if (asn.ranges.length === 0) throw new EncodeError('RFC 6487 §4.8.11', 'no AS resources to encode')
  return seq(explicit(0, seqOf(asn.ranges.map(encodeAsRange))))
}

function decodeAsItem(node: DerNode, problems: string[]): AsRange {
  if (node.tag === 0x02) {
    const id = readUint32(node, 'RFC 3779 §3.2.3.7')
    return { min: id, max: id }
  }
  const c = expectSequence(node, 'RFC 3779 §3.2.3.6', 'ASIdOrRange')
  const min = readUint32(c.next('RFC 3779 §3.2.3.8', 0x02, 'min'), 'RFC 3779 §3.2.3.8')
  const max = readUint32(c.next('RFC 3779 §3.2.3.8', 0x02, 'max'), 'RFC 3779 §3.2.3.8')
  c.end('RFC 3779 §3.2.3.8')
  if (min > max) throw new DecodeError('RFC 3779 §3.2.3.8', `AS range ${min}-${max} is reversed`)
  if (min === max) problems.push(`RFC 3779 §3.2.3.8: AS${min} is encoded as a range, not as an id`)
  return { min, max }
}

function decodeAsChoice(wrapper: DerNode, problems: string[]): AsChoice {
  const c = cursor(wrapper)
  const choice = c.next('RFC 3779 §3.2.3.3', undefined, 'ASIdentifierChoice')
  c.end('RFC 3779 §3.2.3.3')
  if (choice.tag === 0x05) {
    readNull(choice)
    return 'inherit'
  }
  if (choice.tag !== 0x30) throw new DecodeError('RFC 3779 §3.2.3.3', 'ASIdentifierChoice is neither NULL nor a SEQUENCE')
  const ranges = children(choice).map((n) => decodeAsItem(n, problems))
  if (ranges.length === 0) problems.push('RFC 6487 §4.8.11: empty AS list')
  checkOrder(ranges, 'AS', 'RFC 3779 §3.2.3.5', problems)
  return AsBlocks.fromRanges(ranges)
}

/** Decode an ASIdentifiers extnValue; `rdi` and other non-canonical forms are reported in `problems`. */
export function decodeAsIdentifiers(bytes: Uint8Array): DecodedAsIdentifiers {
  const problems: string[] = []
  const c = expectSequence(parseDer(bytes), 'RFC 3779 §3.2.3.1', 'ASIdentifiers')
  const asnum = c.optional(0xa0)
  const rdi = c.optional(0xa1)
  c.end('RFC 3779 §3.2.3.1')
  const asn = asnum === undefined ? undefined : decodeAsChoice(asnum, problems)
  if (rdi !== undefined) {
    decodeAsChoice(rdi, [])
    problems.push('RFC 6487 §4.8.11: rdi must not be used')
  }
  if (asnum === undefined) problems.push('RFC 6487 §4.8.11: asnum is missing')
  return { asn, problems }
}
