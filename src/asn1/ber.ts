/**
 * BER-tolerant decoding of inbound CMS and certificates from other implementations (RIPE NCC sends indefinite
 * lengths and constructed OCTET STRINGs; fixtures/README.md §3). The only home of asn1js/pkijs (style.md §5),
 * always with bounded limits and parseEmbedded off (rpki-encoding.md §2 row 15, §9 illustration E).
 * Used by protocol/signed-message.ts (RFC 6492/8181) and objects/ for foreign signed objects; emits plain data.
 */
import * as asn1js from 'asn1js'
import { concat } from '../util/bytes.js'
import { DecodeError } from '../util/errors.js'
import { lengthOctets, retag } from './der.js'
import { checkDer, type DerNode, parseDer, readBigInt, readInt, readOid, tagName } from './der-reader.js'
import { idSignedData } from './oids.js'

/** One BER element as plain data. `tag`, `cls`, `number` as in DerNode. */
export interface BerNode {
  tag: number
  cls: number
  number: number
  constructed: boolean
  indefinite: boolean
  /** The complete encoding as received (end-of-contents octets included). */
  raw: Uint8Array
  /** The identifier octets as received. */
  identifier: Uint8Array
  /** Primitive: the contents octets; constructed: empty (see children). */
  content: Uint8Array
  children: BerNode[]
}

export interface BerOptions {
  /** Elements allowed in total (default 1,000,000; asn1js' own default of 10,000 breaks big manifests and CRLs). */
  maxNodes?: number
  /** Nesting depth (default 64). */
  maxDepth?: number
}

function convert(b: asn1js.BaseBlock): BerNode {
  const id = b.idBlock, raw = b.valueBeforeDecodeView
  const headerLength = id.blockLength + b.lenBlock.blockLength
  const constructed = id.isConstructed
  const kids = constructed ? ((b.valueBlock as unknown as { value: asn1js.BaseBlock[] }).value ?? []) : []
  return {
    tag: raw[0], cls: id.tagClass - 1, number: id.tagNumber, constructed, indefinite: b.lenBlock.isIndefiniteForm,
    raw, identifier: raw.subarray(0, id.blockLength), content: constructed ? new Uint8Array(0) : raw.subarray(headerLength),
    children: kids.filter((k) => !(k.idBlock.tagClass === 1 && k.idBlock.tagNumber === 0)).map(convert),
  }
}

/** Parse BER (X.690 §8) with bounded limits; the whole input must be one element. */
export function parseBer(bytes: Uint8Array, opts: BerOptions = {}): BerNode {
  const r = asn1js.fromBER(bytes, {
    maxNodes: opts.maxNodes ?? 1_000_000, maxDepth: opts.maxDepth ?? 64, parseEmbedded: false,
    maxContentLength: bytes.length,
  })
  if (r.offset === -1) throw new DecodeError('X.690 §8.1', `not BER: ${r.result.error}`)
  if (r.offset !== bytes.length) throw new DecodeError('X.690 §8.1.1', `${bytes.length - r.offset} trailing bytes after the value`)
  return convert(r.result)
}

/** True when `bytes` is strict DER (the strict reader accepts every element). */
export function isStrictDer(bytes: Uint8Array): boolean {
  try {
    checkDer(parseDer(bytes))
    return true
  } catch {
    return false
  }
}

// Universal string types whose constructed BER form is rejoined (X.690 §8.6.4, §8.7.3, §8.23).
const STRING_TYPES = new Set([3, 4, 12, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])

/** The value of a string element: primitive contents, or constructed chunks joined (X.690 §8.7.3). */
export function berStringValue(node: BerNode): Uint8Array {
  if (!node.constructed) return node.content
  const parts: Uint8Array[] = []
  const stack = [...node.children].reverse()
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.number !== node.number || n.cls !== node.cls) throw new DecodeError('X.690 §8.7.3.2', 'string chunk of another type')
    if (n.constructed) stack.push(...[...n.children].reverse())
    else parts.push(n.content)
  }
  return concat(parts)
}

function joinBitString(node: BerNode): Uint8Array {
  const chunks: Uint8Array[] = []
  let unused = 0
  const stack = [...node.children].reverse()
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.constructed) stack.push(...[...n.children].reverse())
    else if (n.content.length === 0 || unused !== 0) throw new DecodeError('X.690 §8.6.4', 'bad BIT STRING segment')
    else {
      unused = n.content[0]
      chunks.push(n.content.subarray(1))
    }
  }
  return concat([Uint8Array.of(unused), ...chunks])
}

