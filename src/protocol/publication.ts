/**
 * RFC 8181 publication protocol messages (version 4): queries (list, or a delta of publish/withdraw PDUs) and replies
 * (success, list reply, report_error). decode/encode only; the CMS wrapper is signed-message.ts. Used by pubd/ (server)
 * and by a CA publishing to a remote repository. RIPE NCC's version 3 draft dialect is refused with its own message.
 */
import { toBase64 } from '../util/base64.js'
import { DecodeError } from '../util/errors.js'
import { buildXml, parseXml, type XmlElement, type XmlNode } from './xml.js'
import { attr, base64Text, hexHash, noChildren, noText, onlyChild, optAttr, show, withTag } from './xml-read.js'

/** RFC 8181 §2.1: the media type of a publication message, in queries and replies. */
export const PUBLICATION_CONTENT_TYPE = 'application/rpki-publication'

export const PUBLICATION_NS = 'http://www.hactrn.net/uris/rpki/publication-spec/'

export type PublishPdu = { type: 'publish'; uri: string; hash?: string /* lowercase hex */; content: Uint8Array; tag?: string }
export type WithdrawPdu = { type: 'withdraw'; uri: string; hash: string; tag?: string }
/** A query holds either one <list/> or any number (possibly zero) of publish/withdraw PDUs. */
export type PublicationQuery = { type: 'list'; tag?: string } | { type: 'delta'; pdus: (PublishPdu | WithdrawPdu)[] }
export type ReportErrorCode =
  | 'xml_error'
  | 'permission_failure'
  | 'bad_cms_signature'
  | 'object_already_present'
  | 'no_object_present'
  | 'no_object_matching_hash'
  | 'consistency_problem'
  | 'other_error'
export type ReportError = { code: ReportErrorCode; tag?: string; text?: string; failedPdu?: PublishPdu | WithdrawPdu }
export type PublicationReply =
  | { type: 'list_reply'; elements: { uri: string; hash: string; tag?: string }[] }
  | { type: 'success' }
  | { type: 'error_reply'; errors: ReportError[] }

/** RFC 8181 §2.5: the report_error codes. */
export const REPORT_ERROR_CODES: readonly ReportErrorCode[] = [
  'xml_error',
  'permission_failure',
  'bad_cms_signature',
  'object_already_present',
  'no_object_present',
  'no_object_matching_hash',
  'consistency_problem',
  'other_error',
]

const COMMON = 'RFC 8181 §2.1'
const PUBLISH = 'RFC 8181 §2.2'
const LIST = 'RFC 8181 §2.3'
const ERRORS = 'RFC 8181 §2.5'

//------------ Decoding ---------------------------------------------------------------------------------------------

export function decodePublicationQuery(xml: string | Uint8Array): PublicationQuery {
  const el = messageRoot(xml, 'query')
  if (el.children.some((c) => c.name === 'list')) {
    // svc takes <list/> on its own: a query mixing it with publish/withdraw has no defined single answer.
    if (el.children.length !== 1) throw new DecodeError(LIST, 'a <list/> query must be the only PDU in its message')
    const list = el.children[0]
    noText(list, LIST)
    noChildren(list, LIST)
    return withTag<PublicationQuery & { type: 'list' }>({ type: 'list' }, list)
  }
  return { type: 'delta', pdus: el.children.map(pduFrom) }
}

export function decodePublicationReply(xml: string | Uint8Array): PublicationReply {
  const el = messageRoot(xml, 'reply')
  const names = new Set(el.children.map((c) => c.name))
  // An empty reply is the answer to <list/> when the publisher has no objects.
  if (names.size === 0) return { type: 'list_reply', elements: [] }
  if (names.size > 1) throw new DecodeError(COMMON, `a reply mixes ${[...names].map((n) => `<${n}>`).join(' and ')}`)
  const name = el.children[0].name
  if (name === 'success') {
    const success = onlyChild(el, 'success', PUBLISH)
    noText(success, PUBLISH)
    noChildren(success, PUBLISH)
    return { type: 'success' }
  }
  if (name === 'list') return { type: 'list_reply', elements: el.children.map(listElementFrom) }
  if (name === 'report_error') return { type: 'error_reply', errors: el.children.map(reportErrorFrom) }
  throw new DecodeError(COMMON, `<${name}> is not an RFC 8181 reply PDU`)
}

function messageRoot(xml: string | Uint8Array, type: 'query' | 'reply'): XmlElement {
  const el = parseXml(xml)
  if (el.name !== 'msg' || el.ns !== PUBLICATION_NS) {
    throw new DecodeError(COMMON, `expected a publication <msg> in ${PUBLICATION_NS}, got <${el.name}> in ${show(el.ns)}`)
  }
  const version = el.attrs.version
  if (version === '3') throw new DecodeError(COMMON, 'RFC 8181 version 3 (draft dialect) is not supported; version 4 is required')
  if (version !== '4') throw new DecodeError(COMMON, `version ${version === undefined ? '(missing)' : show(version)} is not supported; version 4 is required`)
  const got = attr(el, 'type', COMMON)
  if (got !== type) throw new DecodeError(COMMON, `expected a ${type} <msg>, got type ${show(got)}`)
  noText(el, COMMON)
  for (const child of el.children) {
    if (child.ns !== PUBLICATION_NS) throw new DecodeError(COMMON, `<${child.name}> is not in the publication namespace`)
  }
  return el
}

