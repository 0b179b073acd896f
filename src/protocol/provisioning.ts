/**
 * RFC 6492 up-down messages (list, issue, revoke and their responses, error_response) as plain data: decode/encode
 * only, resource sets kept as their attribute text (the CA layer parses them). The CMS wrapper is signed-message.ts.
 * Used by ca/children.ts (our side as parent) and ca/parents.ts (our side as child).
 */
import { toBase64 } from '../util/base64.js'
import { InspectionError } from '../util/errors.js'
import { PROVISIONING_NS } from './provisioning-decode.js'
import { buildXml, type XmlNode } from './xml.js'

/** RFC 6492 §3: the media type of an up-down message, in requests and responses. */
export const UPDOWN_CONTENT_TYPE = 'application/rpki-updown'

export { decodeProvisioning, PROVISIONING_NS, ProvisioningDecodeError, type ProvisioningDecodeKind } from './provisioning-decode.js'

export interface ResourceClassEntitlement {
  className: string
  /** cert_url: comma-separated on the wire. */
  certUrl: string[]
  resourceSetAs: string
  resourceSetIpv4: string
  resourceSetIpv6: string
  resourceSetNotAfter: string
  suggestedSiaHead?: string
  certificates: IssuedCertificate[]
  issuer: Uint8Array
}

export interface IssuedCertificate {
  certUrl: string
  reqResourceSetAs?: string
  reqResourceSetIpv4?: string
  reqResourceSetIpv6?: string
  cert: Uint8Array
}

export type ProvisioningPayload =
  | { type: 'list' }
  | { type: 'list_response'; classes: ResourceClassEntitlement[] }
  | { type: 'issue'; className: string; csr: Uint8Array; limits?: { asn?: string; ipv4?: string; ipv6?: string } }
  /** Exactly one class, holding the issued certificate. */
  | { type: 'issue_response'; cls: ResourceClassEntitlement }
  /** ski: base64url as on the wire, without padding. */
  | { type: 'revoke'; className: string; ski: string }
  | { type: 'revoke_response'; className: string; ski: string }
  | { type: 'error_response'; status: number; description?: string; lang?: string }

/** sender and recipient are optional only when decoding an error_response (LACNIC leaves them out). */
export interface ProvisioningMessage {
  sender?: string
  recipient?: string
  payload: ProvisioningPayload
}

/** RFC 6492 §3.6: the error codes of a Request-Not-Performed response, with their descriptions. */
export const ERROR_CODES: Record<number, string> = {
  1101: 'already processing request',
  1102: 'version number error',
  1103: 'unrecognised request type',
  1104: 'request scheduled for processing',
  1201: 'request - no such resource class',
  1202: 'request - no resources allocated in resource class',
  1203: 'request - badly formed certificate request',
  1204: 'request - already used key in request',
  1301: 'revoke - no such resource class',
  1302: 'revoke - no such key',
  2001: 'internal server error - request cannot be completed',
}

//------------ Encoding ---------------------------------------------------------------------------------------------
// Canonical form (Krill/rpkid style): no XML declaration, no prefix, version="1", attributes version, sender,
// recipient, type; base64 on one line.

export function encodeProvisioning(m: ProvisioningMessage): string {
  if (m.sender === undefined || m.recipient === undefined || m.sender === '' || m.recipient === '') {
    throw new InspectionError('RFC 6492 §3.1', 'a message needs a sender and a recipient')
  }
  const attrs = { version: '1', sender: m.sender, recipient: m.recipient, type: m.payload.type }
  return buildXml({ name: 'message', attrs, children: payloadNodes(m.payload) }, { ns: PROVISIONING_NS })
}

function payloadNodes(p: ProvisioningPayload): XmlNode[] {
  switch (p.type) {
    case 'list':
      return []
    case 'list_response':
      return p.classes.map(classNode)
    case 'issue': {
      const attrs = {
        class_name: p.className,
        req_resource_set_as: p.limits?.asn,
        req_resource_set_ipv4: p.limits?.ipv4,
        req_resource_set_ipv6: p.limits?.ipv6,
      }
      return [{ name: 'request', attrs, text: toBase64(p.csr) }]
    }
    case 'issue_response':
      if (p.cls.certificates.length === 0) throw new InspectionError('RFC 6492 §3.4.2', 'an issue_response class needs the issued <certificate>')
      return [classNode(p.cls)]
    case 'revoke':
    case 'revoke_response':
      return [{ name: 'key', attrs: { class_name: p.className, ski: p.ski } }]
    case 'error_response':
      return errorNodes(p)
  }
}

function classNode(c: ResourceClassEntitlement): XmlNode {
  const attrs = {
    class_name: c.className,
    cert_url: c.certUrl.join(','),
    resource_set_as: c.resourceSetAs,
    resource_set_ipv4: c.resourceSetIpv4,
    resource_set_ipv6: c.resourceSetIpv6,
    resource_set_notafter: c.resourceSetNotAfter,
    suggested_sia_head: c.suggestedSiaHead,
  }
  const certificates: XmlNode[] = c.certificates.map((cert) => ({
    name: 'certificate',
    attrs: {
      cert_url: cert.certUrl,
      req_resource_set_as: cert.reqResourceSetAs,
      req_resource_set_ipv4: cert.reqResourceSetIpv4,
      req_resource_set_ipv6: cert.reqResourceSetIpv6,
    },
    text: toBase64(cert.cert),
  }))
  return { name: 'class', attrs, children: [...certificates, { name: 'issuer', text: toBase64(c.issuer) }] }
}

function errorNodes(p: { status: number; description?: string; lang?: string }): XmlNode[] {
  if (!Number.isInteger(p.status) || p.status < 1 || p.status > 9999) {
    throw new InspectionError('RFC 6492 §3.6', `status ${p.status} is not a code from 1 to 9999`)
  }
  const nodes: XmlNode[] = [{ name: 'status', text: String(p.status) }]
  // RFC 6492 §3.6: the description carries xml:lang; English is assumed when none is given.
  if (p.description !== undefined) nodes.push({ name: 'description', attrs: { 'xml:lang': p.lang ?? 'en-US' }, text: p.description })
  return nodes
}
