/**
 * DER writer (X.690 §10–11): the emit path for everything svc publishes (certificates, CRLs, CMS, ROAs, manifests).
 * Every function returns one complete TLV as a fresh Uint8Array; inputs are never mutated and never kept.
 * Used by src/objects/ and src/protocol/ builders and by asn1/rfc3779.ts. Bad arguments throw EncodeError.
 */
import { compareBytes } from '../util/bytes.js'
import { LibraryError } from '../util/errors.js'
import { formatGeneralizedTime, formatUtcTime, isUtcTimeYear, wholeSeconds } from './time.js'

/** A value cannot be written as DER (caller bug: out-of-range number, bad characters, bad tag). */
export class EncodeError extends LibraryError {}

type Content = Uint8Array | readonly Uint8Array[]

/** Number of length octets after the first (0 for the short form). Lengths up to 2^53 (no 32-bit ops). */
function longLengthOctets(len: number): number {
  let n = 0
  for (let v = len; v > 0; v = Math.floor(v / 256)) n++
  return n
}

/** X.690 §10.1: minimal definite length octets for `len`. */
export function lengthOctets(len: number): Uint8Array {
  if (!Number.isSafeInteger(len) || len < 0) throw new EncodeError('X.690 §8.1.3', `bad length ${len}`)
  if (len < 0x80) return Uint8Array.of(len)
  const n = longLengthOctets(len)
  const out = new Uint8Array(1 + n)
  out[0] = 0x80 | n
  for (let i = n, v = len; i >= 1; i--, v = Math.floor(v / 256)) out[i] = v % 256
  return out
}

function checkTag(tag: number): void {
  // X.690 §8.1.2.2: one identifier octet only holds tag numbers 0–30.
  if (!Number.isInteger(tag) || tag < 0 || tag > 0xff || (tag & 0x1f) === 0x1f) {
    throw new EncodeError('X.690 §8.1.2', `tag ${tag} is not a single identifier octet`)
  }
}

/** Write identifier + length at the front of a buffer of size header + len; returns the content offset. */
function header(out: Uint8Array, tag: number, len: number): number {
  out[0] = tag
  if (len < 0x80) {
    out[1] = len
    return 2
  }
  const n = longLengthOctets(len)
  out[1] = 0x80 | n
  for (let i = n + 1, v = len; i >= 2; i--, v = Math.floor(v / 256)) out[i] = v % 256
  return 2 + n
}

function headerSize(len: number): number {
  return len < 0x80 ? 2 : 2 + longLengthOctets(len)
}

/** One TLV with a single identifier octet; `content` is the contents, or parts that are concatenated. */
export function tlv(tag: number, content: Content): Uint8Array {
  checkTag(tag)
  if (content instanceof Uint8Array) {
    const out = new Uint8Array(headerSize(content.length) + content.length)
    out.set(content, header(out, tag, content.length))
    return out
  }
  let len = 0
  for (let i = 0; i < content.length; i++) len += content[i].length
  const out = new Uint8Array(headerSize(len) + len)
  let off = header(out, tag, len)
  for (let i = 0; i < content.length; i++) {
    out.set(content[i], off)
    off += content[i].length
  }
  return out
}

/** SEQUENCE of the given TLVs, in the given order. */
export function seq(...items: Uint8Array[]): Uint8Array {
  return tlv(0x30, items)
}

/** SEQUENCE (OF) from an array: use this rather than `seq(...items)` for long lists (no argument spreading). */
export function seqOf(items: readonly Uint8Array[]): Uint8Array {
  return tlv(0x30, items)
}

/** SET of the given TLVs, in the given order (use setOf for a DER SET OF). */
export function set(...items: Uint8Array[]): Uint8Array {
  return tlv(0x31, items)
}

/** X.690 §11.6: SET OF with the encodings sorted in ascending order. */
export function setOf(items: readonly Uint8Array[]): Uint8Array {
  return tlv(0x31, [...items].sort(compareBytes))
}

function checkTagNumber(n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 30) throw new EncodeError('X.690 §8.1.2', `context tag [${n}] out of range`)
}

/** [n] EXPLICIT: constructed context tag 0xa0|n around one or more TLVs. */
export function explicit(n: number, inner: Content): Uint8Array {
  checkTagNumber(n)
  return tlv(0xa0 | n, inner)
}