function encode(identifier: Uint8Array, content: Uint8Array): Uint8Array {
  return concat([identifier, lengthOctets(content.length), content])
}

/** Re-encode as DER: definite minimal lengths, primitive strings, BOOLEAN TRUE as 0xff. SETs keep their order. */
export function toDer(node: BerNode): Uint8Array {
  if (node.cls === 0 && node.constructed && STRING_TYPES.has(node.number)) {
    const id = new Uint8Array(node.identifier)
    id[0] &= ~0x20
    return encode(id, node.number === 3 ? joinBitString(node) : berStringValue(node))
  }
  if (!node.constructed) {
    const isBool = node.cls === 0 && node.number === 1 && node.content.length === 1 && node.content[0] !== 0
    return encode(node.identifier, isBool ? Uint8Array.of(0xff) : node.content)
  }
  return encode(node.identifier, concat(node.children.map(toDer)))
}

/** A DerNode over the DER form of a BER primitive, for the strict value readers. */
function derOf(node: BerNode): DerNode {
  return parseDer(toDer(node))
}

// ---- CMS SignedData (RFC 5652 §5) as plain data ----

export interface AlgorithmId {
  oid: string
  /** RPs accept absent or NULL parameters (rpki-encoding.md §4); anything else is reported as 'other'. */
  params: 'absent' | 'null' | 'other'
}

export type SignerId =
  | { type: 'ski'; ski: Uint8Array }
  | { type: 'issuer-serial'; issuer: Uint8Array; serial: bigint }

export interface BerAttribute {
  type: string
  /** Each AttributeValue as DER. */
  values: Uint8Array[]
}

export interface BerSignedAttrs {
  /** The DER re-encoding with the SET tag 0x31: what RFC 5652 §5.4 says is signed. Order kept as received. */
  der: Uint8Array
  /** The bytes as received, with the tag changed to 0x31 (differs from `der` only for non-DER input). */
  received: Uint8Array
  attributes: BerAttribute[]
}

export interface BerSignerInfo {
  version: number
  sid: SignerId
  digestAlgorithm: AlgorithmId
  signedAttrs?: BerSignedAttrs
  signatureAlgorithm: AlgorithmId
  signature: Uint8Array
  unsignedAttrs: boolean
}

export interface BerSignedData {
  /** True when the whole input was strict DER (RFC 6488 §2.1 requires DER for signed objects). */
  der: boolean
  version: number
  digestAlgorithms: AlgorithmId[]
  eContentType: string
  /** The eContent octets (constructed OCTET STRING chunks joined); undefined when absent. */
  eContent?: Uint8Array
  /** True when eContent was a constructed (BER) OCTET STRING. */
  eContentConstructed: boolean
  /** Each CertificateChoices element as DER. */
  certificates: Uint8Array[]
  /** Each RevocationInfoChoice element as DER. */
  crls: Uint8Array[]
  signerInfos: BerSignerInfo[]
}

function need(node: BerNode | undefined, tag: number, rule: string, what: string): BerNode {
  if (node === undefined) throw new DecodeError(rule, `${what} is missing`)
  if (node.tag !== tag) throw new DecodeError(rule, `${what}: expected ${tagName(tag)}, found ${tagName(node.tag)}`)
  return node
}

/** A string element by type, primitive or constructed (BER allows both). */
function needString(node: BerNode | undefined, number: number, cls: number, rule: string, what: string): BerNode {
  if (node === undefined) throw new DecodeError(rule, `${what} is missing`)
  if (node.number !== number || node.cls !== cls) throw new DecodeError(rule, `${what}: unexpected ${tagName(node.tag)}`)
  return node
}

function algorithmId(node: BerNode | undefined, what: string): AlgorithmId {
  const k = need(node, 0x30, 'RFC 5652 §10.1', what).children
  if (k.length < 1 || k.length > 2) throw new DecodeError('RFC 5280 §4.1.1.2', `${what} has ${k.length} elements`)
  const oid = readOid(derOf(need(k[0], 0x06, 'RFC 5280 §4.1.1.2', `${what} algorithm`)))
  const p = k[1]
  return { oid, params: p === undefined ? 'absent' : p.tag === 0x05 && p.content.length === 0 ? 'null' : 'other' }
}

function signerId(node: BerNode | undefined): SignerId {
  const rule = 'RFC 5652 §5.3'
  if (node !== undefined && node.cls === 2 && node.number === 0) return { type: 'ski', ski: berStringValue(node) }
  const k = need(node, 0x30, rule, 'SignerIdentifier').children
  if (k.length !== 2) throw new DecodeError(rule, 'IssuerAndSerialNumber must have two elements')
  const issuer = toDer(need(k[0], 0x30, rule, 'issuer'))
  return { type: 'issuer-serial', issuer, serial: readBigInt(derOf(need(k[1], 0x02, rule, 'serialNumber'))) }
}

