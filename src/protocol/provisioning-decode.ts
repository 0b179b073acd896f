/**
 * RFC 6492 up-down messages: decoding, tolerant of what real parents and children send (fixtures/README.md §3):
 * any declaration and attribute order, "" resource sets, issuer-only classes, several certificates, padded ski,
 * no sender/recipient on an error_response. Types and encoding live in provisioning.ts.
 */
import { DecodeError } from '../util/errors.js'
import { fromBase64Url } from '../util/base64.js'
import type { IssuedCertificate, ProvisioningMessage, ProvisioningPayload, ResourceClassEntitlement } from './provisioning.js'
import { parseXml, type XmlElement } from './xml.js'
import { attr, base64Text, noChildren, noText, onlyChild, optAttr, show } from './xml-read.js'

export const PROVISIONING_NS = 'http://www.apnic.net/specs/rescerts/up-down/'

const COMMON = 'RFC 6492 §3.1'
const LIST_RESPONSE = 'RFC 6492 §3.3.2'
const ISSUE = 'RFC 6492 §3.4.1'
const ISSUE_RESPONSE = 'RFC 6492 §3.4.2'
const REVOKE = 'RFC 6492 §3.5.1'
const ERROR = 'RFC 6492 §3.6'
const TYPES = ['list', 'list_response', 'issue', 'issue_response', 'revoke', 'revoke_response', 'error_response']

// RFC 6492 §3.7: character sets of the resource set attributes (the schema's patterns).
const RESOURCE_SET = { as: /^[-,0-9]*$/, ipv4: /^[-,/.0-9]*$/, ipv6: /^[-,/:0-9a-fA-F]*$/ }

/**
 * Which part of an up-down message failed to decode, so that a parent can answer with the RFC 6492 §3.6 code that
 * fits (app/ca/child-server.ts keeps the table): `xml` (not XML, or not an up-down message), `version`, `type` (not a
 * message type), `issue` / `revoke` (a bad request or key element), `payload` (any other bad content).
 */
export type ProvisioningDecodeKind = 'xml' | 'version' | 'type' | 'issue' | 'revoke' | 'payload'

/** A DecodeError that says which part failed and, when they were readable, who sent the message to whom. */
export class ProvisioningDecodeError extends DecodeError {
  readonly sender?: string
  readonly recipient?: string
  constructor(readonly kind: ProvisioningDecodeKind, cause: DecodeError, parties: Parties = {}) {
    super(cause.rule, cause.message.startsWith(`${cause.rule}: `) ? cause.message.slice(cause.rule.length + 2) : cause.message, { cause })
    if (parties.sender !== undefined) this.sender = parties.sender
    if (parties.recipient !== undefined) this.recipient = parties.recipient
  }
}

type Parties = { sender?: string; recipient?: string }

/** Run one decoding step; a DecodeError from it becomes a ProvisioningDecodeError of `kind`. */
function step<T>(kind: ProvisioningDecodeKind, parties: Parties, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof DecodeError && !(e instanceof ProvisioningDecodeError)) throw new ProvisioningDecodeError(kind, e, parties)
    throw e
  }
}

/** A ProvisioningDecodeError of `kind` under RFC 6492 §3.1. */
function failure(kind: ProvisioningDecodeKind, parties: Parties, message: string): ProvisioningDecodeError {
  return new ProvisioningDecodeError(kind, new DecodeError(COMMON, message), parties)
}

/** Decode one up-down message (the XML inside the CMS). Failures are ProvisioningDecodeErrors. */
export function decodeProvisioning(xml: string | Uint8Array): ProvisioningMessage {
  const el = step('xml', {}, () => parseXml(xml))
  if (el.name !== 'message' || el.ns !== PROVISIONING_NS) throw failure('xml', {}, `expected an up-down <message> in ${PROVISIONING_NS}, got <${el.name}> in ${show(el.ns)}`)
  const parties: Parties = {}
  const sender = optAttr(el, 'sender')
  const recipient = optAttr(el, 'recipient')
  if (sender !== undefined) parties.sender = sender
  if (recipient !== undefined) parties.recipient = recipient
  const version = el.attrs.version
  if (version !== '1') throw failure('version', parties, `version ${version === undefined ? '(missing)' : show(version)} is not supported; up-down messages are version "1"`)
  const type = step('type', parties, () => attr(el, 'type', COMMON))
  if (!TYPES.includes(type)) throw failure('type', parties, `unrecognised message type ${show(type)}`)
  const kind = type === 'issue' ? 'issue' : type === 'revoke' ? 'revoke' : 'payload'
  const msg: ProvisioningMessage = { ...parties, payload: step(kind, parties, () => payloadOf(type as ProvisioningPayload['type'], el)) }
  // LACNIC sends error_response without sender and recipient; every other message must have both.
  if ((sender === undefined || recipient === undefined) && type !== 'error_response') throw failure('xml', parties, `a ${type} message needs sender and recipient attributes`)
  return msg
}

