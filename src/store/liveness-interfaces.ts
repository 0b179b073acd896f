/**
 * The storage interface of the liveness service's state (design.md §11, issue 26): each CA's liveness as of its last
 * check, with what the rules remember between checks. Re-exported by store/interfaces.ts. Derived state: a follower
 * and a restarted svcd show it, and a child's nonFunctionalSince survives restarts; it is not copied by svcd
 * migrate/backup (the next check rebuilds it, observation starts anew).
 */
import type { PointMemory } from '../liveness/liveness.js'
import type { CaLiveness } from '../liveness/model.js'

/** Stored in liveness_state.state (JSON): changing this shape needs a migration. */
export interface StoredLiveness {
  liveness: CaLiveness
  /** What the rules remember per point, by the point's directory (rsync URI). */
  memory: Record<string, PointMemory>
}

export interface LivenessStore {
  /** Every CA's stored liveness. */
  all(): StoredLiveness[]
  /** Replace the CAs' rows in `rows` and remove the rows of CAs not in `keep` (deleted CAs), in one transaction. */
  save(rows: readonly StoredLiveness[], keep: readonly string[]): void
}
