/**
 * A CA's side as a parent (RFC 6492 server, POST /rfc6492/{ca}): identify the child by the message's sender, verify
 * its CMS against the child's registered identity certificate, and answer list, issue and revoke; anything wrong is
 * an error_response with the RFC 6492 §3.6 code. Every answer is signed with the CA's identity.
 */
import { childEntitlements, child as childOf } from '../ca/children.js'
import type { CaState, IssuedCert } from '../ca/state.js'
import { AppError, reasonOf } from '../errors.js'
import { LibraryError } from '../util/errors.js'
import { decodeProvisioning, encodeProvisioning, type ProvisioningMessage, type ProvisioningPayload, type ResourceClassEntitlement } from '../protocol/provisioning.js'
import { unwrapMessage, unwrapUnverified } from '../protocol/signed-message.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64, fromBase64Url, toBase64 } from '../util/base64.js'
import { toHex } from '../util/hex.js'
import type { CaServices } from './ca-services.js'

/** Handle one RFC 6492 message for CA `handle`; `published` is told when a certificate was issued or revoked. */
export async function rfc6492(svc: CaServices, handle: string, body: Uint8Array, published: (handle: string) => void): Promise<Uint8Array> {
  const s = svc.state(handle)
  let sender: string | undefined
  let reply: ProvisioningPayload
  try {
    const msg = decodeProvisioning(unwrapUnverified(body).xml)
    sender = msg.sender
    reply = await answer(svc, s, msg, body, published)
  } catch (e) {
    reply = errorReply(e)
    svc.log.warn('RFC 6492 request refused', { ca: handle, child: sender, reason: reasonOf(e) })
  }
  const xml = encodeProvisioning({ sender: s.handle, recipient: sender ?? '', payload: reply })
  return svc.messageSigner(svc.state(handle)).sign(xml, svc.now())
}

async function answer(svc: CaServices, s: CaState, msg: ProvisioningMessage, body: Uint8Array, published: (h: string) => void): Promise<ProvisioningPayload> {
  const ch = s.children[msg.sender ?? '']
  if (!ch) throw new AppError('ca-child-unknown', { ca: s.handle, child: msg.sender ?? '' })
  // RFC 6492 §3.1: the message must be signed by the child's registered identity, recently, and not replayed.
  const peer = `${s.handle}/${ch.handle}`
  const last = svc.lastSigningTime.get(peer)
  let verified
  try {
    verified = unwrapMessage(body, { idCert: fromBase64(ch.idCert), now: svc.now(), ...(last ? { lastSigningTime: last } : {}) })
  } catch (e) {
    throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: reasonOf(e) })
  }
  svc.lastSigningTime.set(peer, verified.signingTime)
  if (msg.recipient !== s.handle) throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: `the message is addressed to '${msg.recipient}'` })
  const p = msg.payload
  switch (p.type) {
    case 'list':
      return { type: 'list_response', classes: entitlements(svc, s, ch.handle) }
    case 'issue': {
      const limit = p.limits ? { asn: p.limits.asn ?? '', ipv4: p.limits.ipv4 ?? '', ipv6: p.limits.ipv6 ?? '' } : undefined
      const csr = toBase64(p.csr)
      const r = await svc.run(s.handle, { type: 'child-certify', handle: ch.handle, className: p.className, csr, ...(limit ? { limit: ResourceSet.parse(limit).toJSON() } : {}) }, `child:${ch.handle}`)
      published(s.handle)
      const issued = r.events.find((e) => e.type === 'child-certificate-issued')
      const cert = issued?.type === 'child-certificate-issued' ? issued.cert : undefined
      const cls = entitlements(svc, r.state, ch.handle).find((c) => c.className === p.className)
      if (!cert || !cls) throw new AppError('rfc6492-protocol', { code: '2001', reason: 'no certificate was issued' })
      return { type: 'issue_response', cls: { ...cls, certificates: [certificateEntry(cert)] } }
    }
    case 'revoke': {
      const keyId = toHex(fromBase64Url(p.ski)).toUpperCase()
      await svc.run(s.handle, { type: 'child-revoke', handle: ch.handle, className: p.className, keyId }, `child:${ch.handle}`)
      published(s.handle)
      return { type: 'revoke_response', className: p.className, ski: p.ski }
    }
    default:
      throw new AppError('rfc6492-protocol', { code: '1103', reason: `a parent does not answer '${p.type}'` })
  }
}

/** The list_response classes for a child (RFC 6492 §3.3.2). */
function entitlements(svc: CaServices, s: CaState, child: string): ResourceClassEntitlement[] {
  const ch = childOf(s, child)
  return childEntitlements(s, ch, svc.now(), svc.context().timing).map((e) => ({
    className: e.rc.name,
    certUrl: [e.rc.current!.cert!.uri],
    resourceSetAs: e.resources.asn.toRfc6492(),
    resourceSetIpv4: e.resources.ipv4.toRfc6492(),
    resourceSetIpv6: e.resources.ipv6.toRfc6492(),
    resourceSetNotAfter: e.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    certificates: e.issued.map(certificateEntry),
    issuer: fromBase64(e.rc.current!.cert!.der),
  }))
}

function certificateEntry(c: IssuedCert) {
  return { certUrl: c.uri, cert: fromBase64(c.der) }
}

/** RFC 6492 §3.6 error codes: those raised as `rfc6492-protocol` carry theirs; anything else is 2001. */
function errorReply(e: unknown): ProvisioningPayload {
  const text = reasonOf(e)
  let code = 2001
  if (e instanceof AppError && e.label === 'rfc6492-protocol') code = Number(e.args.code)
  else if (e instanceof LibraryError && /\bversion\b/i.test(text)) code = 1102
  else if (e instanceof LibraryError && /\btype\b/i.test(text)) code = 1103
  const description = text
  return { type: 'error_response', status: Number.isFinite(code) ? code : 2001, description: description.slice(0, 1000) }
}
