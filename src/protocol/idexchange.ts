/**
 * RFC 8183 out-of-band setup documents: child_request, parent_response, publisher_request, repository_response.
 * decode/encode only; the BPKI certificates are carried as bytes (checked in protocol/id-cert.ts). Used by the CA
 * (parents, children) and the publication server (publishers).
 */
import { fromBase64, toBase64 } from '../util/base64.js'
import { DecodeError, InspectionError } from '../util/errors.js'
import { isWireHandle } from '../util/handle.js'
import { parseUri } from '../util/uri.js'
import { buildXml, parseXml, type XmlElement, type XmlNode } from './xml.js'
import { attr, noChildren, noText, optAttr, show, withTag } from './xml-read.js'

export const IDEXCHANGE_NS = 'http://www.hactrn.net/uris/rpki/rpki-setup/'
/** Krill 0.9 (NIC.br) wrote the namespace without its trailing slash; rpki-rs accepts it, so do we. */
const IDEXCHANGE_NS_NO_SLASH = 'http://www.hactrn.net/uris/rpki/rpki-setup'
const MYRPKI_NS = /^http:\/\/www\.hactrn\.net\/uris\/rpki\/myrpki\/?$/

export interface ChildRequest {
  childHandle: string
  idCert: Uint8Array
  tag?: string
}

export interface ParentResponse {
  parentHandle: string
  childHandle: string
  serviceUri: string
  idCert: Uint8Array
  tag?: string
  validUntil?: string
  offer?: boolean
  referrals?: { referrer: string; contactUri?: string; blob: Uint8Array }[]
}

export interface PublisherRequest {
  publisherHandle: string
  idCert: Uint8Array
  tag?: string
}

export interface RepositoryResponse {
  publisherHandle: string
  serviceUri: string
  /** Always ends in `/`: a value without it (APNIC) is normalised on decode. */
  siaBase: string
  rrdpNotificationUri?: string
  idCert: Uint8Array
  tag?: string
}

export type IdExchangeType = 'child_request' | 'parent_response' | 'publisher_request' | 'repository_response'

export type IdExchangeDocument =
  | { type: 'child_request'; doc: ChildRequest }
  | { type: 'parent_response'; doc: ParentResponse }
  | { type: 'publisher_request'; doc: PublisherRequest }
  | { type: 'repository_response'; doc: RepositoryResponse }

const SECTION: Record<IdExchangeType, string> = {
  child_request: 'RFC 8183 §5.2.1',
  parent_response: 'RFC 8183 §5.2.2',
  publisher_request: 'RFC 8183 §5.2.3',
  repository_response: 'RFC 8183 §5.2.4',
}
const COMMON = 'RFC 8183 §5.1'

//------------ Decoding ---------------------------------------------------------------------------------------------

/** Which of the four documents this is, decoded. */
export function detectIdExchange(xml: string | Uint8Array): IdExchangeDocument {
  const el = documentRoot(xml)
  const type = el.name as IdExchangeType
  switch (type) {
    case 'child_request':
      return { type, doc: childRequestFrom(el) }
    case 'parent_response':
      return { type, doc: parentResponseFrom(el) }
    case 'publisher_request':
      return { type, doc: publisherRequestFrom(el) }
    case 'repository_response':
      return { type, doc: repositoryResponseFrom(el) }
  }
}

export function decodeChildRequest(xml: string | Uint8Array): ChildRequest {
  return childRequestFrom(expectRoot(xml, 'child_request'))
}

export function decodeParentResponse(xml: string | Uint8Array): ParentResponse {
  return parentResponseFrom(expectRoot(xml, 'parent_response'))
}

export function decodePublisherRequest(xml: string | Uint8Array): PublisherRequest {
  return publisherRequestFrom(expectRoot(xml, 'publisher_request'))
}

export function decodeRepositoryResponse(xml: string | Uint8Array): RepositoryResponse {
  return repositoryResponseFrom(expectRoot(xml, 'repository_response'))
}

function expectRoot(xml: string | Uint8Array, expected: IdExchangeType): XmlElement {
  const el = documentRoot(xml, expected)
  if (el.name !== expected) throw new DecodeError(SECTION[expected], `expected a <${expected}>, got a <${el.name}>`)
  return el
}

