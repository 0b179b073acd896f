/**
 * How far the publication server's outputs may fall behind what it accepted (issue 22, defect 2: after one publisher
 * published 10,000 objects, another CA's ROA reached rsync 440 s later while GET /ready said ready).
 *
 * - The rsync pacer spaces trees by at most RSYNC_MAX_SPACING_MS, however long the last tree took (as RRDP serials
 *   are at most 10 s apart). Relying parties refresh every 10 minutes (Routinator) to an hour (rpki-client, FORT); a
 *   change then reaches rsync within a twentieth of the shortest refresh, so a relying party that falls back to rsync
 *   sees what RRDP shows at its next refresh; and 30 s keeps the trees kept (rsync_trees_max) spanning many minutes.
 * - OutputLag tracks the acknowledged changes an output does not hold yet: each acknowledgement is known by the seq
 *   of its last change (as in publish-latency.ts); an output reports the seqs it now holds. The oldest waiting one
 *   older than the bound is a problem (GET /ready, the bulk issues) until the output catches up.
 */
import type { PacerOptions } from '../shared/pacer.js'
import type { PublishObserver } from './publish-latency.js'

/** The longest wait between two rsync trees under constant change, however long the last tree took. */
export const RSYNC_MAX_SPACING_MS = 30_000

/**
 * The window over which the RRDP and rsync pacers' share is budgeted (pacer.ts budgetWindowMs): after a quiet minute a
 * single change is written at once, whatever the last run cost, within the share of that minute.
 */
export const PACING_BUDGET_WINDOW_MS = 60_000

/**
 * The rsync pacer (besides retry and onSuccess): a tree once the changes paused for half a second, or under constant
 * change at least every 10 s; trees take at most a hundredth of the time (budgeted over a minute), but are never more
 * than 30 s apart.
 */
export const RSYNC_PACING: PacerOptions = { busyShare: 0.01, budgetWindowMs: PACING_BUDGET_WINDOW_MS, maxSpacingMs: RSYNC_MAX_SPACING_MS, settle: { quietMs: 500, maxWaitMs: 10_000 } }

/**
 * Seconds after which an acknowledged change missing from an output is a problem (the default of
 * [repository] output_lag_max_seconds). rsync's worst case by the pacing: an RRDP serial within 10 s, the settle's
 * 10 s, the spacing bound's 30 s, plus the build times; the rest is a margin for a loaded machine.
 */
export const OUTPUT_LAG_MAX_SECONDS = 90

/** Acknowledged changes an output does not hold yet, oldest first; at most `max` (the oldest are dropped beyond). */
export class OutputLag {
  /** seq → acknowledgement time (ms), in the order acknowledged. */
  private readonly waiting = new Map<number, number>()
  /** seq → the publisher whose message it acknowledged, when known. */
  private readonly publishers = new Map<number, string>()
  /** The seqs waiting when the output's current run began to read (a run holds everything acknowledged before). */
  private reading: number[] | undefined

  constructor(private readonly max = 100_000) {}

  acked(seq: number, at: number, publisher?: string): void {
    this.waiting.set(seq, at)
    if (publisher !== undefined) this.publishers.set(seq, publisher)
    if (this.waiting.size <= this.max) return
    for (const oldest of this.waiting.keys()) {
      this.waiting.delete(oldest)
      this.publishers.delete(oldest)
      if (this.waiting.size <= this.max) break
    }
  }

  /** The output holds these changes now. */
  holds(seqs: Iterable<number>): void {
    for (const seq of seqs) {
      this.waiting.delete(seq)
      this.publishers.delete(seq)
    }
  }

  /** The publisher of the oldest waiting change, when known. */
  oldestPublisher(): string | undefined {
    for (const seq of this.waiting.keys()) return this.publishers.get(seq)
    return undefined
  }

  /** A run of the output begins to read the database: what is waiting now, it holds once the run succeeds. */
  runStarts(): void {
    this.reading = [...this.waiting.keys()]
  }

  /** The run that began with runStarts succeeded (its output is switched to, or was already the same). */
  runSucceeded(): void {
    if (this.reading) this.holds(this.reading)
    this.reading = undefined
  }

  seqs(): number[] {
    return [...this.waiting.keys()]
  }

  /** The time the oldest waiting change was acknowledged, when that is more than `boundMs` before `now`. */
  behind(now: number, boundMs: number): number | undefined {
    for (const at of this.waiting.values()) return now - at > boundMs ? at : undefined
    return undefined
  }
}

/**
 * The service's publish observer: tells `latency` (the metric, when there is one) and the RRDP and rsync lag of each
 * acknowledgement; the notifications that contain changes are the RRDP lag's `holds`. Without the metric, the RRDP
 * lag answers which seqs wait (the RRDP mirror of a follower asks which of them the leader's serial consumed).
 */
export function lagObserver(latency: PublishObserver | undefined, rrdp: OutputLag, rsync: OutputLag): PublishObserver {
  return {
    acked: (seq, at, publisher) => {
      latency?.acked(seq, at, publisher)
      rrdp.acked(seq, at, publisher)
      rsync.acked(seq, at, publisher)
    },
    waitingSeqs: () => [...new Set([...(latency?.waitingSeqs() ?? []), ...rrdp.seqs()])],
    notified: (seqs, at) => {
      const list = [...seqs]
      latency?.notified(list, at)
      rrdp.holds(list)
    },
  }
}
