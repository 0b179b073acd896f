/**
 * CAs as an application service: creating and deleting CAs (with their identity, and their registration as a
 * publisher in the embedded repository), running commands, keeping objects and the repository up to date
 * (per-CA pacers, so bursts of changes coalesce), syncing with parents, and answering children.
 */
import { toBase64 } from '../util/base64.js'
import { caHandle } from '../util/handle.js'
import { AppError, reasonOf } from '../errors.js'
import { initialState } from '../ca/cert-auth.js'
import { classDir } from '../ca/locations.js'
import { certRepository } from '../ca/parents.js'
import type { CaCommand } from '../ca/commands.js'
import { certifiedKeys, type CaState } from '../ca/state.js'
import { createIdCert } from '../protocol/id-cert.js'
import { certificateExpired, publishedFiles, updateObjects } from './ca-objects.js'
import { revokeAllUnder, syncParent, type LocalUpdown } from './ca-parents.js'
import { rfc6492 } from './ca-children.js'
import { ownPublisher, syncRepo } from './ca-repo.js'
import type { CaServices } from './ca-services.js'
import { Pacer } from './pacer.js'

/** True when every certified key's certificate points at the CA's current jail (its parents re-certified it). */
function movedCompletely(s: CaState): boolean {
  return Object.values(s.classes).every((rc) => [rc.current, rc.next, rc.old].every((k) => !k?.cert || certRepository(k.cert) === classDir(s, rc.name)))
}

export class CaManager {
  private readonly publishers = new Map<string, Pacer>()
  private readonly parentSyncs = new Map<string, Pacer>()
  private stopped = false

  constructor(readonly svc: CaServices) {}

  /** Deliver RFC 6492 messages to a parent CA in this svcd in-process (same checks, no network). */
  readonly local: LocalUpdown = (uri, cms) => {
    const prefix = `${this.svc.config.service_uri}rfc6492/`
    if (!uri.startsWith(prefix)) return undefined
    const ca = decodeURIComponent(uri.slice(prefix.length).replace(/\/$/, ''))
    return this.svc.cas.exists(ca) ? this.rfc6492(ca, cms) : undefined
  }

  /** Create a CA: identity key and certificate; registered in the embedded repository when there is one. */
  async add(handleText: string, opts: { ta?: (state: CaState) => Promise<Partial<CaState>> } = {}): Promise<void> {
    let handle: string
    try {
      handle = caHandle(handleText)
    } catch (e) {
      throw new AppError('ca-handle-invalid', { reason: reasonOf(e) })
    }
    const svc = this.svc
    await svc.commands.run(handle, async () => {
      if (svc.cas.exists(handle)) throw new AppError('ca-duplicate', { ca: handle })
      const keyId = await svc.signer.createKey()
      const idCert = createIdCert(svc.signer.signingKey(keyId), svc.now())
      let state = initialState(handle, keyId, toBase64(idCert))
      if (svc.pub) {
        const r = svc.pub.publisherAdd({ publisherHandle: handle, idCert })
        state.repo = { embedded: true, publisherHandle: handle, serviceUri: r.serviceUri, siaBase: r.siaBase, rrdpNotificationUri: r.rrdpNotificationUri ?? '', serverIdCert: toBase64(r.idCert) }
      }
      if (opts.ta) state = { ...state, ...(await opts.ta(state)) }
      const summary = { label: 'cmd-ca-init', msg: opts.ta ? `Initialise trust anchor '${handle}'` : `Initialise CA '${handle}'`, args: { ca: handle } }
      svc.cas.create({ handle, time: svc.now().toISOString(), actor: 'admin-token', kind: 'ca-init', summary, details: { type: 'ca-init', handle }, effect: { result: 'success', events: [] } }, state)
    })
    svc.log.info('CA created', { ca: handle })
    this.publish(handle)
  }