function pduFrom(el: XmlElement): PublishPdu | WithdrawPdu {
  if (el.name === 'publish') {
    noChildren(el, PUBLISH)
    const pdu: PublishPdu = { type: 'publish', uri: uriOf(el), content: base64Text(el.text, PUBLISH, '<publish> content') }
    const hash = optAttr(el, 'hash')
    if (hash !== undefined) pdu.hash = hexHash(hash, PUBLISH, '<publish>')
    return withTag(pdu, el)
  }
  if (el.name === 'withdraw') {
    noText(el, PUBLISH)
    noChildren(el, PUBLISH)
    return withTag<WithdrawPdu>({ type: 'withdraw', uri: uriOf(el), hash: hexHash(attr(el, 'hash', PUBLISH), PUBLISH, '<withdraw>') }, el)
  }
  throw new DecodeError(COMMON, `<${el.name}> is not an RFC 8181 query PDU`)
}

function listElementFrom(el: XmlElement): { uri: string; hash: string; tag?: string } {
  noText(el, LIST)
  noChildren(el, LIST)
  return withTag<{ uri: string; hash: string; tag?: string }>({ uri: uriOf(el), hash: hexHash(attr(el, 'hash', LIST), LIST, '<list>') }, el)
}

function reportErrorFrom(el: XmlElement): ReportError {
  const code = attr(el, 'error_code', ERRORS)
  if (!(REPORT_ERROR_CODES as string[]).includes(code)) throw new DecodeError(ERRORS, `unknown error_code ${show(code)}`)
  // Version 3 put the text directly in <report_error>; version 4 uses <error_text>.
  if (/[^ \t\n\r]/.test(el.text)) throw new DecodeError(ERRORS, '<report_error> text belongs in <error_text> (version 3 dialect?)')
  const out = withTag<ReportError>({ code: code as ReportErrorCode }, el)
  for (const child of el.children) {
    if (child.name === 'error_text' && out.text === undefined) {
      noChildren(child, ERRORS)
      out.text = child.text
    } else if (child.name === 'failed_pdu' && out.failedPdu === undefined) {
      noText(child, ERRORS)
      const [pdu, ...more] = child.children
      if (pdu === undefined || more.length > 0) throw new DecodeError(ERRORS, '<failed_pdu> must hold exactly one PDU')
      out.failedPdu = pduFrom(pdu)
    } else {
      throw new DecodeError(ERRORS, `<report_error> must not contain ${out.text !== undefined || out.failedPdu ? 'a second ' : ''}<${child.name}>`)
    }
  }
  return out
}

function uriOf(el: XmlElement): string {
  const uri = attr(el, 'uri', el.name === 'list' ? LIST : PUBLISH)
  if (uri === '') throw new DecodeError(PUBLISH, `<${el.name}> has an empty uri`)
  return uri
}

//------------ Encoding ---------------------------------------------------------------------------------------------
// Canonical form: no declaration, version="4", attributes tag, hash, uri (the RFC's examples), base64 on one line.

export function encodePublicationQuery(q: PublicationQuery): string {
  const children = q.type === 'list' ? [{ name: 'list', attrs: { tag: q.tag } }] : q.pdus.map(pduNode)
  return message('query', children)
}

export function encodePublicationReply(r: PublicationReply): string {
  switch (r.type) {
    case 'success':
      return message('reply', [{ name: 'success' }])
    case 'list_reply':
      return message('reply', r.elements.map((e) => ({ name: 'list', attrs: { tag: e.tag, hash: e.hash.toLowerCase(), uri: e.uri } })))
    case 'error_reply':
      return message('reply', r.errors.map(reportErrorNode))
  }
}

function message(type: 'query' | 'reply', children: XmlNode[]): string {
  return buildXml({ name: 'msg', attrs: { version: '4', type }, children }, { ns: PUBLICATION_NS })
}

function pduNode(p: PublishPdu | WithdrawPdu): XmlNode {
  const attrs = { tag: p.tag, hash: p.hash?.toLowerCase(), uri: p.uri }
  return p.type === 'publish' ? { name: 'publish', attrs, text: toBase64(p.content) } : { name: 'withdraw', attrs }
}

function reportErrorNode(e: ReportError): XmlNode {
  const children: XmlNode[] = []
  if (e.text !== undefined) children.push({ name: 'error_text', text: e.text })
  if (e.failedPdu !== undefined) children.push({ name: 'failed_pdu', children: [pduNode(e.failedPdu)] })
  return { name: 'report_error', attrs: { error_code: e.code, tag: e.tag }, children }
}
