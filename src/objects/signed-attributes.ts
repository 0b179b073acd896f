/**
 * The signed attributes of an RPKI signed object (RFC 6488 §2.1.6.4, RFC 9589 §4): exactly content-type,
 * signing-time and message-digest, one value each, in DER SET order (ct, st, md). Encode (what is signed, tag 0x31),
 * read from DER or from the BER decoder's plain data, interpret, and inspect. Used by signed-object.ts.
 */
import type { BerSignedAttrs } from '../asn1/ber.js'
import { octetString, oid, seq, set, setOf, x509Time } from '../asn1/der.js'
import {
  children, type DerNode, expectSequence, firstChild, nextSibling, parseDer, readBigInt, readOctetString, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { compareBytes } from '../util/bytes.js'
import { OidTable } from './oid-table.js'
import { note, type Problem, problem } from './problem.js'

export interface SignedAttribute {
  readonly type: string
  /** Each AttributeValue (a DER node; for BER input, of the DER re-encoding). */
  readonly values: readonly DerNode[]
}

export interface SignedAttrs {
  /** The SignedAttributes as received (tag 0xa0, [0] IMPLICIT); see signedAttrsCandidates for what is signed. */
  readonly raw: Uint8Array
  /** For BER input only: the DER re-encoding of the SET (tag 0x31). */
  readonly der?: Uint8Array
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
const TYPES = new OidTable([oids.contentType, oids.signingTime, oids.messageDigest, oids.binarySigningTime])

/** Read the [0] IMPLICIT SignedAttributes node of a DER SignerInfo (no copies: values stay nodes of the input). */
export function readSignedAttrs(node: DerNode): SignedAttrs {
  const attributes: SignedAttribute[] = []
  let sorted = true
  let prev: DerNode | undefined
  for (let a = firstChild(node); a !== undefined; a = nextSibling(a)) {
    const c = expectSequence(a, RULE, 'Attribute')
    const type = TYPES.read(c.next(RULE, 0x06, 'attrType'), RULE)
    const valuesNode = c.next(RULE, 0x31, 'attrValues')
    c.end(RULE)
    attributes.push({ type, values: children(valuesNode) })
    if (prev !== undefined && compareNodes(prev, a) > 0) sorted = false
    prev = a
  }
  return { raw: node.raw(), attributes, sorted }
}

/** Byte order of two complete TLVs of the same input (X.690 §11.6 sorts SET OF by encoding). */
function compareNodes(a: DerNode, b: DerNode): number {
  const la = a.end - a.start
  const lb = b.end - b.start
  const n = Math.min(la, lb)
  for (let i = 0; i < n; i++) {
    const d = a.bytes[a.start + i] - b.bytes[b.start + i]
    if (d !== 0) return d
  }
  return la - lb
}

/** The same from the BER decoder (asn1/ber.ts), whose attribute values are already DER. */
export function fromBerSignedAttrs(b: BerSignedAttrs): SignedAttrs {
  const attributes = b.attributes.map((a) => ({ type: a.type, values: a.values.map((v) => parseDer(v, { maxNodes: 10_000 })) }))
  const encodings = b.attributes.map((a) => seq(oid(a.type), set(...a.values)))
  const sorted = encodings.every((e, i) => i === 0 || compareBytes(encodings[i - 1], e) <= 0)
  return { raw: b.received, der: b.der, attributes, sorted }
}

/**
 * The bytes the signature may cover (RFC 5652 §5.4: the DER of the SET, tag 0x31): the DER form first, then the
 * received form retagged (for BER input the two can differ). Fresh copies: the input is never changed.
 */
export function signedAttrsCandidates(attrs: SignedAttrs): Uint8Array[] {
  const retag = (b: Uint8Array): Uint8Array => {
    const out = new Uint8Array(b)
    out[0] = 0x31
    return out
  }
  return attrs.der === undefined ? [retag(attrs.raw)] : [attrs.der, retag(attrs.raw)]
}

/** The first value of the first instance of each attribute that matters; a value of the wrong type stays undefined. */
export function attributeValues(attrs: SignedAttrs | undefined): AttributeValues {
  const out: AttributeValues = {}
  for (const a of attrs?.attributes ?? []) {
    const v = a.values[0]
    if (v === undefined) continue
    if (a.type === oids.contentType && out.contentType === undefined && v.tag === 0x06) out.contentType = CONTENT_TYPES.read(v, 'RFC 6488 §2.1.6.4.1')
    else if (a.type === oids.messageDigest && out.messageDigest === undefined && v.tag === 0x04) out.messageDigest = readOctetString(v)
    else if (a.type === oids.signingTime && out.signingTime === undefined && (v.tag === 0x17 || v.tag === 0x18)) {
      out.signingTime = readTime(v, 'RFC 6488 §2.1.6.4.3')
      out.signingTimeTag = v.tag
    } else if (a.type === oids.binarySigningTime && out.binarySigningTime === undefined && v.tag === 0x02) {
      out.binarySigningTime = readBigInt(v, 'RFC 6019 §2')
    }
  }
  return out
}

const CONTENT_TYPES = new OidTable([oids.idCtRouteOriginAuthz, oids.idCtRpkiManifest, oids.idCtAspa, oids.idCtRpkiGhostbusters, oids.idCtXml])

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
