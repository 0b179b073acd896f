/**
 * Runs an async job again whenever it is kicked, never twice at once, at most once per `minIntervalMs`: kicks that
 * arrive while the job runs are merged into one more run. This bounds the publication delay to about two job
 * durations plus the interval, whatever the load. With `retry`, a run that fails is retried by itself after a
 * back-off that starts at `retry.firstMs` and doubles up to `retry.maxMs` (issue 10: the publication server must heal
 * after a full disk without waiting for another change); the first success resets it. Time and timers come from the
 * injected Clock (issue 23: unit tests drive it with a fake clock).
 */
import type { Clock, TimerHandle } from '../../util/clock.js'
import { detached } from './acting.js'

export interface PacerOptions {
  /** Called after each run that succeeded. */
  onSuccess?: () => void
  /** Retry a failed run after this back-off (e.g. 1 s doubling to 30 s); without it a failed run waits for a kick. */
  retry?: { firstMs: number; maxMs: number }
  /**
   * Runs take at most this share of the time (0 < share ≤ 1), a budget on the clock: time earns `share` ms of run
   * time per ms and a run spends what it took (or what it said with busy()); a run starts only with the budget not in
   * debt, so a job whose cost grows with the data (a whole rsync tree, an RRDP snapshot) backs off by itself. Without
   * `budgetWindowMs` nothing is saved up: after a run of d ms the next starts no sooner than d / share ms after it
   * started.
   */
  busyShare?: number
  /**
   * With `busyShare`: the budget saves up to `busyShare × budgetWindowMs` of run time during a quiet spell, so a
   * single change after it runs at once, while under constant change runs are spaced as without it (issue 28: at
   * 1,000 objects one change at a time waited 20 × the last serial's time; Krill #693: never pin a CPU rewriting
   * snapshots).
   */
  budgetWindowMs?: number
  /** With `busyShare`: never wait longer than this between runs, however long the last one took. */
  maxSpacingMs?: number
  /**
   * Wait until the kicks stop for `quietMs`, but no longer than `maxWaitMs` after the first kick not yet served: a job
   * whose every run costs the same whatever changed (a whole rsync tree) runs once after a burst of changes, and
   * under constant change at least every `maxWaitMs`, instead of after every change.
   */
  settle?: { quietMs: number; maxWaitMs: number }
}