  /** Delete a CA: revoke its children's certificates, withdraw its objects, tell its parents (best effort). */
  async delete(handle: string): Promise<void> {
    const s = this.svc.state(handle)
    for (const name of Object.keys(s.parents)) await revokeAllUnder(this.svc, handle, name, this.local)
    for (const child of Object.keys(s.children)) await this.run(handle, { type: 'child-remove', handle: child })
    await this.publishers.get(handle)?.stop()
    this.publishers.delete(handle)
    await this.svc.publishing.run(handle, async () => {
      const state = this.svc.state(handle)
      if (state.repo) await syncRepo(this.svc, state, [])
      // Only the CA's own publisher goes with it (identity-checked): never one its repository settings merely name.
      for (const repo of [state.repo, state.oldRepo]) if (repo?.embedded) this.removeOwnPublisher(state, repo.publisherHandle)
    })
    await this.svc.commands.run(handle, () => this.svc.cas.remove(handle))
    this.svc.forget(handle)
    this.svc.log.info('CA deleted', { ca: handle })
  }

  /** Run a command and, when it changed anything, schedule publication. */
  async run(handle: string, cmd: CaCommand, actor?: string) {
    const r = await this.svc.run(handle, cmd, actor)
    if (r.events.length) this.publish(handle)
    return r
  }

  /** Ask for the CA's objects and repository to be brought up to date (coalesced; returns at once). */
  publish(handle: string): void {
    if (this.stopped) return
    let p = this.publishers.get(handle)
    if (!p) {
      p = new Pacer(() => this.publishNow(handle), 0, (e) => this.svc.log.error('publication failed', { ca: handle, err: reasonOf(e), stack: (e as Error)?.stack }))
      this.publishers.set(handle, p)
    }
    p.kick()
  }

  /** Resolves when the CA's pending publication work is done. */
  async flushed(handle: string): Promise<void> {
    await this.publishers.get(handle)?.idle()
  }

  /** Update objects now (forcing new manifests and CRLs with `force`) and sync the repository. */
  async publishNow(handle: string, force = false): Promise<void> {
    const svc = this.svc
    await svc.publishing.run(handle, async () => {
      if (!svc.cas.exists(handle)) return
      const state = svc.state(handle)
      const previous = svc.objects.load(handle)
      const upd = await updateObjects(state, previous, { now: svc.now(), signer: svc.signer, random: svc.random, timing: svc.objectsTiming(), force })
      if (upd.changed) svc.objects.save(handle, upd.keys)
      const time = svc.now().toISOString()
      if (upd.refused.length) {
        svc.log.error('objects refused by the self-check, not published', { ca: handle, refused: upd.refused })
        svc.status.record(handle, 'objects', 'objects', { time, uri: state.repo?.siaBase ?? '', result: 'failure', label: 'objects-invalid', msg: upd.refused.join('; '), args: { reason: upd.refused.join('; ') } })
      } else if (upd.expired.length) {
        const e = upd.expired[0]!
        const issue = new AppError('ca-cert-expired', { ca: handle, class_name: e.className, key: e.keyId, parent: e.parent, time: e.notAfter })
        svc.log.warn(issue.message, { ca: handle, expired: upd.expired.length })
        svc.status.record(handle, 'objects', 'objects', { time, uri: state.repo?.siaBase ?? '', result: 'failure', label: issue.label, msg: issue.message, args: issue.args })
      } else svc.status.remove(handle, 'objects', 'objects')
      // Ask for new certificates now rather than at the next refresh (the parent may have had none to give before).
      for (const parent of new Set(upd.expired.map((e) => e.parent))) if (state.parents[parent]) this.syncParentLater(handle, parent)
      const synced = await syncRepo(svc, state, publishedFiles(state, upd.changed ? upd.keys : previous))
      if (synced && state.oldRepo && movedCompletely(state)) await this.cleanOldRepo(state)
    })
  }

  /** Spec §3 rule 1, last step: every key is certified for the new jail, so the old repository is emptied. */
  private async cleanOldRepo(state: CaState): Promise<void> {
    const old = state.oldRepo!
    const ok = await syncRepo(this.svc, state, [], old)
    if (!ok) this.svc.log.warn('cleaning up the previous repository failed; it keeps the old objects (best effort)', { ca: state.handle, uri: old.serviceUri })
    await this.svc.run(state.handle, { type: 'repo-cleanup' }, 'svc')
    if (ok && old.embedded) this.removeOwnPublisher(state, old.publisherHandle)
    this.svc.status.record(state.handle, 'repo', 'repo', { time: this.svc.now().toISOString(), uri: state.repo!.serviceUri, result: 'success' })
    this.svc.log.info('moved to the new repository; the previous one was cleaned up', { ca: state.handle, old: old.serviceUri, new: state.repo!.serviceUri })
  }

