/**
 * A CA's side as a child (RFC 6492 client): ask a parent what we are entitled to (`list`), request certificates
 * for keys that need one (`issue` with a CSR carrying our SIA), ask for revocation of keys we no longer use
 * (`revoke`), and record each exchange as the parent's status (a CA issue while it fails).
 */
import type { Entitlement } from '../../ca/commands.js'
import { keysNeedingCertificates } from '../../ca/parents.js'
import { keySia } from '../../ca/locations.js'
import type { CaState, ParentInfo } from '../../ca/state.js'
import { keyIdentifier, keyIdHex } from '../../crypto/key-id.js'
import { AppError, reasonOf } from '../../errors.js'
import { decodeCert } from '../../objects/cert.js'
import { buildCsr } from '../../objects/csr.js'
import { decodeProvisioning, encodeProvisioning, ERROR_CODES, UPDOWN_CONTENT_TYPE, type ProvisioningMessage, type ProvisioningPayload } from '../../protocol/provisioning.js'
import { unwrapMessage } from '../../protocol/signed-message.js'
import { ResourceSet } from '../../resources/resource-set.js'
import { fromBase64, toBase64, toBase64Url } from '../../util/base64.js'
import { bytesEqual } from '../../util/bytes.js'
import type { CaStatusStore } from '../../store/interfaces.js'
import type { Signer } from '../../crypto/signer.js'
import type { Logger } from '../../log.js'
import type { CaCommands } from './ca-commands.js'
import type { MessageSigners } from './message-signers.js'
import type { PostMessage } from './ports.js'


/**
 * Delivers an RFC 6492 message to a parent CA in this same svcd without the network and without CMS, or undefined
 * when the URI is not one of ours: the reply, and the identity certificate of the CA that answered it (base64).
 */
export type LocalUpdown = (serviceUri: string, message: ProvisioningMessage, senderIdCert: string) => Promise<{ message: ProvisioningMessage; idCert: string }> | undefined

export interface ParentClientDeps {
  commands: CaCommands
  signers: MessageSigners
  signer: Signer
  status: CaStatusStore
  post: PostMessage
  /** Parents that are CAs in this svcd are asked in-process. */
  local: LocalUpdown
  now: () => Date
  log: Logger
  /** Largest RFC 6492 reply accepted from a parent (bytes). */
  postLimit: number
  /** Ask for a new certificate this long before the current one expires. */
  reissueBeforeSeconds: number
  /** An RFC 6492 request that gets nothing back for this long fails (config timing.parent_request_timeout_seconds). */
  timeoutMs?: number
}

/** A CA's RFC 6492 client: one instance serves every CA of this svcd. */
export class ParentClient {
  /** By CA and parent (`ca\0parent`): the keys of ours the parent listed certificates for at the last list. */
  private readonly listed = new Map<string, Set<string>>()

  constructor(private readonly d: ParentClientDeps) {}

  /**
   * One RFC 6492 exchange with a parent: wrap, send, verify the reply against the parent's identity, decode. A parent
   * in this svcd is asked in-process: both sides' identities are checked by their identity certificates, which is
   * what the signatures would prove, and the CMS and XML in between are left out.
   */
  async updown(s: CaState, p: ParentInfo, payload: ProvisioningPayload): Promise<ProvisioningPayload> {
    const message: ProvisioningMessage = { sender: p.childHandle, recipient: p.parentHandle, payload }
    const local = this.d.local(p.serviceUri, message, s.idCert)
    let reply: ProvisioningMessage
    if (local) {
      const r = await local
      if (!bytesEqual(fromBase64(r.idCert), fromBase64(p.idCert))) throw new Error(`parent '${p.name}' answered with another identity than the one in its parent response`)
      reply = r.message
    } else {
      const cms = await this.d.signers.of(s).sign(encodeProvisioning(message), this.d.now())
      const answer = await this.d.post(p.serviceUri, cms, { contentType: UPDOWN_CONTENT_TYPE, timeoutMs: this.d.timeoutMs ?? 240_000, maxBytes: this.d.postLimit })
      reply = decodeProvisioning(unwrapMessage(answer, { idCert: fromBase64(p.idCert), now: this.d.now() }).xml)
    }
    if (reply.payload.type === 'error_response') {
      const e = reply.payload
      throw new Error(`parent '${p.name}' answered error ${e.status} (${ERROR_CODES[e.status] ?? 'unknown code'})${e.description ? `: ${e.description}` : ''}`)
    }
    // RFC 6492 §3.1: the reply comes from the parent to us.
    if (reply.sender !== p.parentHandle || reply.recipient !== p.childHandle) throw new Error(`parent '${p.name}' answered as '${reply.sender}' to '${reply.recipient}'`)
    return reply.payload
  }

