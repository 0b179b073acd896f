/**
 * Which instance leads (design.md §7, issue 14 item 4): one svcd on its own database always leads; several on one
 * PostgreSQL database elect one through ClusterStore (an advisory lock held on a connection of its own). The leader
 * runs the scheduler and turns accepted changes into RRDP serials; the others serve the API, RFC 6492, RFC 8181 and
 * RRDP copied from the database. Every tick (a quarter of the lease) the leader beats and the others try to lead, and
 * end the session of a leader that has not beaten within the lease (hung, not dead: a dead one lost its lock with its
 * connection). `onLead` and `onFollow` run one at a time, in the order of the changes.
 */
import type { ClusterInstanceJson, ClusterJson } from '../../api/status.js'
import type { Logger } from '../../log.js'
import type { ClusterStore } from '../../store/interfaces.js'

export type Role = 'leader' | 'follower'

/** What the services ask of leadership: the role now, and the epoch to fence a leader-only write with. */
export interface Leadership {
  role(): Role
  /** The epoch this instance leads; throws when it does not lead (a write only the leader may make must stop). */
  epoch(): number
  /** Inside a transaction on the stores' database: throw unless this instance still leads with its epoch. */
  fence(): void
}

/** One svcd on its own database: always the leader, epoch 0, nothing to fence. */
export class SingleInstance implements Leadership {
  constructor(
    private readonly id: string,
    private readonly url: string,
    private readonly started: Date,
    private readonly served: () => { session?: string; serial?: number },
  ) {}

  role(): Role {
    return 'leader'
  }

  epoch(): number {
    return 0
  }

  fence(): void {}

  view(): ClusterJson {
    const s = this.served()
    const now = Math.floor(Date.now() / 1000)
    const me: ClusterInstanceJson = {
      id: this.id, url: this.url, role: 'leader', epoch: 0, started: Math.floor(this.started.getTime() / 1000), last_heartbeat: now, heartbeat_age_seconds: 0,
      ...(s.session ? { rrdp_session: s.session, rrdp_serial: s.serial } : {}), lag: 0,
    }
    return { mode: 'single', epoch: 0, leader: this.id, this_instance: this.id, instances: [me] }
  }
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
  /** After each tick: the role and the leader epoch this instance holds or last saw (for the metrics). */
  observed?: (role: Role, epoch: number) => void
  log: Logger
}

export class ClusterService implements Leadership {
  private leading: number | undefined
  private timer: NodeJS.Timeout | undefined
  private ticking: Promise<void> | undefined
  private stopped = false
  /** Role changes, one at a time and in order. */
  private changes: Promise<void> = Promise.resolve()

  constructor(private readonly d: ClusterServiceDeps) {}

  role(): Role {
    return this.leading === undefined ? 'follower' : 'leader'
  }

  epoch(): number {
    if (this.leading === undefined) throw new Error('this instance is not the leader')
    return this.leading
  }

  fence(): void {
    this.d.store.fence(this.epoch())
  }

  /** The first tick now (the first instance of a database leads from its start), then one every quarter lease. */
  async start(): Promise<void> {
    await this.tick()
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.d.leaseMs / 4)))
  }

  /** Stop ticking; a leader steps down (its lock is released at once, so another instance leads at its next tick). */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
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

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve()
    this.ticking = this.tickOnce()
      .catch((e: unknown) => this.d.log.warn('cluster heartbeat failed', { err: (e as Error).message }))
      .finally(() => (this.ticking = undefined))
    return this.ticking
  }

  private async tickOnce(): Promise<void> {
    if (this.leading !== undefined) {
      if (!(await this.d.store.beat(this.leading))) await this.follow('lost the leader lock or a newer epoch began')
    } else {
      const epoch = await this.d.store.tryLead(this.d.id)
      if (epoch !== undefined) await this.lead(epoch)
      else if (await this.d.store.endStaleLeader(this.d.leaseMs)) this.d.log.warn('ended the session of a leader that stopped beating', { lease_ms: this.d.leaseMs })
    }
    const s = this.d.served()
    const r = await this.d.store.report({ id: this.d.id, url: this.d.url, role: this.role(), epoch: this.leading ?? 0, started: this.d.started.toISOString(), ...s })
    this.d.observed?.(this.role(), this.leading ?? r.epoch)
  }

  private async lead(epoch: number): Promise<void> {
    this.leading = epoch
    this.d.log.info('this instance leads', { id: this.d.id, epoch })
    await (this.changes = this.changes.then(() => this.d.onLead(epoch)).catch((e: unknown) => this.d.log.error('taking the lead failed', { err: (e as Error).message })))
  }

  private async follow(why: string): Promise<void> {
    const epoch = this.leading
    this.leading = undefined
    this.d.log.warn('this instance no longer leads', { id: this.d.id, epoch, why })
    await this.d.store.resign().catch(() => undefined)
    await (this.changes = this.changes.then(() => this.d.onFollow()).catch((e: unknown) => this.d.log.error('stepping down failed', { err: (e as Error).message })))
  }
}