function signedAttrs(node: BerNode): BerSignedAttrs {
  const rule = 'RFC 5652 §5.3'
  const attributes = node.children.map((a) => {
    const k = need(a, 0x30, rule, 'Attribute').children
    if (k.length !== 2) throw new DecodeError(rule, 'Attribute must have a type and a value set')
    const type = readOid(derOf(need(k[0], 0x06, rule, 'attrType')))
    return { type, values: need(k[1], 0x31, rule, 'attrValues').children.map(toDer) }
  })
  const received = new Uint8Array(node.raw)
  received[0] = 0x31
  return { der: retag(toDer(node), 0x31), received, attributes }
}

function signerInfo(node: BerNode): BerSignerInfo {
  const rule = 'RFC 5652 §5.3'
  const k = need(node, 0x30, rule, 'SignerInfo').children
  const version = readInt(derOf(need(k[0], 0x02, rule, 'version')))
  const sid = signerId(k[1])
  const digestAlgorithm = algorithmId(k[2], 'digestAlgorithm')
  let i = 3
  const attrs = k[i]?.tag === 0xa0 ? signedAttrs(k[i++]) : undefined
  const signatureAlgorithm = algorithmId(k[i++], 'signatureAlgorithm')
  const signature = berStringValue(needString(k[i++], 4, 0, rule, 'signature'))
  const unsignedAttrs = k[i]?.tag === 0xa1
  if (unsignedAttrs) i++
  if (i !== k.length) throw new DecodeError(rule, 'unexpected element after the last SignerInfo field')
  return { version, sid, digestAlgorithm, signedAttrs: attrs, signatureAlgorithm, signature, unsignedAttrs }
}

function encapContentInfo(node: BerNode | undefined): Pick<BerSignedData, 'eContentType' | 'eContent' | 'eContentConstructed'> {
  const rule = 'RFC 5652 §5.2'
  const k = need(node, 0x30, rule, 'EncapsulatedContentInfo').children
  const eContentType = readOid(derOf(need(k[0], 0x06, rule, 'eContentType')))
  if (k.length === 1) return { eContentType, eContentConstructed: false }
  const wrapper = need(k[1], 0xa0, rule, 'eContent [0]')
  if (k.length > 2 || wrapper.children.length !== 1) throw new DecodeError(rule, 'eContent must be one OCTET STRING')
  const os = needString(wrapper.children[0], 4, 0, rule, 'eContent')
  return { eContentType, eContent: berStringValue(os), eContentConstructed: os.constructed }
}

/** Decode a CMS ContentInfo holding SignedData (RFC 5652 §3, §5), BER or DER, into plain data. Syntax only:
 *  the RPKI profile (RFC 6488, RFC 6492 §3.1) is checked by the callers on the result. */
export function decodeBerSignedData(bytes: Uint8Array, opts: BerOptions = {}): BerSignedData {
  const ci = need(parseBer(bytes, opts), 0x30, 'RFC 5652 §3', 'ContentInfo').children
  if (readOid(derOf(need(ci[0], 0x06, 'RFC 5652 §3', 'contentType'))) !== idSignedData) {
    throw new DecodeError('RFC 5652 §3', 'contentType is not id-signedData')
  }
  const wrapper = need(ci[1], 0xa0, 'RFC 5652 §3', 'content [0]')
  if (ci.length !== 2 || wrapper.children.length !== 1) throw new DecodeError('RFC 5652 §3', 'malformed ContentInfo')
  const rule = 'RFC 5652 §5.1'
  const k = need(wrapper.children[0], 0x30, rule, 'SignedData').children
  let i = 0
  const version = readInt(derOf(need(k[i++], 0x02, rule, 'version')))
  const digestAlgorithms = need(k[i++], 0x31, rule, 'digestAlgorithms').children.map((a) => algorithmId(a, 'digestAlgorithm'))
  const eci = encapContentInfo(k[i++])
  const certificates = k[i]?.tag === 0xa0 ? k[i++].children.map(toDer) : []
  const crls = k[i]?.tag === 0xa1 ? k[i++].children.map(toDer) : []
  const signerInfos = need(k[i++], 0x31, rule, 'signerInfos').children.map(signerInfo)
  if (i !== k.length) throw new DecodeError(rule, 'unexpected element after signerInfos')
  return { der: isStrictDer(bytes), version, digestAlgorithms, ...eci, certificates, crls, signerInfos }
}