  /**
   * Sync with one parent: entitlements, certificate requests, revocations (each a command, whose events decide what
   * follows: follow-ups.ts). Any failure is recorded as the parent's issue and rethrown.
   */
  async sync(handle: string, name: string): Promise<void> {
    const time = this.d.now().toISOString()
    const p0 = this.d.commands.state(handle).parents[name]
    if (!p0) throw new AppError('ca-parent-unknown', { ca: handle, parent: name })
    try {
      await this.exchange(handle, name)
      this.d.status.record(handle, 'parent', name, { time, uri: p0.serviceUri, result: 'success' })
    } catch (e) {
      this.d.log.warn('parent sync failed', { ca: handle, parent: name, reason: reasonOf(e) })
      const label = e instanceof AppError ? e.label : 'ca-parent-sync'
      this.d.status.record(handle, 'parent', name, { time, uri: p0.serviceUri, result: 'failure', label, msg: reasonOf(e), args: { ca: handle, parent: name } })
      throw e
    }
  }

  private async exchange(handle: string, name: string): Promise<void> {
    let s = this.d.commands.state(handle)
    const list = await this.updown(s, s.parents[name], { type: 'list' })
    if (list.type !== 'list_response') throw new Error(`parent '${name}' answered a list with '${list.type}'`)
    const classes: Entitlement[] = list.classes.map((c) => ({
      className: c.className,
      resources: ResourceSet.parse({ asn: c.resourceSetAs, ipv4: c.resourceSetIpv4, ipv6: c.resourceSetIpv6 }).toJSON(),
      notAfter: new Date(c.resourceSetNotAfter).toISOString(),
      issued: c.certificates.map((x) => ({ uri: x.certUrl, der: toBase64(x.cert) })),
    }))
    await this.d.commands.run(handle, { type: 'parent-entitlements-update', parent: name, classes }, 'svc')
    s = this.d.commands.state(handle)
    if (!s.repo) return
    for (const { rc, key } of keysNeedingCertificates(s, this.d.now(), this.d.reissueBeforeSeconds).filter((k) => k.rc.parent === name)) {
      const signingKey = this.d.signer.signingKey(key.keyId)
      const csr = buildCsr(signingKey, keySia(s, rc.name, key.keyId))
      await this.d.commands.run(handle, { type: 'certificate-request', className: rc.name, keyId: key.keyId }, 'svc')
      const r = await this.updown(this.d.commands.state(handle), s.parents[name], { type: 'issue', className: rc.parentClass, csr })
      if (r.type !== 'issue_response') throw new Error(`parent '${name}' answered an issue with '${r.type}'`)
      const issued = r.cls.certificates.find((c) => bytesEqual(spkiOf(c.cert), signingKey.spki)) ?? r.cls.certificates[0]
      if (!issued) throw new Error(`parent '${name}' issued no certificate in class '${rc.parentClass}'`)
      await this.d.commands.run(handle, { type: 'certificate-receive', parent: name, className: rc.name, keyId: key.keyId, cert: toBase64(issued.cert), uri: issued.certUrl }, 'svc')
    }
    this.listed.set(`${handle}\0${name}`, new Set(list.classes.flatMap((c) => c.certificates.map((x) => spkiOf(x.cert))).filter((k) => k.length > 0).map((k) => keyIdHex(keyIdentifier(k)))))
    const held = new Set(Object.values(this.d.commands.state(handle).classes).flatMap((rc) => [rc.current, rc.next, rc.old]).filter((k) => k !== undefined).map((k) => k.keyId))
    await this.revokeListed(handle, name, list.classes, (k) => !held.has(k))
    for (const rc of Object.values(this.d.commands.state(handle).classes)) {
      if (rc.parent !== name || !rc.old) continue
      const ski = toBase64Url(keyIdentifier(this.d.signer.signingKey(rc.old.keyId).spki))
      const r = await this.updown(this.d.commands.state(handle), s.parents[name], { type: 'revoke', className: rc.parentClass, ski })
      if (r.type !== 'revoke_response') throw new Error(`parent '${name}' answered a revoke with '${r.type}'`)
      await this.d.commands.run(handle, { type: 'key-revoked', parent: name, className: rc.name, keyId: rc.old.keyId }, 'svc')
    }
  }

