/**
 * Strict DER value readers (X.690 §8 and §11, RFC 5280 §4.1.2.5 times) over DerNode: INTEGER, BOOLEAN, NULL,
 * OBJECT IDENTIFIER, BIT/OCTET STRING, Printable/IA5/UTF8 strings, UTCTime/GeneralizedTime. Re-exported by
 * der-reader.ts. `rule` names the profile rule used when the tag is wrong; content violations cite X.690 itself.
 */
import { DecodeError } from '../util/errors.js'
import { oidContent } from './der.js'
import { type DerNode, tagName } from './der-node.js'
import { parseGeneralizedTime, parseUtcTime } from './time.js'

function bad(rule: string, message: string, node: DerNode): never {
  throw new DecodeError(rule, `${message} at offset ${node.start}`)
}

function tagged(node: DerNode, tag: number, rule: string): void {
  if (node.tag !== tag) bad(rule, `expected ${tagName(tag)}, found ${tagName(node.tag)}`, node)
}

/** X.690 §8.3.1–8.3.2: at least one octet, and the first nine bits are not all equal. */
function checkInteger(node: DerNode): void {
  const b = node.bytes, p = node.start + node.headerLength
  if (node.length === 0) bad('X.690 §8.3.1', 'INTEGER with no contents octets', node)
  if (node.length > 1 && ((b[p] === 0 && (b[p + 1] & 0x80) === 0) || (b[p] === 0xff && (b[p + 1] & 0x80) !== 0))) {
    bad('X.690 §8.3.2', 'INTEGER not minimal', node)
  }
}

/** INTEGER as a bigint. */
export function readBigInt(node: DerNode, rule = 'X.690 §8.3', tag = 0x02): bigint {
  tagged(node, tag, rule)
  checkInteger(node)
  const b = node.bytes, p = node.start + node.headerLength
  let v = 0n
  for (let i = 0; i < node.length; i++) v = (v << 8n) | BigInt(b[p + i])
  return b[p] & 0x80 ? v - (1n << BigInt(8 * node.length)) : v
}

/** INTEGER as a number; DecodeError(rule) when it is not a safe integer. */
export function readInt(node: DerNode, rule = 'X.690 §8.3', tag = 0x02): number {
  tagged(node, tag, rule)
  checkInteger(node)
  if (node.length > 6) {
    const v = readBigInt(node, rule, tag)
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) bad(rule, 'INTEGER too large', node)
    return Number(v)
  }
  const b = node.bytes, p = node.start + node.headerLength
  let v = b[p] & 0x80 ? b[p] - 256 : b[p]
  for (let i = 1; i < node.length; i++) v = v * 256 + b[p + i]
  return v
}

/** INTEGER in 0..4294967295 (AS numbers: RFC 3779 §3.2.3.1, RFC 9582 §4.2). */
export function readUint32(node: DerNode, rule = 'X.690 §8.3', tag = 0x02): number {
  tagged(node, tag, rule)
  checkInteger(node)
  const v = node.length <= 5 ? readInt(node, rule, tag) : -1
  if (v < 0 || v > 0xffffffff) bad(rule, 'INTEGER is not in 0..4294967295', node)
  return v
}

/** The validated contents octets of an INTEGER (two's complement, sign octet included), e.g. a serial number. */
export function readIntegerContent(node: DerNode, rule = 'X.690 §8.3', tag = 0x02): Uint8Array {
  tagged(node, tag, rule)
  checkInteger(node)
  return node.content()
}

/** BOOLEAN; X.690 §11.1: FALSE is 0x00 and TRUE is 0xff. */
export function readBool(node: DerNode, rule = 'X.690 §8.2', tag = 0x01): boolean {
  tagged(node, tag, rule)
  if (node.length !== 1) bad('X.690 §8.2.1', 'BOOLEAN must have one contents octet', node)
  const v = node.bytes[node.start + node.headerLength]
  if (v !== 0 && v !== 0xff) bad('X.690 §11.1', 'BOOLEAN TRUE must be 0xff', node)
  return v === 0xff
}

/** NULL (X.690 §8.8.2: no contents octets). */
export function readNull(node: DerNode, rule = 'X.690 §8.8', tag = 0x05): null {
  tagged(node, tag, rule)
  if (node.length !== 0) bad('X.690 §8.8.2', 'NULL with contents octets', node)
  return null
}

