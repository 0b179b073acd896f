/**
 * Leader election among several svcd on one PostgreSQL database (design.md §7, issue 14 item 4) through ClusterStore
 * (an advisory lock held on a connection of its own); a single instance is SingleInstance (leadership.ts). The leader
 * runs the scheduler and turns accepted changes into RRDP serials; the others serve the API, RFC 6492, RFC 8181 and
 * RRDP copied from the database. The leader beats every quarter of the lease. A follower tries to take the lock
 * several times a second (a dead leader's lock is free the moment its connection drops, so failover takes one such
 * try, issue 23 item 6), and every quarter lease reports itself and ends the session of a leader that has not beaten
 * within the lease (hung, not dead). `onLead` and `onFollow` run one at a time, in the order of the changes, beside the
 * heartbeat: a new leader's catching up never delays its beats. Timers come from the injected Clock.
 */
import type { ClusterInstanceJson, ClusterJson } from '../../api/status.js'
import type { Logger } from '../../log.js'
import type { ClusterStore } from '../../store/interfaces.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import type { Leadership, Role } from './leadership.js'
import { detached } from './acting.js'

/** How often a follower tries to take the lock: a twentieth of the lease, between 100 and 250 ms. */
export function tryEveryMs(leaseMs: number): number {
  return Math.min(250, Math.max(100, Math.floor(leaseMs / 20)))
}

/** How often the leader beats and every instance reports: a quarter of the lease, at least 100 ms. */
export function beatEveryMs(leaseMs: number): number {
  return Math.max(100, Math.floor(leaseMs / 4))
}

export interface ClusterServiceDeps {
  store: ClusterStore
  id: string
  url: string
  started: Date
  /** Leadership is lost this long after the last heartbeat (issue 14: at most 10 s by default). */
  leaseMs: number
  /** The RRDP session and serial this instance serves. */
  served: () => { session?: string; serial?: number }
  onLead: (epoch: number) => Promise<void>
  onFollow: () => Promise<void>
  log: Logger
  clock: Clock
}

export class ClusterService implements Leadership {
  private leading: number | undefined
  /** The leader epoch last seen in the database (this instance's own while it leads). */
  private seen = 0
  /** When this instance last reported itself (and, following, looked for a hung leader). */
  private lastReport = -Infinity
  private timer: TimerHandle | undefined
  /** When the armed tick is due (its lateness, logged when this instance takes the lead, is event-loop lag). */
  private dueAt = 0
  private ticking: Promise<void> | undefined
  private stopped = false
  /** When this instance last took or renewed its lease as the leader (ms), for the watchdog (issue 26 §5). */
  private renewedAt: number | undefined
  /** Role changes, one at a time and in order. */
  private changes: Promise<void> = Promise.resolve()

  constructor(private readonly d: ClusterServiceDeps) {}

  role(): Role {
    return this.leading === undefined ? 'follower' : 'leader'
  }

  epoch(): number {
    return this.leading ?? this.seen
  }

  /** For the watchdog: whether this instance leads, and when it last renewed its lease (a hung beat shows here). */
  stallView(): { leading: boolean; renewedAt: number | undefined; leaseMs: number } {
    return { leading: this.leading !== undefined, renewedAt: this.renewedAt, leaseMs: this.d.leaseMs }
  }

  fence(): void {
    if (this.leading === undefined) throw new Error('this instance is not the leader')
    this.d.store.fence(this.leading)
  }

  /** The first tick now (the first instance of a database leads from its start), then the next after each tick. */
  async start(): Promise<void> {
    this.dueAt = this.d.clock.now()
    await this.tick()
    this.arm()
    await this.changes // an instance that leads from its start has taken the lead (onLead done) when start resolves
  }

  /** Stop ticking; a leader steps down (its lock is released at once, so another instance leads at its next try). */
  async stop(): Promise<void> {
    this.stopped = true
    this.d.clock.clear(this.timer)
    await this.ticking
    if (this.leading !== undefined) await this.follow('stopping')
    await this.changes
    await this.d.store.close()
  }

