/**
 * Parents of CAs (RFC 6492 client side; krill-reference.md §1.1 "Parents"): add, update and remove parents, sync
 * with them (now, in the background coalesced per parent, and on the scheduler's refresh), and show their status.
 * When a CA's certificates or entitlements change, its children in this svcd sync with it at once.
 */
import { parentContact, parentStatus } from './views.js'
import type { ParentContactJson, ParentStatusJson } from '../../api/cas.js'
import type { ParentInfo } from '../../ca/state.js'
import { AppError, reasonOf } from '../../errors.js'
import type { CaStatusStore } from '../../store/interfaces.js'
import type { Clock } from '../../util/clock.js'
import { toBase64 } from '../../util/base64.js'
import { Pacer } from '../shared/pacer.js'
import type { CaCommands } from './ca-commands.js'
import type { CaPublisher } from './ca-publisher.js'
import { caPath, parentInput } from './inputs.js'
import type { ParentClient } from './parent-client.js'
import type { TaskScheduling } from './ports.js'

export interface ParentServiceDeps {
  commands: Pick<CaCommands, 'exists' | 'handles' | 'state'>
  client: Pick<ParentClient, 'updown' | 'sync' | 'revokeAll'>
  publisher: Pick<CaPublisher, 'change' | 'publish'>
  status: Pick<CaStatusStore, 'get' | 'remove'>
  tasks: Pick<TaskScheduling, 'schedule' | 'unschedule'>
  now: () => Date
  /** The timers of each parent's sync pacer. */
  clock: Clock
  /** svcd's own service URI (its RFC 6492 endpoints are `<uri>rfc6492/<ca>`). */
  serviceUri: string
  /** The next refresh of a parent, ms from now (interval with jitter; shorter at start-up). */
  refreshDelay: (atStart: boolean) => number
}

export class ParentService {
  private readonly syncs = new Map<string, Pacer>()
  private stopped = false

  constructor(private readonly d: ParentServiceDeps) {}

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
    await this.d.publisher.change(ca, { type: update ? 'parent-update' : 'parent-add', parent })
    this.syncLater(ca, name)
    this.d.tasks.schedule('sync-parent', ca, name, this.d.now().getTime() + this.d.refreshDelay(false))
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
    await this.d.publisher.change(ca, { type: 'parent-remove', name: parent })
    this.d.status.remove(ca, 'parent', parent)
    this.d.tasks.unschedule('sync-parent', ca, parent)
  }

  /** Sync with all parents now (used by `parents add` waiters, bulk refresh and tests). */
  async caSyncParents(ca: string): Promise<void> {
    for (const p of Object.keys(this.d.commands.state(caPath(ca)).parents)) await this.sync(ca, p).catch(() => undefined)
  }

  /**
   * Sync with a parent now; a failure is recorded as the parent's issue (and rethrown to the caller). When our
   * certificates or entitlements changed, our children in this svcd sync with us at once: a certificate we could
   * not issue them before (ours had expired, say) or resources we no longer hold reach them now, not at their next
   * refresh. Children elsewhere learn at their next refresh, as RFC 6492 has it (the child asks).
   */
  async sync(handle: string, name: string): Promise<void> {
    const changed = await this.d.client.sync(handle, name)
    if (changed) {
      this.d.publisher.publish(handle)
      this.syncLocalChildren(handle)
    }
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