/** X.690 §8.19.2: subidentifiers are minimal and the last octet ends a subidentifier. */
function checkOid(node: DerNode): void {
  const b = node.bytes, p = node.start + node.headerLength, e = node.end
  if (node.length === 0) bad('X.690 §8.19.1', 'OBJECT IDENTIFIER with no contents octets', node)
  if (b[e - 1] & 0x80) bad('X.690 §8.19.2', 'OBJECT IDENTIFIER ends inside a subidentifier', node)
  for (let i = p; i < e; i++) {
    if (b[i] === 0x80 && (i === p || (b[i - 1] & 0x80) === 0)) bad('X.690 §8.19.2', 'subidentifier not minimal', node)
  }
}

/** One subidentifier (base 128); a number up to 7 octets (49 bits), a bigint beyond. */
function subidentifier(c: Uint8Array, from: number, to: number): number | bigint {
  if (to - from <= 7) {
    let n = 0
    for (let i = from; i < to; i++) n = n * 128 + (c[i] & 0x7f)
    return n
  }
  let v = 0n
  for (let i = from; i < to; i++) v = v * 128n + BigInt(c[i] & 0x7f)
  return v
}

/** X.690 §8.19.4: the first subidentifier is 40 * arc1 + arc2 (arc1 ≤ 2). */
function firstArcs(sub: number | bigint): string {
  if (typeof sub === 'bigint') return `2.${sub - 80n}`
  return sub < 40 ? `0.${sub}` : sub < 80 ? `1.${sub - 40}` : `2.${sub - 80}`
}

function decodeOid(c: Uint8Array): string {
  let out = ''
  let start = 0
  for (let i = 0; i < c.length; i++) {
    if (c[i] & 0x80) continue
    const sub = subidentifier(c, start, i + 1)
    out = start === 0 ? firstArcs(sub) : `${out}.${sub}`
    start = i + 1
  }
  return out
}

const oidTextCache = new Map<string, string>()

/** OBJECT IDENTIFIER as dotted text (decoded text is cached, up to 4096 distinct OIDs). */
export function readOid(node: DerNode, rule = 'X.690 §8.19'): string {
  tagged(node, 0x06, rule)
  checkOid(node)
  const c = node.content()
  const key = c.length <= 32 ? String.fromCharCode.apply(null, c as unknown as number[]) : undefined
  let text = key === undefined ? undefined : oidTextCache.get(key)
  if (text === undefined) {
    text = decodeOid(c)
    if (key !== undefined && oidTextCache.size < 4096) oidTextCache.set(key, text)
  }
  return text
}

/** True when the node is the OBJECT IDENTIFIER `dotted` (a byte comparison: the fast path for known OIDs). */
export function oidIs(node: DerNode, dotted: string): boolean {
  return node.tag === 0x06 && contentEquals(node, oidContent(dotted))
}

/** True when the node's contents octets equal `bytes`. */
export function contentEquals(node: DerNode, bytes: Uint8Array): boolean {
  if (node.length !== bytes.length) return false
  const b = node.bytes, p = node.start + node.headerLength
  for (let i = 0; i < bytes.length; i++) if (b[p + i] !== bytes[i]) return false
  return true
}

export interface BitString {
  /** The bit string octets without the unused-bits octet (a view). */
  bytes: Uint8Array
  unusedBits: number
}

/** BIT STRING (X.690 §8.6.2), with the DER rule that pad bits are zero (§11.2.1). */
export function readBitString(node: DerNode, rule = 'X.690 §8.6', tag = 0x03): BitString {
  tagged(node, tag, rule)
  const b = node.bytes, p = node.start + node.headerLength
  if (node.length === 0) bad('X.690 §8.6.2', 'BIT STRING without the unused-bits octet', node)
  const unusedBits = b[p]
  if (unusedBits > 7) bad('X.690 §8.6.2.2', `${unusedBits} unused bits`, node)
  if (node.length === 1 && unusedBits !== 0) bad('X.690 §8.6.2.3', 'empty BIT STRING with unused bits', node)
  if (unusedBits && (b[node.end - 1] & ((1 << unusedBits) - 1))) bad('X.690 §11.2.1', 'BIT STRING pad bits not zero', node)
  return { bytes: b.subarray(p + 1, node.end), unusedBits }
}

