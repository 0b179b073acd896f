/**
 * A CA's side as a child (RFC 6492 client): ask a parent what we are entitled to (`list`), request certificates
 * for keys that need one (`issue` with a CSR carrying our SIA), ask for revocation of keys we no longer use
 * (`revoke`), and record each exchange as the parent's status (a CA issue while it fails).
 */
import type { Entitlement } from '../ca/commands.js'
import { keysNeedingCertificates } from '../ca/parents.js'
import { keySia } from '../ca/locations.js'
import type { CaState, ParentInfo } from '../ca/state.js'
import { keyIdentifier } from '../crypto/key-id.js'
import { AppError, reasonOf } from '../errors.js'
import { decodeCert } from '../objects/cert.js'
import { buildCsr } from '../objects/csr.js'
import { decodeProvisioning, encodeProvisioning, ERROR_CODES, type ProvisioningPayload } from '../protocol/provisioning.js'
import { unwrapMessage } from '../protocol/signed-message.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64, toBase64, toBase64Url } from '../util/base64.js'
import { bytesEqual } from '../util/bytes.js'
import type { CaServices } from './ca-services.js'
import { postMessage } from './protocol-client.js'

export const UPDOWN_TYPE = 'application/rpki-updown'

/** Delivers a CMS message to a parent in this same svcd without the network (same semantics), or undefined. */
export type LocalUpdown = (serviceUri: string, cms: Uint8Array) => Promise<Uint8Array> | undefined

/** One RFC 6492 exchange with a parent: wrap, send, verify the reply against the parent's identity, decode. */
export async function updown(svc: CaServices, s: CaState, p: ParentInfo, payload: ProvisioningPayload, local: LocalUpdown): Promise<ProvisioningPayload> {
  const xml = encodeProvisioning({ sender: p.childHandle, recipient: p.parentHandle, payload })
  const cms = await svc.messageSigner(s).sign(xml, svc.now())
  const answer = (await local(p.serviceUri, cms)) ?? (await postMessage(p.serviceUri, cms, { contentType: UPDOWN_TYPE, timeoutMs: 240_000, maxBytes: svc.config.post_limit_rfc6492 * 8 }))
  const m = unwrapMessage(answer, { idCert: fromBase64(p.idCert), now: svc.now() })
  const reply = decodeProvisioning(m.xml)
  if (reply.payload.type === 'error_response') {
    const e = reply.payload
    throw new Error(`parent '${p.name}' answered error ${e.status} (${ERROR_CODES[e.status] ?? 'unknown code'})${e.description ? `: ${e.description}` : ''}`)
  }
  // RFC 6492 §3.1: the reply comes from the parent to us.
  if (reply.sender !== p.parentHandle || reply.recipient !== p.childHandle) throw new Error(`parent '${p.name}' answered as '${reply.sender}' to '${reply.recipient}'`)
  return reply.payload
}

/**
 * Sync with one parent: entitlements, certificate requests, revocations. Returns true when something changed.
 * Any failure is recorded as the parent's issue and rethrown.
 */
export async function syncParent(svc: CaServices, handle: string, name: string, local: LocalUpdown): Promise<boolean> {
  const time = svc.now().toISOString()
  const p0 = svc.state(handle).parents[name]
  if (!p0) throw new AppError('ca-parent-unknown', { ca: handle, parent: name })
  try {
    const changed = await exchange(svc, handle, name, local)
    svc.status.record(handle, 'parent', name, { time, uri: p0.serviceUri, result: 'success' })
    return changed
  } catch (e) {
    svc.log.warn('parent sync failed', { ca: handle, parent: name, reason: reasonOf(e) })
    const label = e instanceof AppError ? e.label : 'ca-parent-sync'
    svc.status.record(handle, 'parent', name, { time, uri: p0.serviceUri, result: 'failure', label, msg: reasonOf(e), args: { ca: handle, parent: name } })
    throw e
  }
}