/** The payload of a <message> whose version and type are known: children in the namespace, no text. */
function payloadOf(type: ProvisioningPayload['type'], el: XmlElement): ProvisioningPayload {
  for (const child of el.children) {
    if (child.ns !== PROVISIONING_NS) throw new DecodeError(COMMON, `<${child.name}> is not in the up-down namespace`)
  }
  noText(el, COMMON)
  return payloadFrom(type, el)
}

function payloadFrom(type: ProvisioningPayload['type'], el: XmlElement): ProvisioningPayload {
  switch (type) {
    case 'list':
      onlyChildren(el, [], 'RFC 6492 §3.3.1')
      return { type }
    case 'list_response':
      onlyChildren(el, ['class'], LIST_RESPONSE)
      return { type, classes: el.children.map((c) => classFrom(c, LIST_RESPONSE)) }
    case 'issue':
      return issueFrom(el)
    case 'issue_response': {
      onlyChildren(el, ['class'], ISSUE_RESPONSE)
      const cls = classFrom(onlyChild(el, 'class', ISSUE_RESPONSE), ISSUE_RESPONSE)
      if (cls.certificates.length === 0) throw new DecodeError(ISSUE_RESPONSE, '<class> in an issue_response has no <certificate>')
      return { type, cls }
    }
    case 'revoke':
    case 'revoke_response':
      return { type, ...keyFrom(el, type === 'revoke' ? REVOKE : 'RFC 6492 §3.5.2') }
    case 'error_response':
      return errorFrom(el)
  }
}

function onlyChildren(el: XmlElement, names: string[], rule: string): void {
  for (const child of el.children) {
    if (!names.includes(child.name)) throw new DecodeError(rule, `<${el.name}> of type ${el.attrs.type} must not contain <${child.name}>`)
  }
}

function classFrom(el: XmlElement, rule: string): ResourceClassEntitlement {
  noText(el, rule)
  onlyChildren(el, ['certificate', 'issuer'], rule)
  const issuer = onlyChild(el, 'issuer', rule)
  noChildren(issuer, rule)
  const cls: ResourceClassEntitlement = {
    className: token(el, 'class_name', rule),
    certUrl: certUrls(attr(el, 'cert_url', rule)),
    resourceSetAs: resourceSet(el, 'resource_set_as', RESOURCE_SET.as, rule),
    resourceSetIpv4: resourceSet(el, 'resource_set_ipv4', RESOURCE_SET.ipv4, rule),
    resourceSetIpv6: resourceSet(el, 'resource_set_ipv6', RESOURCE_SET.ipv6, rule),
    resourceSetNotAfter: dateTime(el, 'resource_set_notafter', rule),
    certificates: el.children.filter((c) => c.name === 'certificate').map((c) => certificateFrom(c, rule)),
    issuer: base64Text(issuer.text, rule, '<issuer>'),
  }
  const sia = optAttr(el, 'suggested_sia_head')
  if (sia !== undefined) cls.suggestedSiaHead = sia
  return cls
}

function certificateFrom(el: XmlElement, rule: string): IssuedCertificate {
  noChildren(el, rule)
  const cert: IssuedCertificate = { certUrl: attr(el, 'cert_url', rule), cert: base64Text(el.text, rule, '<certificate>') }
  const req = requestedResources(el, rule)
  if (req.asn !== undefined) cert.reqResourceSetAs = req.asn
  if (req.ipv4 !== undefined) cert.reqResourceSetIpv4 = req.ipv4
  if (req.ipv6 !== undefined) cert.reqResourceSetIpv6 = req.ipv6
  return cert
}

