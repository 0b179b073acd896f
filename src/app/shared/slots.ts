/**
 * A bound on how many jobs run at once (issue 28 §4: a CA with 100 parents, a parent with 10,000 children in this
 * svcd): a job waits for a free slot, first come first served, and frees it when it settles, however it settles. A
 * job that hangs holds one slot only (its own timeout bounds it), so the others go on in the remaining ones.
 */
export class Slots {
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(readonly size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError('the number of slots must be an integer ≥ 1')
  }

  /** Run `job` in a free slot (after the jobs already waiting); resolves or rejects as it does. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      return await job()
    } finally {
      const next = this.waiting.shift()
      if (next) next() // the slot passes to the next job as it is
      else this.running--
    }
  }

  /** Jobs running and jobs waiting for a slot now. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length }
  }
}
