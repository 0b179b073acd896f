/**
 * Which role this svcd instance has among the instances sharing one database (design.md §7): the leader runs the
 * scheduler and produces RRDP serials, and fences its writes with its epoch. The one `Leadership` interface of svcd:
 * a single instance on its own database (SingleInstance, here) always leads with epoch 0; several on one PostgreSQL
 * database elect one (ClusterService, cluster.ts). Read by the services that write as the leader and by the metrics.
 */
import type { ClusterInstanceJson, ClusterJson } from '../../api/status.js'
import type { Clock } from '../../util/clock.js'

export type Role = 'leader' | 'follower'

/** The role of this instance now, its leader epoch, and the fence of a write only the leader may make. */
export interface Leadership {
  role(): Role
  /** The epoch of the leadership this instance holds, or of the last one it saw while following (0 for a single instance). */
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
    private readonly clock: Pick<Clock, 'now'>,
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
    const now = Math.floor(this.clock.now() / 1000)
    const me: ClusterInstanceJson = {
      id: this.id, url: this.url, role: 'leader', epoch: 0, started: Math.floor(this.started.getTime() / 1000), last_heartbeat: now, heartbeat_age_seconds: 0,
      ...(s.session ? { rrdp_session: s.session, rrdp_serial: s.serial } : {}), lag: 0,
    }
    return { mode: 'single', epoch: 0, leader: this.id, this_instance: this.id, instances: [me] }
  }
}
