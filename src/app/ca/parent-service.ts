/**
 * Parents of CAs (RFC 6492 client side; krill-reference.md §1.1 "Parents"): add, update and remove parents, sync
 * with them (now, in the background coalesced per parent, and on the scheduler's refresh, every interval with random
 * jitter), and show their status. What follows a change (a sync with a new parent, children in this svcd syncing
 * with us once our certificates change) is decided by the table of follow-ups.ts, which CaFollowUps applies through
 * the methods here.
 */
import { parentContact, parentStatus } from './views.js'
import type { ParentContactJson, ParentStatusJson } from '../../api/cas.js'
import type { ParentInfo } from '../../ca/state.js'
import { AppError, reasonOf } from '../../errors.js'
import type { CaStatusStore } from '../../store/interfaces.js'
import { toBase64 } from '../../util/base64.js'
import { Pacer } from '../shared/pacer.js'
import { Slots } from '../shared/slots.js'
import type { Clock, Random } from '../../util/clock.js'
import type { CaCommands } from './ca-commands.js'
import { caPath, parentInput } from './inputs.js'
import type { ParentClient } from './parent-client.js'
import type { TaskScheduling } from './ports.js'

export interface ParentServiceDeps {
  commands: Pick<CaCommands, 'exists' | 'handles' | 'state' | 'run'>
  client: Pick<ParentClient, 'updown' | 'sync' | 'revokeAll'>
  status: Pick<CaStatusStore, 'get' | 'remove'>
  tasks: Pick<TaskScheduling, 'schedule' | 'unschedule'>
  now: () => Date
  /** The jitter of the refreshes. */
  random: Pick<Random, 'fraction'>
  /** A parent is asked every `everySeconds` plus up to `jitterSeconds` (config timing.parent_refresh_*). */
  refresh: { everySeconds: number; jitterSeconds: number }
  /** The timers of each parent's sync pacer. */
  clock: Clock
  /** svcd's own service URI (its RFC 6492 endpoints are `<uri>rfc6492/<ca>`). */
  serviceUri: string
  /** Parent syncs at once at most, of every CA and whoever asks (config timing.parent_sync_concurrency; default 10). */
  concurrency?: number
}

/** At start-up the refreshes of all parents are spread over at most this long (and at most the jitter). */
const START_SPREAD_MS = 60_000

export class ParentService {
  private readonly syncs = new Map<string, Pacer>()
  /** Every sync takes one (issue 28 §4): a parent that never answers holds one until its request times out. */
  private readonly slots: Slots
  /** The sync of a parent now (`ca\0parent`), and the one asked for meanwhile, which runs once it is done. */
  private readonly perParent = new Map<string, { current: Promise<void>; queued?: Promise<void> }>()
  private stopped = false

  constructor(private readonly d: ParentServiceDeps) {
    this.slots = new Slots(d.concurrency ?? 10)
  }

  /**
   * Add a parent from an RFC 8183 parent response, then sync with it at once. With `name` (POST …/parents/{name})
   * the parent is added when it does not exist yet and its response replaced when it does: Krill's add-or-update
   * (krill:src/daemon/http/dispatch/cas.rs); without, a parent of that name already there is a duplicate.
   */
  async caParentAdd(ca: string, input: { json: unknown } | { xml: string }, opts: { name?: string } = {}): Promise<void> {
    const s = this.d.commands.state(caPath(ca))
    const { name, response } = parentInput(input, opts.name, this.d.now())
    const parent: ParentInfo = { name, parentHandle: response.parentHandle, childHandle: response.childHandle, serviceUri: response.serviceUri, idCert: toBase64(response.idCert) }
    const update = opts.name !== undefined && name in s.parents
    // Ask the parent first (a real RFC 6492 list): a response for another child, or an unreachable parent, is
    // refused here and nothing changes.
    try {
      const r = await this.d.client.updown(s, parent, { type: 'list' })
      if (r.type !== 'list_response') throw new Error(`the parent answered a list query with '${r.type}'`)
    } catch (e) {
      throw new AppError('ca-parent-issue', { ca, parent: name, reason: reasonOf(e) })
    }
    await this.d.commands.run(ca, { type: update ? 'parent-update' : 'parent-add', parent })
  }

  caParentContact(ca: string, parent: string): ParentContactJson {
    const s = this.d.commands.state(caPath(ca))
    if (!s.parents[parent]) throw new AppError('ca-parent-unknown', { ca, parent })
    return parentContact(s, parent)
  }

  caParentStatuses(ca: string): Record<string, ParentStatusJson> {
    const s = this.d.commands.state(caPath(ca))
    return Object.fromEntries(Object.keys(s.parents).sort().map((p) => [p, parentStatus(s, p, this.d.status.get(ca, 'parent', p))]))
  }

