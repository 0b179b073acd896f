/**
 * A fake of src/util/clock.ts for unit tests of timing logic: time moves only when the test says so, and timers due
 * by then run in order of their due time. `advance` lets promises settle between timers, so async work a timer
 * starts (a Pacer's job, a Scheduler's tick) can schedule the next timer before it is due.
 */
import type { Clock, Random, TimerHandle } from '../../src/util/clock.js'

interface Timer {
  id: number
  due: number
  every: number | undefined
  f: () => void
}

export class FakeClock implements Clock {
  private timers = new Map<number, Timer>()
  private nextId = 1

  constructor(private t = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t
  }

  date(): Date {
    return new Date(this.t)
  }

  /** `background` makes no difference here: the test decides when time passes. */
  setTimeout(f: () => void, ms: number, _o?: { background?: boolean }): TimerHandle {
    return this.add(f, ms, undefined)
  }

  setInterval(f: () => void, ms: number): TimerHandle {
    return this.add(f, ms, Math.max(1, ms))
  }

  clear(handle: TimerHandle | undefined): void {
    if (handle !== undefined) this.timers.delete(handle as unknown as number)
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms))
  }

  /** How many timers are pending. */
  pending(): number {
    return this.timers.size
  }

  /** When the next timer is due (undefined: none). */
  nextDue(): number | undefined {
    let min: number | undefined
    for (const timer of this.timers.values()) if (min === undefined || timer.due < min) min = timer.due
    return min
  }

  /** Move time forward by `ms`, running every timer due on the way (with pending promise jobs settled between them). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    await settle()
    for (;;) {
      const next = this.earliest()
      if (!next || next.due > end) break
      this.t = Math.max(this.t, next.due)
      if (next.every === undefined) this.timers.delete(next.id)
      else next.due += next.every
      next.f()
      await settle()
    }
    this.t = end
    await settle()
  }

  /** Run timers until none is pending or `limitMs` of fake time passed; returns the fake time spent. */
  async runAll(limitMs = 24 * 3600_000): Promise<number> {
    const start = this.t
    for (;;) {
      const due = this.nextDue()
      if (due === undefined || due - start > limitMs) return this.t - start
      await this.advance(Math.max(0, due - this.t))
    }
  }

  private add(f: () => void, ms: number, every: number | undefined): TimerHandle {
    const id = this.nextId++
    this.timers.set(id, { id, due: this.t + Math.max(0, ms), every, f })
    return id as unknown as TimerHandle
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined
    for (const timer of this.timers.values()) if (!best || timer.due < best.due || (timer.due === best.due && timer.id < best.id)) best = timer
    return best
  }
}

/** Randomness a test can repeat: a counter-driven sequence (bytes) and a fixed or listed fraction. */
export class FakeRandom implements Random {
  private counter = 0
  constructor(private readonly fractions: number[] = [0.5]) {}

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n)
    for (let i = 0; i < n; i++) out[i] = (this.counter++ * 131 + 7) & 0xff
    return out
  }

  fraction(): number {
    const f = this.fractions[this.counter % this.fractions.length]!
    this.counter++
    return f
  }
}

/** Let pending promise jobs and I/O callbacks already queued run (a few macrotask turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}