/** Parse, then refuse legacy and foreign documents with a message that says what they are. */
function documentRoot(xml: string | Uint8Array, expected?: IdExchangeType): XmlElement {
  const el = parseXml(xml)
  const wanted = expected ? ` (expected a <${expected}>)` : ''
  if (MYRPKI_NS.test(el.ns)) {
    const what = el.name === 'parent' ? `a legacy myrpki v${el.attrs.version ?? '?'} parent document` : `a legacy myrpki <${el.name}> document`
    throw new DecodeError(COMMON, `${what}, not RFC 8183${wanted}`)
  }
  if (!isIdExchangeNs(el.ns)) {
    throw new DecodeError(COMMON, `<${el.name}> is in namespace ${show(el.ns)}, not the RFC 8183 namespace ${IDEXCHANGE_NS}${wanted}`)
  }
  if (el.name === 'identity') throw new DecodeError(COMMON, `an rpkid <identity> document (pre-RFC 8183 root element), not RFC 8183${wanted}`)
  if (!Object.prototype.hasOwnProperty.call(SECTION, el.name)) throw new DecodeError(COMMON, `<${el.name}> is not an RFC 8183 document${wanted}`)
  const version = el.attrs.version
  if (version !== '1') {
    const got = version === undefined ? 'no version attribute' : `version ${show(version)}`
    throw new DecodeError(COMMON, `<${el.name}> has ${got}; RFC 8183 documents are version "1"`)
  }
  return el
}

function isIdExchangeNs(ns: string): boolean {
  return ns === IDEXCHANGE_NS || ns === IDEXCHANGE_NS_NO_SLASH
}

function childRequestFrom(el: XmlElement): ChildRequest {
  const rule = SECTION.child_request
  const [ta] = childrenOf(el, rule, ['child_bpki_ta'], ['child_bpki_ta'])
  return withTag<ChildRequest>({ childHandle: handle(el, 'child_handle', rule), idCert: bpkiTa(ta[0], rule) }, el)
}

function parentResponseFrom(el: XmlElement): ParentResponse {
  const rule = SECTION.parent_response
  const [ta, offer, referrals] = childrenOf(el, rule, ['parent_bpki_ta', 'offer', 'referral'], ['parent_bpki_ta'])
  const doc: ParentResponse = {
    parentHandle: handle(el, 'parent_handle', rule),
    childHandle: handle(el, 'child_handle', rule),
    serviceUri: uri(el, 'service_uri', rule, ['http', 'https']),
    idCert: bpkiTa(ta[0], rule),
  }
  withTag(doc, el)
  const validUntil = optAttr(el, 'valid_until')
  if (validUntil !== undefined) doc.validUntil = validUntil
  if (offer.length > 1) throw new DecodeError(rule, '<parent_response> has more than one <offer>')
  if (offer.length === 1) {
    noText(offer[0], rule, true)
    noChildren(offer[0], rule)
    doc.offer = true
  }
  if (referrals.length > 0) doc.referrals = referrals.map((r) => referralFrom(r, rule))
  return doc
}

function referralFrom(el: XmlElement, rule: string): { referrer: string; contactUri?: string; blob: Uint8Array } {
  const out: { referrer: string; contactUri?: string; blob: Uint8Array } = { referrer: handle(el, 'referrer', rule), blob: base64(el, rule) }
  if (optAttr(el, 'contact_uri') !== undefined) out.contactUri = uri(el, 'contact_uri', rule, ['http', 'https'])
  return out
}

function publisherRequestFrom(el: XmlElement): PublisherRequest {
  const rule = SECTION.publisher_request
  // RFC 8183 §5.2.3 allows <referral> children here too; they carry nothing svc uses, so they are ignored.
  const [ta] = childrenOf(el, rule, ['publisher_bpki_ta', 'referral'], ['publisher_bpki_ta'])
  return withTag<PublisherRequest>({ publisherHandle: handle(el, 'publisher_handle', rule), idCert: bpkiTa(ta[0], rule) }, el)
}

function repositoryResponseFrom(el: XmlElement): RepositoryResponse {
  const rule = SECTION.repository_response
  const [ta] = childrenOf(el, rule, ['repository_bpki_ta'], ['repository_bpki_ta'])
  const siaBase = uri(el, 'sia_base', rule, ['rsync'])
  const doc: RepositoryResponse = {
    publisherHandle: handle(el, 'publisher_handle', rule),
    serviceUri: uri(el, 'service_uri', rule, ['http', 'https']),
    // RFC 8183 §5.2.4: sia_base is a directory; APNIC omits the final '/', so add it before names are appended.
    siaBase: siaBase.endsWith('/') ? siaBase : `${siaBase}/`,
    idCert: bpkiTa(ta[0], rule),
  }
  const rrdp = optAttr(el, 'rrdp_notification_uri')
  if (rrdp !== undefined) doc.rrdpNotificationUri = uri(el, 'rrdp_notification_uri', rule, ['https', 'http'])
  return withTag(doc, el)
}

