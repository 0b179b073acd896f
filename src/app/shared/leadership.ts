/**
 * Which role this svcd instance has among the instances sharing one database (design.md §7): the leader runs the
 * scheduler and produces RRDP serials, fenced by its epoch. The composition root holds the one value; today a single
 * instance is always the leader with epoch 0, and the leader-election code sets it as leadership changes. Read by
 * the metrics (app/metrics/).
 */

export type InstanceRole = 'leader' | 'follower'

/** The role and leader epoch of this instance, as they are now. */
export interface Leadership {
  role(): InstanceRole
  /** The epoch of the leadership this instance holds or last saw (0 for a single instance). */
  epoch(): number
}

/** A leadership value that the election code changes; starts as the single instance's (leader, epoch 0). */
export class LeadershipState implements Leadership {
  private current: { role: InstanceRole; epoch: number } = { role: 'leader', epoch: 0 }

  role(): InstanceRole {
    return this.current.role
  }

  epoch(): number {
    return this.current.epoch
  }

  /** Record a change of role; an epoch never goes back (a lower one is refused). */
  set(role: InstanceRole, epoch: number): void {
    if (!Number.isSafeInteger(epoch) || epoch < this.current.epoch) throw new RangeError(`leader epoch ${epoch} is not an integer at least ${this.current.epoch}`)
    this.current = { role, epoch }
  }
}