/** [n] IMPLICIT: context tag 0x80|n (0xa0|n when constructed) around raw contents. */
export function implicit(n: number, content: Content, constructed = false): Uint8Array {
  checkTagNumber(n)
  return tlv((constructed ? 0xa0 : 0x80) | n, content)
}

/** A copy of a complete TLV with its identifier octet replaced (e.g. SET 0x31 → [0] IMPLICIT 0xa0). */
export function retag(encoded: Uint8Array, tag: number): Uint8Array {
  checkTag(tag)
  const out = encoded.slice()
  out[0] = tag
  return out
}

/** INTEGER (X.690 §8.3): minimal two's complement, with the 0x00 sign octet where the high bit is set. */
export function int(v: number | bigint): Uint8Array {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new EncodeError('X.690 §8.3', `${v} is not a safe integer`)
    if (v >= 0 && v < 0x80) return Uint8Array.of(0x02, 0x01, v)
    v = BigInt(v)
  }
  return tlv(0x02, intContent(v))
}

function intContent(v: bigint): Uint8Array {
  if (v >= 0n) {
    let hex = v.toString(16)
    if (hex.length % 2) hex = '0' + hex
    if (parseInt(hex[0], 16) >= 8) hex = '00' + hex
    return hexBytes(hex)
  }
  let octets = 1
  while (v < -(1n << BigInt(8 * octets - 1))) octets++
  return hexBytes((v + (1n << BigInt(8 * octets))).toString(16).padStart(2 * octets, '0'))
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16)
  return out
}

/** Unsigned big-endian magnitude → minimal positive INTEGER (leading zeros dropped, sign octet added). */
export function uintFromBytes(bytes: Uint8Array): Uint8Array {
  let i = 0
  while (i < bytes.length - 1 && bytes[i] === 0) i++
  if (bytes.length === 0) return Uint8Array.of(0x02, 0x01, 0x00)
  const mag = bytes.subarray(i)
  return mag[0] & 0x80 ? tlv(0x02, [Uint8Array.of(0), mag]) : tlv(0x02, mag)
}

/** BOOLEAN (X.690 §11.1: TRUE is 0xff). */
export function bool(b: boolean): Uint8Array {
  return Uint8Array.of(0x01, 0x01, b ? 0xff : 0x00)
}

/** NULL (X.690 §8.8). */
export function nul(): Uint8Array {
  return Uint8Array.of(0x05, 0x00)
}

const oidCache = new Map<string, Uint8Array>()

/** The contents octets of an OBJECT IDENTIFIER (X.690 §8.19), cached; do not mutate the result. */
export function oidContent(dotted: string): Uint8Array {
  let c = oidCache.get(dotted)
  if (c === undefined) {
    c = encodeOidContent(dotted)
    oidCache.set(dotted, c)
  }
  return c
}

function encodeOidContent(dotted: string): Uint8Array {
  if (!/^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))+$/.test(dotted)) {
    throw new EncodeError('X.680 §32', `'${dotted}' is not a dotted OBJECT IDENTIFIER`)
  }
  const arcs = dotted.split('.').map((a) => BigInt(a))
  // X.690 §8.19.4: the first two arcs share one subidentifier, 40 * a + b, with a ≤ 2 and b < 40 unless a = 2.
  if (arcs[0] > 2n || (arcs[0] < 2n && arcs[1] >= 40n)) {
    throw new EncodeError('X.690 §8.19.4', `'${dotted}' has an impossible first or second arc`)
  }
  const subs = [arcs[0] * 40n + arcs[1], ...arcs.slice(2)]
  const out: number[] = []
  for (const s of subs) {
    const group: number[] = [Number(s & 0x7fn)]
    for (let v = s >> 7n; v > 0n; v >>= 7n) group.unshift(Number(v & 0x7fn) | 0x80)
    out.push(...group)
  }
  return Uint8Array.from(out)
}

/** OBJECT IDENTIFIER from dotted text (encoding cached per OID). */
export function oid(dotted: string): Uint8Array {
  return tlv(0x06, oidContent(dotted))
}

