/**
 * How the liveness services meet (design.md §11, issue 26): the fetcher reads repositories as relying parties do, the
 * liveness service checks what it read against what each CA believes it published, and every producer of a condition
 * (the liveness service, the publication stall and the queues' watchdog) reports the conditions that hold now to the
 * alert service, which raises and clears alarms and tells the webhooks. compose-liveness.ts wires them.
 */
import type { CaLiveness, Condition, FetchedRepository, Transport } from '../../liveness/model.js'

/** Reads one repository over one transport as a relying party would (RRDP over HTTPS, or the rsync client). */
export interface RepositoryFetcher {
  /**
   * `source`: the notification URI (rrdp) or an rsync URI of a directory (rsync: everything below it). Never throws:
   * a failure is a FetchedRepository with `error` and no files. Keeps what it fetched before, so that the next fetch
   * of the same source reads only the changes (RRDP deltas, rsync's own transfer).
   */
  fetch(transport: Transport, source: string): Promise<FetchedRepository>
  /**
   * Forget what was kept for every source not in `sources` (a child removed, a CA moved to another repository), so
   * that what is kept never outgrows the repositories checked now.
   */
  retain(sources: Record<Transport, ReadonlySet<string>>): void
}

/** Where conditions go: the alert service. */
export interface AlarmSink {
  /**
   * Every condition of `source` that holds now ("liveness", "publication", "queues", …): an alarm of that source not
   * in `conditions` is cleared, a new one raised. Cheap and synchronous; delivery happens in the background.
   */
  report(source: string, conditions: readonly Condition[]): void
}

/** What the API, the console, svcc and /metrics read of the liveness service. */
export interface LivenessView {
  /** Each CA's liveness as of its last check (every CA of this svcd, the TA included; unchecked ones without checkedAt). */
  all(): CaLiveness[]
  /** One CA's, or undefined for an unknown CA. */
  get(ca: string): CaLiveness | undefined
  /** Check now (after a publication, or `svcc health --check`); resolves when the check is done. */
  checkNow(): Promise<void>
}