async function exchange(svc: CaServices, handle: string, name: string, local: LocalUpdown): Promise<boolean> {
  let s = svc.state(handle)
  const list = await updown(svc, s, s.parents[name], { type: 'list' }, local)
  if (list.type !== 'list_response') throw new Error(`parent '${name}' answered a list with '${list.type}'`)
  const classes: Entitlement[] = list.classes.map((c) => ({
    className: c.className,
    resources: ResourceSet.parse({ asn: c.resourceSetAs, ipv4: c.resourceSetIpv4, ipv6: c.resourceSetIpv6 }).toJSON(),
    notAfter: new Date(c.resourceSetNotAfter).toISOString(),
    issued: c.certificates.map((x) => ({ uri: x.certUrl, der: toBase64(x.cert) })),
  }))
  let changed = (await svc.run(handle, { type: 'parent-entitlements-update', parent: name, classes }, 'svc')).events.length > 0
  s = svc.state(handle)
  if (!s.repo) return changed
  for (const { rc, key } of keysNeedingCertificates(s, svc.now(), svc.config.timing.child_cert_reissue_before_seconds).filter((k) => k.rc.parent === name)) {
    const signingKey = svc.signer.signingKey(key.keyId)
    const csr = buildCsr(signingKey, keySia(s, rc.name, key.keyId))
    await svc.run(handle, { type: 'certificate-request', className: rc.name, keyId: key.keyId }, 'svc')
    const r = await updown(svc, svc.state(handle), s.parents[name], { type: 'issue', className: rc.parentClass, csr }, local)
    if (r.type !== 'issue_response') throw new Error(`parent '${name}' answered an issue with '${r.type}'`)
    const issued = r.cls.certificates.find((c) => bytesEqual(spkiOf(c.cert), signingKey.spki)) ?? r.cls.certificates[0]
    if (!issued) throw new Error(`parent '${name}' issued no certificate in class '${rc.parentClass}'`)
    const res = await svc.run(handle, { type: 'certificate-receive', parent: name, className: rc.name, keyId: key.keyId, cert: toBase64(issued.cert), uri: issued.certUrl }, 'svc')
    changed ||= res.events.length > 0
  }
  for (const rc of Object.values(svc.state(handle).classes)) {
    if (rc.parent !== name || !rc.old) continue
    const ski = toBase64Url(keyIdentifier(svc.signer.signingKey(rc.old.keyId).spki))
    const r = await updown(svc, svc.state(handle), s.parents[name], { type: 'revoke', className: rc.parentClass, ski }, local)
    if (r.type !== 'revoke_response') throw new Error(`parent '${name}' answered a revoke with '${r.type}'`)
    changed ||= (await svc.run(handle, { type: 'key-revoked', parent: name, className: rc.name, keyId: rc.old.keyId }, 'svc')).events.length > 0
  }
  return changed
}

/** Ask the parent to revoke every key of the CA under it (best effort, before removing the parent or the CA). */
export async function revokeAllUnder(svc: CaServices, handle: string, name: string, local: LocalUpdown): Promise<void> {
  const s = svc.state(handle)
  const p = s.parents[name]
  if (!p) return
  for (const rc of Object.values(s.classes).filter((c) => c.parent === name)) {
    for (const k of [rc.current, rc.next, rc.old]) {
      if (!k?.cert) continue
      const ski = toBase64Url(keyIdentifier(svc.signer.signingKey(k.keyId).spki))
      try {
        await updown(svc, s, p, { type: 'revoke', className: rc.parentClass, ski }, local)
      } catch (e) {
        svc.log.warn('revocation request failed (best effort)', { ca: handle, parent: name, key: k.keyId, reason: reasonOf(e) })
      }
    }
  }
}

/** The SPKI of an issued certificate (to match it to our key); empty when it does not decode. */
function spkiOf(der: Uint8Array): Uint8Array {
  try {
    return decodeCert(der).spki
  } catch {
    return new Uint8Array()
  }
}