/** BIT STRING (X.690 §8.6): leading unused-bits octet; DER pad bits are written as zero (§11.2.1). */
export function bitString(bytes: Uint8Array, unusedBits = 0): Uint8Array {
  if (!Number.isInteger(unusedBits) || unusedBits < 0 || unusedBits > 7 || (bytes.length === 0 && unusedBits !== 0)) {
    throw new EncodeError('X.690 §8.6.2.2', `bad number of unused bits ${unusedBits}`)
  }
  const out = tlv(0x03, [Uint8Array.of(unusedBits), bytes])
  if (unusedBits) out[out.length - 1] &= (0xff << unusedBits) & 0xff
  return out
}

/** Named-bit BIT STRING (X.690 §11.2.2: trailing zero bits removed), e.g. keyUsage 0x06 → 03 02 01 06. */
export function namedBitString(bytes: Uint8Array): Uint8Array {
  let n = bytes.length
  while (n > 0 && bytes[n - 1] === 0) n--
  if (n === 0) return Uint8Array.of(0x03, 0x01, 0x00)
  let unused = 0
  while (((bytes[n - 1] >> unused) & 1) === 0) unused++
  return bitString(bytes.subarray(0, n), unused)
}

/** OCTET STRING (primitive, as DER requires: X.690 §10.2). */
export function octetString(bytes: Uint8Array): Uint8Array {
  return tlv(0x04, bytes)
}

/** UTF8String; lone surrogates are refused (they have no UTF-8 encoding). */
export function utf8String(s: string): Uint8Array {
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) {
    throw new EncodeError('RFC 3629 §3', 'string contains a lone surrogate')
  }
  return tlv(0x0c, Buffer.from(s, 'utf8'))
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/

/** PrintableString; X.680 §41.4 allows only A–Z a–z 0–9 space ' ( ) + , - . / : = ?. */
export function printableString(s: string): Uint8Array {
  if (!PRINTABLE.test(s)) throw new EncodeError('X.680 §41.4', `${JSON.stringify(s)} has a character outside PrintableString`)
  return tlv(0x13, Buffer.from(s, 'latin1'))
}

/** IA5String (X.680 §41.4: characters 0–127). */
export function ia5String(s: string): Uint8Array {
  if (!/^[\x00-\x7f]*$/.test(s)) throw new EncodeError('X.680 §41.4', `${JSON.stringify(s)} has a character outside IA5String`)
  return tlv(0x16, Buffer.from(s, 'latin1'))
}

/** The Date truncated to whole seconds (RFC 5280 §4.1.2.5.2: no fractions); EncodeError for an invalid Date. */
function seconds(d: Date, rule: string): Date {
  const ms = d.getTime()
  if (!Number.isFinite(ms)) throw new EncodeError(rule, 'invalid Date')
  return new Date(wholeSeconds(d))
}

/** UTCTime YYMMDDHHMMSSZ (RFC 5280 §4.1.2.5.1), milliseconds truncated; only for 1950–2049. */
export function utcTime(d: Date): Uint8Array {
  const rule = 'RFC 5280 §4.1.2.5.1'
  const s = seconds(d, rule)
  const year = s.getUTCFullYear()
  if (!isUtcTimeYear(year)) throw new EncodeError(rule, `UTCTime cannot hold the year ${year}`)
  return tlv(0x17, Buffer.from(formatUtcTime(s), 'latin1'))
}

/** GeneralizedTime YYYYMMDDHHMMSSZ (RFC 5280 §4.1.2.5.2), milliseconds truncated, no fractions. */
export function generalizedTime(d: Date): Uint8Array {
  const rule = 'RFC 5280 §4.1.2.5.2'
  const s = seconds(d, rule)
  const year = s.getUTCFullYear()
  if (year < 0 || year > 9999) throw new EncodeError(rule, `GeneralizedTime cannot hold the year ${year}`)
  return tlv(0x18, Buffer.from(formatGeneralizedTime(s), 'latin1'))
}

/** RFC 5280 §4.1.2.5 Time: UTCTime for 1950–2049, GeneralizedTime otherwise (from 2050). */
export function x509Time(d: Date): Uint8Array {
  return isUtcTimeYear(seconds(d, 'RFC 5280 §4.1.2.5').getUTCFullYear()) ? utcTime(d) : generalizedTime(d)
}