  async caParentRemove(ca: string, parent: string): Promise<void> {
    const s = this.d.commands.state(caPath(ca))
    if (!s.parents[parent]) throw new AppError('ca-parent-unknown', { ca, parent })
    await this.d.client.revokeAll(ca, parent)
    await this.d.commands.run(ca, { type: 'parent-remove', name: parent })
  }

  /**
   * Sync with all parents now, side by side up to the bound (used by `parents add` waiters, bulk refresh and tests):
   * a parent that does not answer delays none of the others (issue 28 §4), only this call's answer.
   */
  async caSyncParents(ca: string): Promise<void> {
    await Promise.all(Object.keys(this.d.commands.state(caPath(ca)).parents).map((p) => this.sync(ca, p).catch(() => undefined)))
  }

  /**
   * Sync with a parent now; a failure is recorded as the parent's issue (and rethrown to the caller). What changed
   * is published, and our children in this svcd learn of a new certificate of ours at once (follow-ups.ts); children
   * elsewhere learn at their next refresh, as RFC 6492 has it (the child asks). Runs in one of the bounded slots.
   */
  sync(handle: string, name: string): Promise<void> {
    const key = `${handle}\0${name}`
    const entry = this.perParent.get(key)
    if (!entry) return this.startSync(key, handle, name)
    // One sync per parent at a time, whoever asks: a hung parent holds one slot, however often it is asked meanwhile.
    entry.queued ??= entry.current.catch(() => undefined).then(() => this.startSync(key, handle, name))
    return entry.queued
  }

  private startSync(key: string, handle: string, name: string): Promise<void> {
    // A sync still waiting for a slot when svcd stops does not start (the scheduler's task is asked again after a restart).
    const run = () => (this.stopped ? Promise.reject(new Error('svcd is stopping: the parent sync did not start')) : this.d.client.sync(handle, name))
    const current: Promise<void> = this.slots.run(run).finally(() => {
      const e = this.perParent.get(key)
      if (e?.current === current && !e.queued) this.perParent.delete(key)
    })
    this.perParent.set(key, { current })
    return current
  }

  /** The next refresh of a parent, ms from now: the interval plus jitter, or within the start-up spread (design.md §3). */
  refreshDelay(atStart: boolean): number {
    const jitter = this.d.random.fraction() * this.d.refresh.jitterSeconds * 1000
    return atStart ? Math.min(jitter, START_SPREAD_MS) : this.d.refresh.everySeconds * 1000 + jitter
  }

  /** (Re)schedule the periodic refresh of a parent (a new or changed parent: follow-ups.ts 'refresh-parent'). */
  scheduleRefresh(ca: string, parent: string): void {
    this.d.tasks.schedule('sync-parent', ca, parent, this.d.now().getTime() + this.refreshDelay(false))
  }

  /** A removed parent's refresh task and exchange status go (follow-ups.ts 'forget-parent'). */
  forget(ca: string, parent: string): void {
    this.d.status.remove(ca, 'parent', parent)
    this.d.tasks.unschedule('sync-parent', ca, parent)
  }

  /** Sync with every parent of a CA in the background (after a key roll or a repository change). */
  syncAllLater(handle: string): void {
    for (const p of Object.keys(this.d.commands.state(handle).parents)) this.syncLater(handle, p)
  }

  /** Sync with a parent in the background, coalescing repeated requests. */
  syncLater(handle: string, name: string): void {
    if (this.stopped) return
    const key = `${handle}/${name}`
    let p = this.syncs.get(key)
    if (!p) {
      p = new Pacer(() => this.sync(handle, name).catch(() => undefined), 0, () => undefined, this.d.clock)
      this.syncs.set(key, p)
    }
    p.kick()
  }

  /** Children of `parent` that are CAs in this svcd (all, or the one named `child`) sync with it in the background. */
  syncLocalChildren(parent: string, child?: string): void {
    const uri = `${this.d.serviceUri}rfc6492/${encodeURIComponent(parent)}`
    const children = this.d.commands.exists(parent) ? this.d.commands.state(parent).children : {}
    for (const ca of this.d.commands.handles()) {
      if (!this.d.commands.exists(ca)) continue
      for (const p of Object.values(this.d.commands.state(ca).parents)) {
        if (p.serviceUri === uri && (child === undefined ? p.childHandle in children : p.childHandle === child)) this.syncLater(ca, p.name)
      }
    }
  }

  /** Ask every parent of a CA to revoke its keys (best effort, before the CA is deleted). */
  async revokeAll(handle: string): Promise<void> {
    for (const name of Object.keys(this.d.commands.state(handle).parents)) await this.d.client.revokeAll(handle, name)
  }

  /** Resolves when no background parent sync is running. */
  async idle(): Promise<void> {
    await Promise.all([...this.syncs.values()].map((p) => p.idle()))
  }

  async stop(): Promise<void> {
    this.stopped = true
    await Promise.all([...this.syncs.values()].map((p) => p.stop()))
  }
}