/** BIT STRING with named bits (e.g. keyUsage): X.690 §11.2.2 removes trailing zero bits. */
export function readNamedBitString(node: DerNode, rule = 'X.690 §8.6', tag = 0x03): BitString {
  const bs = readBitString(node, rule, tag)
  const n = bs.bytes.length
  if (n > 0 && (bs.bytes[n - 1] & (1 << bs.unusedBits)) === 0) bad('X.690 §11.2.2', 'named BIT STRING has trailing zero bits', node)
  return bs
}

/** OCTET STRING contents (a view). DER allows only the primitive form (X.690 §10.2; checked by the reader). */
export function readOctetString(node: DerNode, rule = 'X.690 §8.7', tag = 0x04): Uint8Array {
  tagged(node, tag, rule)
  return node.content()
}

function latin1(node: DerNode): string {
  const b = node.bytes
  let s = ''
  for (let i = node.start + node.headerLength; i < node.end; i++) s += String.fromCharCode(b[i])
  return s
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** PrintableString, IA5String or UTF8String as text (other string types: DecodeError(rule)). */
export function readString(node: DerNode, rule = 'X.680 §41'): string {
  if (node.tag === 0x13) {
    const s = latin1(node)
    if (!PRINTABLE.test(s)) bad('X.680 §41.4', 'character outside PrintableString', node)
    return s
  }
  if (node.tag === 0x16) {
    const s = latin1(node)
    if (!/^[\x00-\x7f]*$/.test(s)) bad('X.680 §41.4', 'character outside IA5String', node)
    return s
  }
  if (node.tag === 0x0c) {
    try {
      return utf8.decode(node.content())
    } catch {
      return bad('RFC 3629 §4', 'UTF8String is not valid UTF-8', node)
    }
  }
  return bad(rule, `expected a PrintableString, IA5String or UTF8String, found ${tagName(node.tag)}`, node)
}

/** A string of one given type (0x13 PrintableString, 0x16 IA5String, 0x0c UTF8String). */
export function readStringOf(node: DerNode, tag: 0x13 | 0x16 | 0x0c, rule: string): string {
  tagged(node, tag, rule)
  return readString(node, rule)
}

/** UTCTime or GeneralizedTime in the RFC 5280 §4.1.2.5 form (seconds, 'Z', no fractions). */
export function readTime(node: DerNode, rule = 'RFC 5280 §4.1.2.5'): Date {
  if (node.tag === 0x17) return parseUtcTime(latin1(node))
  if (node.tag === 0x18) return parseGeneralizedTime(latin1(node))
  return bad(rule, `expected UTCTime or GeneralizedTime, found ${tagName(node.tag)}`, node)
}

/** X.509 Time (RFC 5280 §4.1.2.5): also rejects GeneralizedTime for a date before 2050. */
export function readX509Time(node: DerNode, rule = 'RFC 5280 §4.1.2.5'): Date {
  const d = readTime(node, rule)
  if (node.tag === 0x18 && d.getUTCFullYear() < 2050) bad('RFC 5280 §4.1.2.5', 'GeneralizedTime used before 2050', node)
  return d
}

/** GeneralizedTime only (e.g. RFC 9286 §4.2 manifest thisUpdate/nextUpdate). */
export function readGeneralizedTime(node: DerNode, rule = 'RFC 5280 §4.1.2.5.2'): Date {
  tagged(node, 0x18, rule)
  return parseGeneralizedTime(latin1(node))
}

/** UTCTime only (e.g. a CMS signing-time before 2050). */
export function readUtcTime(node: DerNode, rule = 'RFC 5280 §4.1.2.5.1'): Date {
  tagged(node, 0x17, rule)
  return parseUtcTime(latin1(node))
}

/** Apply the DER value checks of a universal primitive type (used by der-reader `checkDer`). */
export function checkUniversalValue(node: DerNode): void {
  switch (node.tag) {
    case 0x01: readBool(node); break
    case 0x02: checkInteger(node); break
    case 0x03: readBitString(node); break
    case 0x05: readNull(node); break
    case 0x06: checkOid(node); break
    case 0x0c: case 0x13: case 0x16: readString(node); break
    case 0x17: case 0x18: readTime(node); break
  }
}