  /**
   * RFC 6492 §3.5: ask the parent to revoke the certificates it lists for keys that `revoke` picks (by key id):
   * after a list, the keys we hold in no class (a dropped class's key the parent still certifies); before a parent is
   * removed, at the other parents, the keys of the classes removed with it (the key a new parent certified when it
   * imported us, app/ca/child-transfer.ts). Best effort: a refusal leaves a certificate nobody uses, asked again later.
   */
  private async revokeListed(handle: string, name: string, classes: readonly ListedClass[], revoke: (keyId: string) => boolean): Promise<void> {
    const s = this.d.commands.state(handle)
    const p = s.parents[name]
    if (!p) return
    for (const listed of classes) {
      for (const c of listed.certificates) {
        const spki = spkiOf(c.cert)
        if (spki.length === 0) continue
        const ki = keyIdentifier(spki)
        if (!revoke(keyIdHex(ki))) continue
        try {
          const r = await this.updown(s, p, { type: 'revoke', className: listed.className, ski: toBase64Url(ki) })
          if (r.type !== 'revoke_response') throw new Error(`parent '${name}' answered a revoke with '${r.type}'`)
          this.d.log.info('parent revoked a certificate for a key we no longer use under it', { ca: handle, parent: name, class_name: listed.className, key: keyIdHex(ki) })
        } catch (e) {
          this.d.log.warn('revocation request failed (best effort)', { ca: handle, parent: name, key: keyIdHex(ki), reason: reasonOf(e) })
        }
      }
    }
  }

  /**
   * Ask the parent to revoke every key of the CA under it (best effort, before removing the parent or the CA), and
   * the other parents to revoke what they certify for those keys: the objects of these keys are withdrawn next.
   */
  async revokeAll(handle: string, name: string): Promise<void> {
    const s = this.d.commands.state(handle)
    const p = s.parents[name]
    if (!p) return
    const dropped = new Set<string>()
    this.listed.delete(`${handle}\0${name}`)
    for (const rc of Object.values(s.classes).filter((c) => c.parent === name)) {
      for (const k of [rc.current, rc.next, rc.old]) {
        if (!k) continue
        dropped.add(k.keyId)
        if (!k.cert) continue
        const ski = toBase64Url(keyIdentifier(this.d.signer.signingKey(k.keyId).spki))
        try {
          await this.updown(s, p, { type: 'revoke', className: rc.parentClass, ski })
        } catch (e) {
          this.d.log.warn('revocation request failed (best effort)', { ca: handle, parent: name, key: k.keyId, reason: reasonOf(e) })
        }
      }
    }
    for (const other of Object.keys(s.parents).filter((n) => n !== name)) {
      // A parent whose last list (in this process) certified none of these keys is not asked again.
      const known = this.listed.get(`${handle}\0${other}`)
      if (known && ![...dropped].some((k) => known.has(k))) continue
      try {
        const list = await this.updown(s, s.parents[other]!, { type: 'list' })
        if (list.type === 'list_response') await this.revokeListed(handle, other, list.classes, (k) => dropped.has(k))
      } catch (e) {
        this.d.log.warn('list before revocation failed (best effort)', { ca: handle, parent: other, reason: reasonOf(e) })
      }
    }
  }
}

/** A class as a parent lists it (RFC 6492 §3.3.2): its name and the certificates issued to us in it. */
type ListedClass = { className: string; certificates: readonly { cert: Uint8Array }[] }

/** The SPKI of an issued certificate (to match it to our key); empty when it does not decode. */
function spkiOf(der: Uint8Array): Uint8Array {
  try {
    return decodeCert(der).spki
  } catch {
    return new Uint8Array()
  }
}