  /** Remove an embedded publisher when it is the CA's own (its identity certificate); otherwise leave it and say so. */
  private removeOwnPublisher(state: CaState, publisher: string): void {
    if (!this.svc.pub?.store.publisher(publisher)) return
    try {
      ownPublisher(this.svc, state, publisher)
    } catch (e) {
      this.svc.log.warn('publisher left in place: it is not this CA\'s', { ca: state.handle, publisher, reason: reasonOf(e) })
      return
    }
    this.svc.pub.publisherRemove(publisher)
  }

  /**
   * When the CA's objects next need work (ms since the epoch): a manifest/CRL due for renewal, or a ROA close to
   * expiry; a CA without objects (or whose certificates all expired) is looked at again after one renewal interval.
   */
  nextRepublish(handle: string): number {
    const t = this.svc.config.timing
    const now = this.svc.now().getTime()
    let due = now + t.mft_reissue_seconds * 1000
    // Keys whose certificate expired have nothing to renew: their new certificate, when it comes, publishes at once.
    const expired = new Set(Object.values(this.svc.state(handle).classes).flatMap((rc) => certifiedKeys(rc)).filter((k) => certificateExpired(k.key.cert, new Date(now))).map((k) => k.key.keyId))
    for (const k of this.svc.objects.load(handle)) {
      if (expired.has(k.keyId)) continue
      due = Math.min(due, Date.parse(k.state.thisUpdate) + t.mft_reissue_seconds * 1000)
      for (const o of k.objects) if (o.kind === 'roa') due = Math.min(due, Date.parse(o.notAfter) - t.roa_reissue_before_seconds * 1000)
    }
    return Math.max(due, now + 1000)
  }

  /**
   * Sync with a parent now; a failure is recorded as the parent's issue (and rethrown to the caller). When our
   * certificates or entitlements changed, our children in this svcd sync with us at once: a certificate we could
   * not issue them before (ours had expired, say) or resources we no longer hold reach them now, not at their next
   * refresh. Children elsewhere learn at their next refresh, as RFC 6492 has it (the child asks).
   */
  async syncParent(handle: string, name: string): Promise<void> {
    const changed = await syncParent(this.svc, handle, name, this.local)
    if (changed) {
      this.publish(handle)
      this.syncLocalChildren(handle)
    }
  }

  /** Children of `parent` that are CAs in this svcd (all, or the one named `child`) sync with it in the background. */
  syncLocalChildren(parent: string, child?: string): void {
    const uri = `${this.svc.config.service_uri}rfc6492/${encodeURIComponent(parent)}`
    const children = this.svc.cas.load(parent)?.state.children ?? {}
    for (const ca of this.svc.cas.handles()) {
      const s = this.svc.cas.load(ca)?.state
      for (const p of Object.values(s?.parents ?? {})) {
        if (p.serviceUri === uri && (child === undefined ? p.childHandle in children : p.childHandle === child)) this.syncParentLater(ca, p.name)
      }
    }
  }

  /** Sync with a parent in the background, coalescing repeated requests. */
  syncParentLater(handle: string, name: string): void {
    if (this.stopped) return
    const key = `${handle}/${name}`
    let p = this.parentSyncs.get(key)
    if (!p) {
      p = new Pacer(() => this.syncParent(handle, name).catch(() => undefined), 0, () => undefined)
      this.parentSyncs.set(key, p)
    }
    p.kick()
  }

  async parentsIdle(): Promise<void> {
    await Promise.all([...this.parentSyncs.values()].map((p) => p.idle()))
  }

  /** Ask a parent to revoke all our keys under it (best effort, before the parent is removed). */
  revokeAll(handle: string, parent: string): Promise<void> {
    return revokeAllUnder(this.svc, handle, parent, this.local)
  }

  rfc6492(handle: string, body: Uint8Array): Promise<Uint8Array> {
    return rfc6492(this.svc, handle, body, (h) => this.publish(h))
  }

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all([...this.parentSyncs.values(), ...this.publishers.values()].map((p) => p.stop()))
  }
}
