/**
 * The delay from acknowledging a publish (an RFC 8181 message, or a local CA's in-process publish, that changed the
 * repository) to the RRDP notification that contains it (issue 14, metrics). The PublicationService tells it of each
 * acknowledgement, marks the acknowledgements an RRDP cycle will contain before the cycle starts, and says when that
 * cycle's notification is written; each contained acknowledgement's delay is then observed once.
 *
 * Why the mark is exact: the RRDP writer opens its read snapshot synchronously when its cycle is called (store/db.ts,
 * store/pg-db.ts readSnapshot), and every acknowledgement is recorded synchronously after its changes were committed
 * in the same process; so the acknowledgements before the mark are exactly those whose changes the cycle reads.
 */

/** What the PublicationService calls; all times in milliseconds since the epoch. */
export interface PublishObserver {
  acked(at: number): void
  /** Before an RRDP cycle starts: a mark standing for every acknowledgement so far. */
  mark(): number
  /** The notification containing everything up to `mark` was written at `at`. */
  notified(mark: number, at: number): void
}

/**
 * Acknowledgements waiting for their notification, oldest first. At most `max` are kept: when RRDP is held back or
 * failing for long, the oldest are dropped (counted in `dropped`) rather than growing without bound.
 */
export class PublishLatency implements PublishObserver {
  private pending: number[] = []
  /** The number of acknowledgements before pending[0]. */
  private base = 0
  dropped = 0

  constructor(
    private readonly observe: (seconds: number) => void,
    private readonly max = 100_000,
  ) {}

  acked(at: number): void {
    this.pending.push(at)
    if (this.pending.length > this.max) {
      const drop = this.pending.length - this.max
      this.pending.splice(0, drop)
      this.base += drop
      this.dropped += drop
    }
  }

  mark(): number {
    return this.base + this.pending.length
  }

  notified(mark: number, at: number): void {
    const n = Math.min(Math.max(0, mark - this.base), this.pending.length)
    for (let i = 0; i < n; i++) this.observe(Math.max(0, at - this.pending[i]!) / 1000)
    this.pending.splice(0, n)
    this.base += n
  }

  /** Acknowledgements not yet in a notification. */
  waiting(): number {
    return this.pending.length
  }
}
