/**
 * Keeping each CA's objects and repository up to date (design.md §1, §6): re-issue what is due (objects.ts), store
 * the result, and bring the repository in line with one RFC 8181 delta. Asked to by CaFollowUps after a change (the
 * table of follow-ups.ts), by the renewal task and by the bulk and sync requests. Bursts of changes coalesce (a pacer
 * per CA); work on one CA's objects and repository runs one at a time. Failures are the CA's issues (status store),
 * cleared by the next success. After a repository move, the old repository is emptied once every key is certified
 * under the new one.
 */
import { samePublisher } from '../../ca/cert-auth.js'
import { classDir } from '../../ca/locations.js'
import type { PublishedFile } from '../../ca/object-model.js'
import { certRepository } from '../../ca/parents.js'
import { nextRenewal } from '../../ca/renewal.js'
import { repoDelta } from '../../ca/repo-delta.js'
import type { CaState, RepoInfo } from '../../ca/state.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError, reasonOf } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { CaObjectsStore, CaStatusStore, CaStore, SharedLocks } from '../../store/interfaces.js'
import type { Clock } from '../../util/clock.js'
import { KeyedMutex } from '../shared/keyed-mutex.js'
import { Pacer } from '../shared/pacer.js'
import type { CaCommands } from './ca-commands.js'
import { publishedFiles, updateObjects, type ObjectsTiming } from './objects.js'
import type { RepoClient } from './repo-client.js'

export interface CaPublisherDeps {
  commands: CaCommands
  objects: CaObjectsStore
  status: CaStatusStore
  /** Where publications are recorded for `history --full`. */
  history: Pick<CaStore, 'appendPublication'>
  repo: RepoClient
  /** Several instances on one database: the CA's lock among them, held with the in-process one. */
  locks?: SharedLocks | undefined
  signer: Signer
  now: () => Date
  /** The timers of each CA's publication pacer. */
  clock: Clock
  random: (n: number) => Uint8Array
  log: Logger
  timing: ObjectsTiming
  /** A key's certificate expired: ask its parent again now rather than at the next refresh. */
  certificateExpired: (ca: string, parent: string) => void
  /** The embedded publisher `publisher` is no longer needed by CA `ca` (after a move or a delete). */
  releasePublisher: (s: CaState, publisher: string) => void
  /** A remote repository accepted the CA's changes (the liveness check after a publication; the embedded one tells on its own). */
  published?: (ca: string) => void
}

/** True when every certified key's certificate points at the CA's current jail (its parents re-certified it). */
function movedCompletely(s: CaState): boolean {
  return Object.values(s.classes).every((rc) => [rc.current, rc.next, rc.old].every((k) => !k?.cert || certRepository(k.cert) === classDir(s, rc.name)))
}

export class CaPublisher {
  private readonly pacers = new Map<string, Pacer>()
  /** Serialises object updates and repository syncs per CA (and, with `locks`, among the instances). */
  private readonly lock: KeyedMutex
  private stopped = false

  constructor(private readonly d: CaPublisherDeps) {
    this.lock = new KeyedMutex(d.locks)
  }

  /** Ask for the CA's objects and repository to be brought up to date (coalesced; returns at once). CaFollowUps asks. */
  publish(handle: string): void {
    if (this.stopped) return
    let p = this.pacers.get(handle)
    if (!p) {
      p = new Pacer(() => this.publishNow(handle), 0, (e) => this.d.log.error('publication failed', { ca: handle, err: reasonOf(e), stack: (e as Error)?.stack }), this.d.clock)
      this.pacers.set(handle, p)
    }
    p.kick()
  }

  /** For the watchdog (issue 26 §5): each CA's publication run pending or running, since when. */
  pacerHealth(): { name: string; pendingSince?: number; runningSince?: number }[] {
    return [...this.pacers].map(([ca, p]) => ({ name: `publish:${ca}`, ...p.health() }))
  }

  /** Resolves when the CA's pending publication work is done. */
  async flushed(handle: string): Promise<void> {
    await this.pacers.get(handle)?.idle()
  }

  /** Run `fn` with the CA's objects and repository to itself (deleting a CA). */
  locked<T>(handle: string, fn: () => Promise<T>): Promise<T> {
    return this.lock.run(handle, fn)
  }

  /** Stop the CA's pacer (its CA is being deleted). */
  async forget(handle: string): Promise<void> {
    await this.pacers.get(handle)?.stop()
    this.pacers.delete(handle)
  }