/** Group the children by name in `allowed` order; refuse unknown ones, foreign namespaces and missing required ones. */
function childrenOf(el: XmlElement, rule: string, allowed: string[], required: string[]): XmlElement[][] {
  noText(el, rule, true)
  const groups = allowed.map(() => [] as XmlElement[])
  for (const child of el.children) {
    const at = allowed.indexOf(child.name)
    if (at === -1 || !isIdExchangeNs(child.ns)) throw new DecodeError(rule, `<${el.name}> must not contain <${child.name}>`)
    groups[at].push(child)
  }
  for (const name of required) {
    const n = groups[allowed.indexOf(name)].length
    if (n !== 1) throw new DecodeError(rule, `<${el.name}> must contain exactly one <${name}>, found ${n}`)
  }
  return groups
}

function handle(el: XmlElement, name: string, rule: string): string {
  const value = attr(el, name, rule)
  if (!isWireHandle(value)) {
    throw new DecodeError(rule, `<${el.name}> ${name} ${show(value)} is not a valid handle (1-255 of A-Z a-z 0-9 - _ /)`)
  }
  return value
}

function uri(el: XmlElement, name: string, rule: string, schemes: string[]): string {
  const value = attr(el, name, rule)
  let scheme: string
  try {
    scheme = parseUri(value).scheme
  } catch (e) {
    throw new DecodeError(rule, `<${el.name}> ${name} ${show(value)} is not a valid URI`, { cause: e })
  }
  if (!schemes.includes(scheme)) throw new DecodeError(rule, `<${el.name}> ${name} ${show(value)} must be a ${schemes.join(' or ')} URI`)
  return value
}

function bpkiTa(el: XmlElement, rule: string): Uint8Array {
  noChildren(el, rule)
  return base64(el, rule)
}

/** Base64 with all XML whitespace and Unicode space/format characters (U+200B, literal or &#x200B;) stripped. */
function base64(el: XmlElement, rule: string): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = fromBase64(el.text, { stripUnicodeSpace: true })
  } catch (e) {
    throw new DecodeError(rule, `<${el.name}> is not valid base64`, { cause: e })
  }
  if (bytes.length === 0) throw new DecodeError(rule, `<${el.name}> is empty`)
  return bytes
}

//------------ Encoding ---------------------------------------------------------------------------------------------
// Canonical form: default namespace with the trailing slash, version="1", no prefix, no XML declaration, base64 on one
// line (as Krill writes it), 2-space indentation.

export function encodeChildRequest(v: ChildRequest): string {
  checkHandle(v.childHandle, 'child_handle', SECTION.child_request)
  const attrs = { version: '1', child_handle: v.childHandle, tag: v.tag }
  return encode({ name: 'child_request', attrs, children: [ta('child_bpki_ta', v.idCert)] })
}

export function encodeParentResponse(v: ParentResponse): string {
  const rule = SECTION.parent_response
  checkHandle(v.parentHandle, 'parent_handle', rule)
  checkHandle(v.childHandle, 'child_handle', rule)
  const attrs = {
    version: '1',
    service_uri: v.serviceUri,
    child_handle: v.childHandle,
    parent_handle: v.parentHandle,
    tag: v.tag,
    valid_until: v.validUntil,
  }
  const children: XmlNode[] = [ta('parent_bpki_ta', v.idCert)]
  if (v.offer) children.push({ name: 'offer' })
  for (const r of v.referrals ?? []) {
    checkHandle(r.referrer, 'referrer', rule)
    children.push({ name: 'referral', attrs: { referrer: r.referrer, contact_uri: r.contactUri }, text: toBase64(r.blob) })
  }
  return encode({ name: 'parent_response', attrs, children })
}

export function encodePublisherRequest(v: PublisherRequest): string {
  checkHandle(v.publisherHandle, 'publisher_handle', SECTION.publisher_request)
  const attrs = { version: '1', publisher_handle: v.publisherHandle, tag: v.tag }
  return encode({ name: 'publisher_request', attrs, children: [ta('publisher_bpki_ta', v.idCert)] })
}

export function encodeRepositoryResponse(v: RepositoryResponse): string {
  checkHandle(v.publisherHandle, 'publisher_handle', SECTION.repository_response)
  const attrs = {
    version: '1',
    service_uri: v.serviceUri,
    publisher_handle: v.publisherHandle,
    sia_base: v.siaBase,
    rrdp_notification_uri: v.rrdpNotificationUri,
    tag: v.tag,
  }
  return encode({ name: 'repository_response', attrs, children: [ta('repository_bpki_ta', v.idCert)] })
}

function encode(root: XmlNode): string {
  return buildXml(root, { ns: IDEXCHANGE_NS })
}

function ta(name: string, cert: Uint8Array): XmlNode {
  return { name, text: toBase64(cert) }
}

function checkHandle(value: string, name: string, rule: string): void {
  if (!isWireHandle(value)) throw new InspectionError(rule, `${name} ${show(value)} is not a valid handle`)
}
