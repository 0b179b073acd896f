/**
 * The delay from acknowledging a publish (an RFC 8181 message, or a local CA's in-process publish, that changed the
 * repository) to the RRDP notification this instance serves that contains it (issue 14, metrics). Each
 * acknowledgement is known by the `seq` of the last change its message recorded (pubd_changes): one message's changes
 * are one transaction, so a serial consumes all of them or none.
 *
 * - The leader knows the seqs each serial consumed (RrdpWriter.cycle, resetSession) and observes those of its own
 *   acknowledgements among them when that serial's notification is written.
 * - An instance that does not lead (several instances on one database) copies the leader's serials; in the same read
 *   as the copy it asks which of its waiting seqs the database still holds as pending. The others were consumed by
 *   the serial it copies or an earlier one, and are observed when its notification is written. The waiting seqs are
 *   taken inside that read: an acknowledgement is recorded synchronously after its commit, so every one taken then
 *   committed before the read began and is either pending in it or consumed.
 */

/** What the publication services call (the publisher side through OutputService.changed, the output side); all times in milliseconds since the epoch. */
export interface PublishObserver {
  /** A message's changes were committed and acknowledged; `seq` is the last change it recorded, `publisher` who sent it. */
  acked(seq: number, at: number, publisher?: string): void
  /** The acknowledgements not yet observed, by seq. */
  waitingSeqs(): number[]
  /** The notification written at `at` contains the changes `seqs`: each acknowledgement among them is observed once. */
  notified(seqs: Iterable<number>, at: number): void
}

/**
 * Acknowledgements waiting for their notification. At most `max` are kept: when RRDP is held back or failing for
 * long, the oldest are dropped (counted in `dropped`) rather than growing without bound.
 */
export class PublishLatency implements PublishObserver {
  /** seq → acknowledgement time, in the order acknowledged. */
  private readonly pending = new Map<number, number>()
  dropped = 0

  constructor(
    private readonly observe: (seconds: number) => void,
    private readonly max = 100_000,
  ) {}

  acked(seq: number, at: number): void {
    this.pending.set(seq, at)
    if (this.pending.size <= this.max) return
    for (const oldest of this.pending.keys()) {
      this.pending.delete(oldest)
      this.dropped++
      if (this.pending.size <= this.max) break
    }
  }

  waitingSeqs(): number[] {
    return [...this.pending.keys()]
  }

  notified(seqs: Iterable<number>, at: number): void {
    if (this.pending.size === 0) return
    for (const seq of seqs) {
      const acked = this.pending.get(seq)
      if (acked === undefined) continue
      this.observe(Math.max(0, at - acked) / 1000)
      this.pending.delete(seq)
    }
  }

  /** Acknowledgements not yet in a notification. */
  waiting(): number {
    return this.pending.size
  }
}
