/**
 * The signed attributes of an RPKI signed object (RFC 6488 §2.1.6.4, RFC 9589 §4): exactly content-type,
 * signing-time and message-digest, one value each, in DER SET order (ct, st, md). Encode (what is signed, tag 0x31),
 * read from DER or from the BER decoder's plain data, interpret, and inspect. Used by signed-object.ts.
 */
import type { BerSignedAttrs } from '../asn1/ber.js'
import { octetString, oid, seq, set, setOf, x509Time } from '../asn1/der.js'
import {
  children, type DerNode, expectSequence, parseDer, readBigInt, readOctetString, readOid, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { compareBytes } from '../util/bytes.js'
import { note, type Problem, problem } from './problem.js'

export interface SignedAttribute {
  readonly type: string
  /** Each AttributeValue as a complete DER TLV (a view). */
  readonly values: readonly Uint8Array[]
}

export interface SignedAttrs {
  /** The SET OF Attribute with the tag 0x31: the bytes the signature covers (RFC 5652 §5.4). */
  readonly signed: Uint8Array
  /** The bytes as received with the tag changed to 0x31 (differs from `signed` only for BER input). */
  readonly received: Uint8Array
  readonly attributes: readonly SignedAttribute[]
  /** The attributes are in DER SET OF order (X.690 §11.6). */
  readonly sorted: boolean
}

/** The attribute values that matter, from the first instance of each (duplicates are inspect's business). */
export interface AttributeValues {
  contentType?: string
  messageDigest?: Uint8Array
  signingTime?: Date
  /** 0x17 UTCTime or 0x18 GeneralizedTime. */
  signingTimeTag?: number
  binarySigningTime?: bigint
}

//------------ Encoding ------------------------------------------------------------------------------------------------

const CT = oid(oids.contentType)
const ST = oid(oids.signingTime)
const MD = oid(oids.messageDigest)

/** The signed attributes as a DER SET (tag 0x31): content-type, signing-time, message-digest, sorted by encoding. */
export function encodeSignedAttrs(eContentType: string, digest: Uint8Array, signingTime: Date): Uint8Array {
  // RFC 5652 §11.3: signing-time is a UTCTime from 1950 through 2049, a GeneralizedTime otherwise.
  return setOf([seq(CT, set(oid(eContentType))), seq(ST, set(x509Time(signingTime))), seq(MD, set(octetString(digest)))])
}

//------------ Reading -------------------------------------------------------------------------------------------------

const RULE = 'RFC 5652 §5.3'

/** Read the [0] IMPLICIT SignedAttributes node of a DER SignerInfo. */
export function readSignedAttrs(node: DerNode): SignedAttrs {
  const attributes: SignedAttribute[] = []
  let sorted = true
  let prev: Uint8Array | undefined
  for (const a of children(node)) {
    const c = expectSequence(a, RULE, 'Attribute')
    const type = readOid(c.next(RULE, 0x06, 'attrType'), RULE)
    const valuesNode = c.next(RULE, 0x31, 'attrValues')
    c.end(RULE)
    attributes.push({ type, values: children(valuesNode).map((v) => v.raw()) })
    const raw = a.raw()
    if (prev !== undefined && compareBytes(prev, raw) > 0) sorted = false
    prev = raw
  }
  const signed = node.raw().slice()
  signed[0] = 0x31
  return { signed, received: signed, attributes, sorted }
}

/** The same from the BER decoder (asn1/ber.ts), whose attribute values are already DER. */
export function fromBerSignedAttrs(b: BerSignedAttrs): SignedAttrs {
  const attributes = b.attributes.map((a) => ({ type: a.type, values: a.values }))
  const encodings = attributes.map((a) => seq(oid(a.type), set(...a.values)))
  const sorted = encodings.every((e, i) => i === 0 || compareBytes(encodings[i - 1], e) <= 0)
  return { signed: b.der, received: b.received, attributes, sorted }
}

/** The first value of the first instance of each attribute that matters; a value of the wrong type stays undefined. */
export function attributeValues(attrs: SignedAttrs | undefined): AttributeValues {
  const out: AttributeValues = {}
  for (const a of attrs?.attributes ?? []) {
    const v = a.values[0]
    if (v === undefined) continue
    if (a.type === oids.contentType && out.contentType === undefined && v[0] === 0x06) out.contentType = readOid(value(v), 'RFC 6488 §2.1.6.4.1')
    else if (a.type === oids.messageDigest && out.messageDigest === undefined && v[0] === 0x04) out.messageDigest = readOctetString(value(v))
    else if (a.type === oids.signingTime && out.signingTime === undefined && (v[0] === 0x17 || v[0] === 0x18)) {
      out.signingTime = readTime(value(v), 'RFC 6488 §2.1.6.4.3')
      out.signingTimeTag = v[0]
    } else if (a.type === oids.binarySigningTime && out.binarySigningTime === undefined && v[0] === 0x02) {
      out.binarySigningTime = readBigInt(value(v), 'RFC 6019 §2')
    }
  }
  return out
}

function value(tlv: Uint8Array): DerNode {
  return parseDer(tlv, { maxNodes: 4, maxDepth: 1 })
}

//------------ Inspection ----------------------------------------------------------------------------------------------

const ALLOWED = new Set([oids.contentType, oids.messageDigest, oids.signingTime, oids.binarySigningTime])

/** RFC 6488 §2.1.6.4 and RFC 9589 §4 problems of the signed attributes. */
export function inspectSignedAttrs(attrs: SignedAttrs | undefined, eContentType: string): Problem[] {
  const rule = 'RFC 6488 §2.1.6.4'
  if (attrs === undefined) return [problem(rule, 'signedAttrs is missing')]
  const out: Problem[] = []
  const seen = new Set<string>()
  for (const a of attrs.attributes) {
    if (!ALLOWED.has(a.type)) out.push(problem(rule, `CMS has unexpected signed attribute ${oids.oidName(a.type)}`))
    if (seen.has(a.type)) out.push(problem(rule, `duplicate signed attribute ${oids.oidName(a.type)}`))
    if (a.values.length !== 1) out.push(problem(rule, `signed attribute ${oids.oidName(a.type)} has ${a.values.length} values, expected 1`))
    seen.add(a.type)
  }
  if (!attrs.sorted) out.push(problem('X.690 §11.6', 'signed attributes are not in DER SET OF order'))
  const v = attributeValues(attrs)
  if (!seen.has(oids.contentType)) out.push(problem('RFC 6488 §2.1.6.4.1', 'content-type attribute is missing'))
  else if (v.contentType === undefined) out.push(problem('RFC 6488 §2.1.6.4.1', 'malformed value for content-type attribute'))
  else if (v.contentType !== eContentType) out.push(problem('RFC 6488 §2.1.6.4.1', `content-type ${v.contentType} differs from eContentType ${eContentType}`))
  if (!seen.has(oids.messageDigest)) out.push(problem('RFC 6488 §2.1.6.4.2', 'message-digest attribute is missing'))
  else if (v.messageDigest?.length !== 32) out.push(problem('RFC 6488 §2.1.6.4.2', 'message-digest is not a SHA-256 value'))
  inspectTimes(seen, v, out)
  return out
}

function inspectTimes(seen: Set<string>, v: AttributeValues, out: Problem[]): void {
  // RFC 9589 §4: signing-time MUST be present (older objects, e.g. the BBN conformance suite, lack it).
  if (!seen.has(oids.signingTime)) out.push(note('RFC 9589 §4', 'signing-time attribute is missing'))
  else if (v.signingTime === undefined) out.push(problem('RFC 6488 §2.1.6.4.3', 'malformed value for signing-time attribute'))
  else if (v.signingTime.getUTCFullYear() < 2050 && v.signingTimeTag !== 0x17) out.push(problem('RFC 5652 §11.3', 'signing-time before 2050 is not a UTCTime'))
  // RFC 9589 §4: binary-signing-time MUST NOT be present.
  if (seen.has(oids.binarySigningTime)) out.push(problem('RFC 9589 §4', 'binary-signing-time attribute is present'))
}
