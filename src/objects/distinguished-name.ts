/**
 * X.501 Names as RPKI uses them (RFC 6487 §4.4, §4.5): build a Name from a commonName (PrintableString) and an
 * optional serialNumber, read any Name into its attributes, and check the RPKI profile. Issuer names of certificates
 * and CRLs are written as given (the DER bytes of the issuer's subject), so a foreign parent's naming is kept.
 * Used by cert.ts and crl.ts.
 */
import { oid, printableString, seq, set } from '../asn1/der.js'
import { type DerNode, expectSequence, firstChild, nextSibling, readString, tagName } from '../asn1/der-reader.js'
import { idAtCommonName, idAtSerialNumber, oidName } from '../asn1/oids.js'
import { DecodeError } from '../util/errors.js'
import { OidTable } from './oid-table.js'
import { type Problem, problem } from './problem.js'

/** A name as a builder takes it: a commonName, a commonName plus serialNumber, or the DER of a whole Name. */
export type NameSpec = string | { commonName: string; serialNumber?: string } | Uint8Array

export interface NameAttribute {
  readonly type: string
  /** The value as text when it is a string type, else ''. */
  readonly value: string
  /** The identifier octet of the value (0x13 PrintableString, 0x0c UTF8String …). */
  readonly tag: number
  /** The index of the RelativeDistinguishedName holding it. */
  readonly rdn: number
}

export interface DistinguishedName {
  /** The Name's DER (a view into the decoded bytes): names are compared byte for byte (RFC 5280 §7.1). */
  readonly der: Uint8Array
  readonly attributes: readonly NameAttribute[]
  /** The number of RelativeDistinguishedNames. */
  readonly rdnCount: number
  readonly commonName?: string
  readonly serialNumber?: string
}

const nameCache = new Map<string, Uint8Array>()
const ATTRIBUTE_TYPES = new OidTable([idAtCommonName, idAtSerialNumber, '2.5.4.6', '2.5.4.10', '2.5.4.11'])

/** Name DER for a NameSpec: SEQUENCE { SET { SEQUENCE { id-at-commonName, PrintableString } } [, serialNumber] }. */
export function encodeName(spec: NameSpec): Uint8Array {
  if (spec instanceof Uint8Array) return spec
  const cn = typeof spec === 'string' ? spec : spec.commonName
  const serial = typeof spec === 'string' ? undefined : spec.serialNumber
  if (serial === undefined) {
    let der = nameCache.get(cn)
    if (der === undefined) {
      der = seq(rdn(idAtCommonName, cn))
      if (nameCache.size < 10_000) nameCache.set(cn, der)
    }
    return der
  }
  return seq(rdn(idAtCommonName, cn), rdn(idAtSerialNumber, serial))
}

function rdn(type: string, value: string): Uint8Array {
  return set(seq(oid(type), printableString(value)))
}

/** Read a Name (RFC 5280 §4.1.2.4): every RDN and attribute, structure errors as DecodeError(rule). */
export function readName(node: DerNode, rule: string): DistinguishedName {
  const seqNode = expectSequence(node, rule, 'Name').node
  const attributes: NameAttribute[] = []
  let rdnCount = 0
  let commonName: string | undefined
  let serialNumber: string | undefined
  for (let r = firstChild(seqNode); r !== undefined; r = nextSibling(r)) {
    if (r.tag !== 0x31) throw new DecodeError(rule, `RelativeDistinguishedName: expected SET, found ${tagName(r.tag)}`)
    for (let a = firstChild(r); a !== undefined; a = nextSibling(a)) {
      const c = expectSequence(a, rule, 'AttributeTypeAndValue')
      const type = ATTRIBUTE_TYPES.read(c.next(rule, 0x06, 'attribute type'), rule)
      const v = c.next(rule, undefined, 'attribute value')
      c.end(rule)
      const value = v.tag === 0x13 ? printable(v) : isStringTag(v.tag) ? readString(v, rule) : ''
      attributes.push({ type, value, tag: v.tag, rdn: rdnCount })
      if (type === idAtCommonName && commonName === undefined) commonName = value
      if (type === idAtSerialNumber && serialNumber === undefined) serialNumber = value
    }
    rdnCount++
  }
  return { der: seqNode.raw(), attributes, rdnCount, commonName, serialNumber }
}

/** X.680 §41.4: A–Z a–z 0–9 space ' ( ) + , - . / : = ? (a table: names are on every decode's hot path). */
const PRINTABLE_CHARS = new Uint8Array(128)
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?") PRINTABLE_CHARS[c.charCodeAt(0)] = 1

function printable(v: DerNode): string {
  const b = v.bytes
  let s = ''
  for (let i = v.start + v.headerLength; i < v.end; i++) {
    if (b[i] >= 128 || PRINTABLE_CHARS[b[i]] === 0) throw new DecodeError('X.680 §41.4', `character outside PrintableString at offset ${v.start}`)
    s += String.fromCharCode(b[i])
  }
  return s
}

function isStringTag(tag: number): boolean {
  return tag === 0x13 || tag === 0x16 || tag === 0x0c
}

/** 'CN=…, serialNumber=…' for display. */
export function formatName(n: DistinguishedName): string {
  return n.attributes.map((a) => `${shortType(a.type)}=${a.value === '' && a.tag !== 0x13 ? `<${tagName(a.tag)}>` : a.value}`).join(', ')
}

function shortType(type: string): string {
  if (type === idAtCommonName) return 'CN'
  if (type === idAtSerialNumber) return 'serialNumber'
  if (type === '2.5.4.6') return 'C'
  if (type === '2.5.4.10') return 'O'
  if (type === '2.5.4.11') return 'OU'
  return oidName(type)
}

/**
 * RFC 6487 §4.4 (issuer) and §4.5 (subject): one commonName and at most one serialNumber, each a PrintableString,
 * one attribute per RDN, nothing else. `section` is '4.4' or '4.5'.
 */
export function inspectRpkiName(n: DistinguishedName, section: '4.4' | '4.5', what: string): Problem[] {
  const rule = `RFC 6487 §${section}`
  const out: Problem[] = []
  const cns = n.attributes.filter((a) => a.type === idAtCommonName)
  const serials = n.attributes.filter((a) => a.type === idAtSerialNumber)
  if (cns.length !== 1) out.push(problem(rule, `${what} has ${cns.length} commonName attributes, expected 1`))
  if (serials.length > 1) out.push(problem(rule, `${what} has ${serials.length} serialNumber attributes, expected at most 1`))
  for (const a of n.attributes) {
    if (a.type !== idAtCommonName && a.type !== idAtSerialNumber) {
      out.push(problem(rule, `${what} has an unexpected attribute ${oidName(a.type)}`))
    } else if (a.tag !== 0x13) {
      out.push(problem(rule, `${what} ${shortType(a.type)} is a ${tagName(a.tag)}, not a PrintableString`))
    }
  }
  if (n.rdnCount !== n.attributes.length) out.push(problem(rule, `${what} has a multi-valued RelativeDistinguishedName`))
  return out
}

/** Byte equality of two Names (RFC 5280 §7.1 compares more loosely; RPKI CAs reuse the exact bytes). */
export function sameName(a: DistinguishedName | Uint8Array, b: DistinguishedName | Uint8Array): boolean {
  const x = a instanceof Uint8Array ? a : a.der
  const y = b instanceof Uint8Array ? b : b.der
  if (x.length !== y.length) return false
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false
  return true
}