  /** What GET /api/v1/cluster answers. */
  async view(): Promise<ClusterJson> {
    const v = await this.d.store.view()
    const leaderSerial = v.instances.find((i) => i.id === v.leader.leader)?.serial
    const instances = v.instances.map((i): ClusterInstanceJson => ({
      id: i.id, url: i.url, role: i.role, epoch: i.epoch, started: Math.floor(Date.parse(i.started) / 1000),
      last_heartbeat: Math.floor(i.heartbeat / 1000), heartbeat_age_seconds: Math.max(0, Math.round((v.now - i.heartbeat) / 1000)),
      ...(i.session !== undefined ? { rrdp_session: i.session, rrdp_serial: i.serial } : {}),
      lag: leaderSerial !== undefined && i.serial !== undefined ? Math.max(0, leaderSerial - i.serial) : 0,
    }))
    return { mode: 'cluster', epoch: v.leader.epoch, ...(v.leader.leader ? { leader: v.leader.leader } : {}), this_instance: this.d.id, instances }
  }

  /** The next tick: a beat's interval while leading, a try's while following. */
  private arm(): void {
    if (this.stopped) return
    const ms = this.leading === undefined ? tryEveryMs(this.d.leaseMs) : beatEveryMs(this.d.leaseMs)
    this.dueAt = this.d.clock.now() + ms
    this.timer = this.d.clock.setTimeout(() => detached(() => void this.tick().finally(() => this.arm())), ms, { background: true })
  }

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve()
    this.ticking = this.tickOnce()
      .catch((e: unknown) => this.d.log.warn('cluster heartbeat failed', { err: (e as Error).message }))
      .finally(() => (this.ticking = undefined))
    return this.ticking
  }

  private async tickOnce(): Promise<void> {
    const began = this.d.clock.now()
    const due = began - this.lastReport >= beatEveryMs(this.d.leaseMs)
    let changed = false
    if (this.leading !== undefined) {
      if (!(await this.d.store.beat(this.leading))) changed = await this.follow('lost the leader lock or a newer epoch began')
      else this.renewedAt = this.d.clock.now()
    } else {
      const epoch = await this.d.store.tryLead(this.d.id)
      // How late the tick ran (event-loop lag) and how long the try took (the database), for failover diagnostics.
      if (epoch !== undefined) changed = this.lead(epoch, { tick_late_ms: Math.max(0, began - this.dueAt), try_ms: this.d.clock.now() - began })
      else if (due && (await this.d.store.endStaleLeader(this.d.leaseMs))) this.d.log.warn('ended the session of a leader that stopped beating', { lease_ms: this.d.leaseMs })
    }
    if (!due && !changed) return
    this.lastReport = this.d.clock.now()
    const s = this.d.served()
    const r = await this.d.store.report({ id: this.d.id, url: this.d.url, role: this.role(), epoch: this.leading ?? 0, started: this.d.started.toISOString(), ...s })
    this.seen = Math.max(this.seen, this.leading ?? r.epoch)
  }

  /** This instance took the lock with `epoch`; onLead runs after the changes before it, beside the heartbeat. */
  private lead(epoch: number, timing: { tick_late_ms: number; try_ms: number }): true {
    this.leading = epoch
    this.renewedAt = this.d.clock.now()
    this.seen = Math.max(this.seen, epoch)
    this.d.log.info('this instance leads', { id: this.d.id, epoch, ...timing })
    this.changes = this.changes.then(() => this.d.onLead(epoch)).catch((e: unknown) => this.d.log.error('taking the lead failed', { err: (e as Error).message }))
    return true
  }

  /** This instance no longer leads: the lock's connection is closed, then onFollow runs after the changes before it. */
  private async follow(why: string): Promise<true> {
    const epoch = this.leading
    this.leading = undefined
    this.d.log.warn('this instance no longer leads', { id: this.d.id, epoch, why })
    await this.d.store.resign().catch(() => undefined)
    this.changes = this.changes.then(() => this.d.onFollow()).catch((e: unknown) => this.d.log.error('stepping down failed', { err: (e as Error).message }))
    return true
  }
}
