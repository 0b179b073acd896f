/**
 * A CA's side as a parent (RFC 6492 server, POST /rfc6492/{ca}): identify the child by the message's sender, verify
 * its CMS against the child's registered identity certificate, and answer list, issue and revoke; anything wrong is
 * an error_response with the RFC 6492 §3.6 code. Every answer is signed with the CA's identity.
 *
 * Messages of one child are serialised (issue 22, defect 3): each is answered under the child's lock
 * (`rfc6492:<ca>/<child>`: the in-process keyed mutex and, with several instances on one database, the shared lock
 * among them), and the replay state is read from and saved to the database there (ChildReplayStore), never kept in
 * memory that another instance cannot see. The lock is the child's, not the CA's: the commands a message runs take
 * the CA's lock themselves (CaCommands.run), which the in-process mutex does not allow twice.
 */
import { childEntitlements, child as childOf } from '../../ca/children.js'
import { childIdCerts } from '../../ca/id-roll.js'
import type { CaState, ChildInfo, IssuedCert } from '../../ca/state.js'
import { AppError, reasonOf, storageFault } from '../../errors.js'
import { DECODE_LABELS, errorReply } from '../../ca/updown-errors.js'
import {
  decodeProvisioning, encodeProvisioning, ProvisioningDecodeError, type ProvisioningMessage, type ProvisioningPayload,
  type ResourceClassEntitlement,
} from '../../protocol/provisioning.js'
import { replayProblem, replaySeen } from '../../protocol/replay.js'
import { unwrapMessage, unwrapUnverified } from '../../protocol/signed-message.js'
import { ResourceSet } from '../../resources/resource-set.js'
import { fromBase64, fromBase64Url, toBase64 } from '../../util/base64.js'
import { toHex } from '../../util/hex.js'
import { bytesEqual } from '../../util/bytes.js'
import type { Logger } from '../../log.js'
import type { ChildReplayStore, SharedLocks } from '../../store/interfaces.js'
import { KeyedMutex } from '../shared/keyed-mutex.js'
import type { CaCommands } from './ca-commands.js'
import type { MessageSigners } from './message-signers.js'
import { sha256Hex } from '../../crypto/digest.js'

export interface ChildServerDeps {
  commands: CaCommands
  signers: MessageSigners
  now: () => Date
  log: Logger
  /** The replay state of each child (protocol/replay.ts), in the database. */
  replay: ChildReplayStore
  /** Several instances on one database: the child's lock among them, held with the in-process one. */
  locks?: SharedLocks | undefined
  /** Record that a child contacted its parent (only when inactive children are suspended). */
  contact?: (ca: string, child: string) => void
  /** Told of every exchange with a registered child, and whether it was answered without an error (metrics). */
  exchanged?: (ca: string, child: string, ok: boolean) => void
}

/** The RFC 6492 server of every CA in this svcd. */
export class ChildServer {
  /** Serialises the messages of each child ('rfc6492:<ca>/<child>'), and with `locks` among the instances. */
  private readonly lock: KeyedMutex

  constructor(private readonly d: ChildServerDeps) {
    this.lock = new KeyedMutex(d.locks)
  }

  /** Forget what was seen from the children of a deleted CA. */
  forget(handle: string): void {
    this.d.replay.remove(handle)
  }

  /**
   * Handle one RFC 6492 message for CA `handle` (what an issue or a revocation changes is published as its events
   * decide: follow-ups.ts). Input that is not CMS, or whose XML is not an up-down message naming its sender, has no one
   * to answer: a labelled 400 (`rfc6492-cms`, `rfc6492-xml`). Everything else is answered with a signed reply, an
   * error_response on failure.
   */
  async rfc6492(handle: string, body: Uint8Array): Promise<Uint8Array> {
    const s = this.d.commands.state(handle)
    const decoded = decodeRequest(s, body)
    let reply: ProvisioningPayload
    try {
      if ('error' in decoded) throw decoded.error
      reply = await this.lock.run(`rfc6492:${s.handle}/${decoded.sender}`, () => {
        const current = this.d.commands.state(handle) // as it is once this child's turn came
        return this.answer(current, decoded.msg, (ch) => this.verifyCms(current, ch, decoded.msg, body))
      })
      this.exchanged(s, decoded.sender, true)
    } catch (e) {
      reply = errorReply(e)
      this.exchanged(s, decoded.sender, false)
      this.d.log.warn('RFC 6492 request refused', { ca: handle, child: decoded.sender, code: reply.type === 'error_response' ? reply.status : undefined, reason: reasonOf(e) })
    }
    const xml = encodeProvisioning({ sender: s.handle, recipient: decoded.sender, payload: reply })
    return this.d.signers.of(this.d.commands.state(handle)).sign(xml, this.d.now())
  }