  /** Update objects now (forcing new manifests and CRLs with `force`) and sync the repository. */
  async publishNow(handle: string, force = false): Promise<void> {
    const d = this.d
    await this.lock.run(handle, async () => {
      if (!d.commands.exists(handle)) return
      const state = d.commands.state(handle)
      const previous = d.objects.load(handle)
      const upd = await updateObjects(state, previous, { now: d.now(), signer: d.signer, random: d.random, timing: d.timing, force })
      if (upd.changed) d.objects.save(handle, upd.keys)
      const time = d.now().toISOString()
      const uri = state.repo?.siaBase ?? ''
      if (upd.refused.length) {
        d.log.error('objects refused by the self-check, not published', { ca: handle, refused: upd.refused })
        d.status.record(handle, 'objects', 'objects', { time, uri, result: 'failure', label: 'objects-invalid', msg: upd.refused.join('; '), args: { reason: upd.refused.join('; ') } })
      } else if (upd.expired.length) {
        const e = upd.expired[0]!
        const issue = new AppError('ca-cert-expired', { ca: handle, class_name: e.className, key: e.keyId, parent: e.parent, time: e.notAfter })
        d.log.warn(issue.message, { ca: handle, expired: upd.expired.length })
        d.status.record(handle, 'objects', 'objects', { time, uri, result: 'failure', label: issue.label, msg: issue.message, args: issue.args })
      } else d.status.remove(handle, 'objects', 'objects')
      // Ask for new certificates now rather than at the next refresh (the parent may have had none to give before).
      for (const parent of new Set(upd.expired.map((e) => e.parent))) if (state.parents[parent]) d.certificateExpired(handle, parent)
      const synced = await this.sync(state, publishedFiles(state, upd.changed ? upd.keys : previous))
      if (synced && state.oldRepo && movedCompletely(state)) await this.cleanOldRepo(state)
    })
  }

  /** Sync the CA's files to its repository (or `to`, e.g. the previous one); records the repository status either way. */
  async sync(s: CaState, files: readonly PublishedFile[], to: RepoInfo | undefined = s.repo): Promise<boolean> {
    const repo = to
    if (!repo) return false
    const d = this.d
    const time = d.now().toISOString()
    try {
      const held = await d.repo.list(s, repo)
      const pdus = repoDelta(held, files, repo.siaBase)
      if (pdus.length) {
        const reply = await d.repo.exchange(s, repo, { type: 'delta', pdus })
        if (reply.type !== 'success') throw new Error(`the repository refused the update: ${reply.type === 'error_reply' ? reply.errors.map((e) => `${e.code}${e.text ? ` (${e.text})` : ''}`).join(', ') : reply.type}`)
        const published = pdus.filter((p) => p.type === 'publish').length
        const withdrawn = pdus.length - published
        d.history.appendPublication(s.handle, time, { label: 'pub-publish', msg: `Publish ${published} and withdraw ${withdrawn} objects at ${repo.serviceUri}`, args: { published: String(published), withdrawn: String(withdrawn), uri: repo.serviceUri } })
        if (!repo.embedded) d.published?.(s.handle)
      }
      d.status.record(s.handle, 'repo', 'repo', { time, uri: repo.serviceUri, result: 'success' })
      return true
    } catch (e) {
      d.log.warn('repository sync failed', { ca: s.handle, uri: repo.serviceUri, reason: reasonOf(e) })
      d.status.record(s.handle, 'repo', 'repo', { time, uri: repo.serviceUri, result: 'failure', label: 'ca-repo-issue', msg: reasonOf(e), args: { ca: s.handle, uri: repo.serviceUri } })
      return false
    }
  }

  /** Spec §3 rule 1, last step: every key is certified for the new jail, so the old repository is emptied. */
  private async cleanOldRepo(state: CaState): Promise<void> {
    const d = this.d
    const old = state.oldRepo!
    if (state.repo && samePublisher(old, state.repo)) {
      // Issue 22 defect 5: never empty or release the publisher the CA has moved to (it holds the current objects).
      await d.commands.run(state.handle, { type: 'repo-cleanup' }, 'svc')
      d.log.info('the previous repository is the current publisher: nothing to clean up', { ca: state.handle, publisher: old.publisherHandle, uri: state.repo.serviceUri })
      return
    }
    const ok = await this.sync(state, [], old)
    if (!ok) d.log.warn('cleaning up the previous repository failed; it keeps the old objects (best effort)', { ca: state.handle, uri: old.serviceUri })
    await d.commands.run(state.handle, { type: 'repo-cleanup' }, 'svc')
    if (ok && old.embedded) d.releasePublisher(state, old.publisherHandle)
    d.status.record(state.handle, 'repo', 'repo', { time: d.now().toISOString(), uri: state.repo!.serviceUri, result: 'success' })
    d.log.info('moved to the new repository; the previous one was cleaned up', { ca: state.handle, old: old.serviceUri, new: state.repo!.serviceUri })
  }

  /** When the CA's objects next need work (ms since the epoch; ca/renewal.ts). */
  nextRepublish(handle: string): number {
    return nextRenewal(this.d.commands.state(handle), this.d.objects.summaries(handle), this.d.now(), this.d.timing)
  }

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all([...this.pacers.values()].map((p) => p.stop()))
  }
}
