/**
 * Runs an async job again whenever it is kicked, never twice at once, at most once per `minIntervalMs`: kicks that
 * arrive while the job runs are merged into one more run. This bounds the publication delay to about two job
 * durations plus the interval, whatever the load.
 */
export class Pacer {
  private running: Promise<void> | undefined
  private dirty = false
  private timer: NodeJS.Timeout | undefined
  private lastStart = 0
  private stopped = false
  private waiters: (() => void)[] = []

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly minIntervalMs: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Ask for a run; returns at once. */
  kick(): void {
    if (this.stopped) return
    if (this.running || this.timer) {
      this.dirty = true
      return
    }
    const wait = Math.max(0, this.lastStart + this.minIntervalMs - Date.now())
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.start()
    }, wait)
  }

  /** Resolves when no run is pending or in progress. */
  idle(): Promise<void> {
    if (!this.running && !this.timer && !this.dirty) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Stop: no new runs; waits for the current one. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
    this.dirty = false
    await this.running
    this.release()
  }

  private start(): void {
    this.dirty = false
    this.lastStart = Date.now()
    this.running = this.job()
      .then(
        () => undefined,
        (e) => this.onError(e),
      )
      .finally(() => {
        this.running = undefined
        if (this.dirty && !this.stopped) this.kick()
        else this.release()
      })
  }

  private release(): void {
    if (this.running || this.timer || this.dirty) return
    const w = this.waiters
    this.waiters = []
    for (const r of w) r()
  }
}