/** The req_resource_set_* attributes of `el` that are present (RFC 6492 §3.4.1, §3.5.1). */
function requestedResources(el: XmlElement, rule: string): { asn?: string; ipv4?: string; ipv6?: string } {
  const out: { asn?: string; ipv4?: string; ipv6?: string } = {}
  const asn = optResourceSet(el, 'req_resource_set_as', RESOURCE_SET.as, rule)
  const ipv4 = optResourceSet(el, 'req_resource_set_ipv4', RESOURCE_SET.ipv4, rule)
  const ipv6 = optResourceSet(el, 'req_resource_set_ipv6', RESOURCE_SET.ipv6, rule)
  if (asn !== undefined) out.asn = asn
  if (ipv4 !== undefined) out.ipv4 = ipv4
  if (ipv6 !== undefined) out.ipv6 = ipv6
  return out
}

function issueFrom(el: XmlElement): ProvisioningPayload {
  onlyChildren(el, ['request'], ISSUE)
  const req = onlyChild(el, 'request', ISSUE)
  noChildren(req, ISSUE)
  const payload: ProvisioningPayload & { type: 'issue' } = {
    type: 'issue',
    className: token(req, 'class_name', ISSUE),
    csr: base64Text(req.text, ISSUE, '<request>'),
  }
  const limits = requestedResources(req, ISSUE)
  if (Object.keys(limits).length > 0) payload.limits = limits
  return payload
}

function keyFrom(el: XmlElement, rule: string): { className: string; ski: string } {
  onlyChildren(el, ['key'], rule)
  const key = onlyChild(el, 'key', rule)
  noText(key, rule)
  noChildren(key, rule)
  const raw = attr(key, 'ski', rule).trim()
  try {
    fromBase64Url(raw)
  } catch (e) {
    throw new DecodeError(rule, `<key> ski ${show(raw)} is not base64url`, { cause: e })
  }
  // RFC 6492 §3.5.1: the ski is the SHA-1 key identifier (RFC 6487 §4.8.2), 20 octets.
  if (fromBase64Url(raw).length !== 20) throw new DecodeError(rule, `<key> ski ${show(raw)} is not a 20-octet key identifier`)
  // Normalised to the RFC's form (no padding): one hand-written sample pads it with '='.
  return { className: token(key, 'class_name', rule), ski: raw.replace(/=+$/, '') }
}

function errorFrom(el: XmlElement): ProvisioningPayload {
  onlyChildren(el, ['status', 'description'], ERROR)
  const statusEl = onlyChild(el, 'status', ERROR)
  noChildren(statusEl, ERROR)
  const text = statusEl.text.trim()
  const status = Number(text)
  if (!/^[0-9]{1,4}$/.test(text) || status < 1) throw new DecodeError(ERROR, `<status> ${show(text)} is not a code from 1 to 9999`)
  const payload: ProvisioningPayload & { type: 'error_response' } = { type: 'error_response', status }
  // The schema allows several descriptions (one per language); the first one is kept.
  const description = el.children.find((c) => c.name === 'description')
  if (description !== undefined) {
    noChildren(description, ERROR)
    payload.description = description.text
    const lang = optAttr(description, 'xml:lang')
    if (lang !== undefined) payload.lang = lang
  }
  return payload
}

/** xsd:token attributes (class_name): surrounding whitespace is not significant. */
function token(el: XmlElement, name: string, rule: string): string {
  const value = attr(el, name, rule).trim()
  if (value === '') throw new DecodeError(rule, `<${el.name}> ${name} is empty`)
  return value
}

/** xsd:dateTime, as the schema types resource_set_notafter (e.g. 2011-04-01T12:34:56Z). */
function dateTime(el: XmlElement, name: string, rule: string): string {
  const value = attr(el, name, rule).trim()
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$/.test(value)) {
    throw new DecodeError(rule, `<${el.name}> ${name} ${show(value)} is not a date and time`)
  }
  return value
}

function certUrls(value: string): string[] {
  return value
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
}

function resourceSet(el: XmlElement, name: string, pattern: RegExp, rule: string): string {
  const value = attr(el, name, rule)
  if (!pattern.test(value)) throw new DecodeError(rule, `<${el.name}> ${name} ${show(value)} contains characters not allowed in a resource set`)
  return value
}

function optResourceSet(el: XmlElement, name: string, pattern: RegExp, rule: string): string | undefined {
  return optAttr(el, name) === undefined ? undefined : resourceSet(el, name, pattern, rule)
}