  /**
   * An RFC 6492 message from a CA of this svcd, without CMS: the sender is identified by its identity certificate,
   * which must be the one registered for the child (what verifying the signature against it would prove), and there
   * is no transport to replay from. Answered exactly as rfc6492() would, an error_response on failure.
   */
  async local(handle: string, msg: ProvisioningMessage, senderIdCert: string): Promise<ProvisioningMessage> {
    const s = this.d.commands.state(handle)
    let reply: ProvisioningPayload
    try {
      reply = await this.answer(s, msg, (ch) => {
        const which = childIdCerts(ch).findIndex((c) => bytesEqual(fromBase64(c), fromBase64(senderIdCert)))
        if (which < 0) throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: 'the sender is not the identity registered for this child' })
        return which === 0
      })
      this.exchanged(s, msg.sender, true)
    } catch (e) {
      reply = errorReply(e)
      this.exchanged(s, msg.sender, false)
      this.d.log.warn('RFC 6492 request refused', { ca: handle, child: msg.sender, code: reply.type === 'error_response' ? reply.status : undefined, reason: reasonOf(e) })
    }
    return { sender: s.handle, recipient: msg.sender, payload: reply }
  }

  /** Report an exchange, only for a child registered with the CA (a sender's name alone adds no series). */
  private exchanged(s: CaState, sender: string | undefined, ok: boolean): void {
    if (this.d.exchanged && sender !== undefined && Object.hasOwn(s.children, sender)) this.d.exchanged(s.handle, sender, ok)
  }

  /**
   * RFC 6492 §3.1: the message must be signed by the child's registered identity, recently, and not replayed (by the
   * state in the database, under the child's lock; the state after the message is saved before it is answered).
   */
  private verifyCms(s: CaState, ch: ChildInfo, msg: ProvisioningMessage, body: Uint8Array): boolean {
    let verified
    let current = true
    try {
      verified = unwrapMessage(body, { idCert: fromBase64(ch.idCert), now: this.d.now() })
    } catch (e) {
      // Issue 25: after an id cert update, the previous certificate until the child signs with the new one.
      if (!ch.prevIdCert) throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: reasonOf(e) })
      try {
        verified = unwrapMessage(body, { idCert: fromBase64(ch.prevIdCert), now: this.d.now() })
        current = false
      } catch {
        throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: reasonOf(e) })
      }
    }
    const changes = msg.payload.type === 'issue' || msg.payload.type === 'revoke'
    const digest = sha256Hex(verified.content)
    const state = this.d.replay.get(s.handle, ch.handle)
    const replay = replayProblem(state, verified.signingTime, digest, changes)
    if (replay) throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: replay })
    try {
      this.d.replay.save(s.handle, ch.handle, replaySeen(state, verified.signingTime, digest, changes))
    } catch (e) {
      // A list changes nothing, so it is answered when storage fails (a full disk); a change is not.
      if (changes || !storageFault(e)) throw e
      this.d.log.warn('RFC 6492 replay state not saved: storage failed', { ca: s.handle, child: ch.handle, err: reasonOf(e) })
    }
    return current
  }

  /**
   * Answer a decoded message once `authenticate` accepted its sender (it throws when not; true: signed with the
   * child's current identity, which retires a previous one: ca/id-roll.ts).
   */
  private async answer(state: CaState, msg: ProvisioningMessage, authenticate: (ch: ChildInfo) => boolean): Promise<ProvisioningPayload> {
    let s = state
    const ch = s.children[msg.sender ?? '']
    if (!ch) throw new AppError('ca-child-unknown', { ca: s.handle, child: msg.sender ?? '' })
    const current = authenticate(ch)
    if (msg.recipient !== s.handle) throw new AppError('ca-child-unauthorized', { ca: s.handle, child: ch.handle, reason: `the message is addressed to '${msg.recipient}'` })
    if (current && ch.prevIdCert) s = (await this.d.commands.run(s.handle, { type: 'child-id-confirm', handle: ch.handle }, `child:${ch.handle}`)).state
    this.d.contact?.(s.handle, ch.handle)
    // A suspended child that asks again is back: new certificates, published (ca/suspension.ts).
    if (ch.suspended) s = (await this.d.commands.run(s.handle, { type: 'child-unsuspend', handle: ch.handle }, `child:${ch.handle}`)).state
    const p = msg.payload
    switch (p.type) {
      case 'list':
        return { type: 'list_response', classes: this.entitlements(s, ch.handle) }
      case 'issue': {
        const limit = p.limits && requestLimit(p.limits)
        const csr = toBase64(p.csr)
        const r = await this.d.commands.run(s.handle, { type: 'child-certify', handle: ch.handle, className: p.className, csr, ...(limit ? { limit } : {}) }, `child:${ch.handle}`)
        const issued = r.events.find((e) => e.type === 'child-certificate-issued')
        const cert = issued?.type === 'child-certificate-issued' ? issued.cert : undefined
        const cls = this.entitlements(r.state, ch.handle).find((c) => c.className === p.className)
        if (!cert || !cls) throw new AppError('rfc6492-protocol', { code: '2001', reason: 'no certificate was issued' })
        return { type: 'issue_response', cls: { ...cls, certificates: [certificateEntry(cert)] } }
      }
      case 'revoke': {
        const keyId = toHex(fromBase64Url(p.ski)).toUpperCase()
        await this.d.commands.run(s.handle, { type: 'child-revoke', handle: ch.handle, className: p.className, keyId }, `child:${ch.handle}`)
        return { type: 'revoke_response', className: p.className, ski: p.ski }
      }
      default:
        throw new AppError('rfc6492-type', { reason: `RFC 6492 §3.2: a parent does not answer '${p.type}'` })
    }
  }

  /** The list_response classes for a child (RFC 6492 §3.3.2). */
  private entitlements(s: CaState, child: string): ResourceClassEntitlement[] {
    const ch = childOf(s, child)
    return childEntitlements(s, ch, this.d.now(), this.d.commands.context().timing).map((e) => ({
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
}

type Decoded = { sender: string; msg: ProvisioningMessage } | { sender: string; error: AppError }

/** The message and its sender, or the labelled decoding failure to answer it with; a 400 when there is no sender. */
function decodeRequest(s: CaState, body: Uint8Array): Decoded {
  let xml: string
  try {
    xml = unwrapUnverified(body).xml
  } catch (e) {
    throw new AppError('rfc6492-cms', { ca: s.handle, reason: reasonOf(e) }, { cause: e })
  }
  try {
    const msg = decodeProvisioning(xml)
    if (!msg.sender) throw new AppError('rfc6492-xml', { ca: s.handle, reason: 'RFC 6492 §3.1: the message names no sender' })
    return { sender: msg.sender, msg }
  } catch (e) {
    if (!(e instanceof ProvisioningDecodeError)) throw e instanceof AppError ? e : new AppError('rfc6492-xml', { ca: s.handle, reason: reasonOf(e) }, { cause: e })
    const error = new AppError(DECODE_LABELS[e.kind], { ca: s.handle, reason: reasonOf(e) }, { cause: e })
    if (e.kind === 'xml' || !e.sender) throw new AppError('rfc6492-xml', error.args, { cause: e })
    return { sender: e.sender, error }
  }
}

/** RFC 6492 §3.4.1: the req_resource_set_* limits of an issue request, or 1203 (the request is badly formed). */
function requestLimit(limits: { asn?: string; ipv4?: string; ipv6?: string }) {
  try {
    return ResourceSet.parse({ asn: limits.asn ?? '', ipv4: limits.ipv4 ?? '', ipv6: limits.ipv6 ?? '' }).toJSON()
  } catch (e) {
    throw new AppError('rfc6492-invalid-csr', { reason: `RFC 6492 §3.4.1: req_resource_set_*: ${reasonOf(e)}` }, { cause: e })
  }
}

function certificateEntry(c: IssuedCert) {
  return { certUrl: c.uri, cert: fromBase64(c.der) }
}