export class Pacer {
  private running: Promise<void> | undefined
  private dirty = false
  private timer: TimerHandle | undefined
  private retryTimer: TimerHandle | undefined
  private failures = 0
  private lastStart = 0
  /** The run-time budget (`busyShare`), in ms: its value at `creditAt`, before what was earned since. */
  private credit: number
  private creditAt = -Infinity
  /** What the current run said counts toward `busyShare` (busy()), instead of its whole duration. */
  private counted: number | undefined
  /** The last kick, and the first one not yet served by a run (for `settle`). */
  private lastKick = 0
  private pendingSince: number | undefined
  private stopped = false
  private waiters: (() => void)[] = []

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly minIntervalMs: number,
    private readonly onError: (e: unknown) => void,
    private readonly clock: Clock,
    private readonly o: PacerOptions = {},
  ) {
    this.credit = this.creditCap()
  }

  /** Ask for a run; returns at once. */
  kick(): void {
    if (this.stopped) return
    const now = this.clock.now()
    this.lastKick = now
    this.pendingSince ??= now
    if (this.running || (this.timer && !this.o.settle)) {
      this.dirty = true
      return
    }
    this.clock.clear(this.timer) // with `settle`, each kick moves the run later (up to maxWaitMs after the first)
    let at = Math.max(this.lastStart + this.minIntervalMs, Math.min(this.budgetReadyAt(), this.lastStart + (this.o.maxSpacingMs ?? Infinity)))
    if (this.o.settle) at = Math.max(at, Math.min(this.lastKick + this.o.settle.quietMs, this.pendingSince + this.o.settle.maxWaitMs))
    const wait = Math.max(0, at - now)
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined
      this.start()
    }, wait)
  }

  /** Resolves when no run is pending or in progress (a retry waiting out its back-off does not count). */
  idle(): Promise<void> {
    if (!this.running && !this.timer && !this.dirty) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /**
   * Run what is pending now rather than at its planned time (skipping `settle` and the spacing), and again for kicks
   * during that run, until nothing is pending; a retry waiting out its back-off does not count, as for `idle`.
   */
  async flush(): Promise<void> {
    while (!this.stopped) {
      if (this.timer && !this.running) {
        this.clock.clear(this.timer)
        this.timer = undefined
        this.start()
      }
      if (!this.running) return
      await this.running
    }
  }

  /**
   * Called by the job during a run: only `ms` of this run count toward `busyShare`, not its whole duration (an RRDP
   * follower copying the leader's serial, or a new leader's one-off catch-up, is no reason to wait before the next run).
   */
  busy(ms: number): void {
    this.counted = ms
  }

  /** For the watchdog (issue 26 §5): since when a run is pending (kicked, not started), and since when one runs (ms). */
  health(): { pendingSince?: number; runningSince?: number } {
    return { ...(this.pendingSince !== undefined ? { pendingSince: this.pendingSince } : {}), ...(this.running ? { runningSince: this.lastStart } : {}) }
  }

  /** True while the last run failed and a retry is due. */
  failing(): boolean {
    return this.failures > 0
  }

  /** Stop: no new runs; waits for the current one. */
  async stop(): Promise<void> {
    this.stopped = true
    this.clock.clear(this.timer)
    this.clock.clear(this.retryTimer)
    this.timer = undefined
    this.retryTimer = undefined
    this.dirty = false
    await this.running
    this.release()
  }

  /** The most run time the budget saves up (ms). */
  private creditCap(): number {
    return (this.o.busyShare ?? 0) * (this.o.budgetWindowMs ?? 0)
  }

  /** The budget at `t`: what it held at `creditAt` plus what the time since earned, at most the cap. */
  private creditNow(t: number): number {
    const share = this.o.busyShare ?? 0
    return Math.min(this.creditCap(), this.credit + (t > this.creditAt ? share * (t - this.creditAt) : 0))
  }

  /** When the budget is out of debt (a run may start); -Infinity without `busyShare`. */
  private budgetReadyAt(): number {
    if (!this.o.busyShare || this.credit >= 0) return -Infinity
    return this.creditAt - this.credit / this.o.busyShare
  }

  /** Start a run now (a pending retry is replaced by it); kicks during the run lead to one more. */
  private start(): void {
    this.dirty = false
    this.pendingSince = undefined
    this.lastStart = this.clock.now()
    // A run started in debt (maxSpacingMs or flush) forgets it: the spacing follows the runs to come, not the past.
    this.credit = Math.max(0, this.creditNow(this.lastStart))
    this.creditAt = this.lastStart
    this.clock.clear(this.retryTimer)
    this.retryTimer = undefined
    this.running = detached(() => this.job()) // svcd's own work, whoever kicked (acting.ts)
      .then(
        () => this.succeeded(),
        (e) => this.failed(e),
      )
      .finally(() => {
        this.credit -= this.counted ?? this.clock.now() - this.lastStart
        this.counted = undefined
        this.running = undefined
        if (this.dirty && !this.stopped) this.kick()
        else this.release()
      })
  }

  /** A run succeeded: the back-off starts again from the first delay. */
  private succeeded(): void {
    this.failures = 0
    this.o.onSuccess?.()
  }

  /** Report the failure and, with `retry`, schedule a retry after the back-off: first, twice that … at most max. */
  private failed(e: unknown): void {
    this.failures++
    this.onError(e)
    if (this.stopped || !this.o.retry) return
    const delay = Math.min(this.o.retry.firstMs * 2 ** Math.min(this.failures - 1, 30), this.o.retry.maxMs)
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined
      this.kick()
    }, delay, { background: true })
  }

  private release(): void {
    if (this.running || this.timer || this.dirty) return
    const w = this.waiters
    this.waiters = []
    for (const r of w) r()
  }
}
