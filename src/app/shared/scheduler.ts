/**
 * Timed work (design.md "Scheduler", "Timing defaults"): tasks are rows with a due time in SQLite, so a restart
 * resumes them. Each CA has a 'republish' task (manifests and CRLs before they are due, ROAs and other objects
 * before they expire, and the repository re-synced while doing so) and a 'sync-parent' task per parent (every
 * refresh interval with random jitter; after a failure, retried with back-off and recorded as the CA's issue).
 * A task's failure is logged and rescheduled; it never blocks other tasks or other CAs. When the task store itself
 * fails (a full disk), nothing escapes the timer: the task is held back in memory with the same back-off, and the
 * scheduler keeps checking, so svcd neither crashes nor spins, and picks up again when the store works. The time and
 * the timers come from the injected Clock, and the retry back-off is the scheduler's own policy (`retryAt`).
 * A task that cannot be decoded or run because of what is stored (a StoredDataError: an unknown kind, an argument
 * that does not decode, a CA whose state does not decode) is quarantined instead of retried (issue 26 §5): a task
 * leaves the tasks table, a CA's task waits the longest back-off. A task that never settles frees its slot after
 * `stallMs` and is reported as stalled (`health()`), so a hung task cannot stop the others.
 */
import type { Logger } from '../../log.js'
import type { Task, TaskKind, TaskStore } from '../../store/interfaces.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import { storedDataError, type StoredDataError } from '../../util/stored-data.js'
import { detached } from './acting.js'

/** The back-off of a failed task: `firstMs`, doubled with each attempt (up to 2^10), never more than `maxMs`. */
export interface RetryBackoff {
  firstMs: number
  maxMs: number
}

/** When a task that failed `attempts` times before this failure is tried again, failing at `now` (ms). */
export function retryAt(backoff: RetryBackoff, attempts: number, now: number): number {
  return now + Math.min(backoff.firstMs * 2 ** Math.min(attempts, 10), backoff.maxMs)
}

export interface SchedulerOptions {
  tasks: TaskStore
  /** Run one task; resolves to the next due time (ms), or undefined to drop the task. Throws on failure. */
  run: (task: Task) => Promise<number | undefined>
  /** How long a failed task waits before it is tried again, by its attempts so far (retryAt). */
  retry: RetryBackoff
  clock: Clock
  log: Logger
  /** Tasks run at once at most (default 4). */
  concurrency?: number
  /** Longest sleep between checks, ms (default 1000): new tasks and clock shifts are noticed within it. */
  tickMs?: number
  /** Several instances: throws when this instance no longer leads, and then no task starts (checked before each batch). */
  fence?: () => void
  /** Set aside what a StoredDataError names (app/shared/quarantine.ts); without it such a task fails as any other. */
  quarantine?: (e: StoredDataError, task: Task) => void
  /** A task that has not settled after this many ms frees its slot and is reported as stalled (default: never). */
  stallMs?: number
}

/** How the scheduler is doing, for the watchdog (app/shared/watchdog.ts). */
export interface SchedulerHealth {
  /** Started and not stopped. */
  running: boolean
  /** When the loop last ran a check (ms). */
  lastTick: number | undefined
  /** The earliest due time in the store (ms), if any. */
  nextDue: number | undefined
  /** Tasks that did not settle within stallMs, and since when they ran (ms). */
  stalled: { key: string; since: number }[]
}

export class Scheduler {
  private timer: TimerHandle | undefined
  private running = new Set<string>()
  /** Tasks whose bookkeeping could not be stored: not run again before this time (ms). */
  private held = new Map<string, number>()
  /** The store failed on the last check (logged once per failure spell, not per tick). */
  private storeFailing = false
  private stopped = true
  private inFlight: Promise<void>[] = []
  private lastTick: number | undefined
  /** Tasks that did not settle within stallMs (key → start time), until they do. */
  private readonly stalledTasks = new Map<string, number>()

  constructor(private readonly o: SchedulerOptions) {}

  start(): void {
    this.stopped = false
    this.arm(0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.o.clock.clear(this.timer)
    await Promise.allSettled(this.inFlight)
  }

  /** Create or move a task to `due`. With `earlier`, an existing earlier due time is kept; with `ifMissing`, any. */
  schedule(kind: TaskKind, ca: string, arg: string, due: number, opts: { earlier?: boolean; ifMissing?: boolean } = {}): void {
    const t = { key: taskKey(kind, ca, arg), kind, ca, arg, due }
    if (opts.ifMissing && this.o.tasks.get(t.key)) return
    if (opts.earlier) this.o.tasks.putEarlier(t)
    else this.o.tasks.put(t)
    if (due <= this.o.clock.now()) this.arm(0)
  }

  /** For the watchdog: whether the loop ticks, what is due, which tasks hang. A store that fails shows no due time. */
  health(): SchedulerHealth {
    let nextDue: number | undefined
    try {
      nextDue = this.o.tasks.next()
    } catch {
      nextDue = undefined
    }
    return { running: !this.stopped, lastTick: this.lastTick, nextDue, stalled: [...this.stalledTasks].map(([key, since]) => ({ key, since })) }
  }

  unschedule(kind: TaskKind, ca: string, arg: string): void {
    this.o.tasks.remove(taskKey(kind, ca, arg))
  }

  /** Run every task due now, `concurrency` at a time (used by tests with an injected clock); resolves when done. */
  async runDue(): Promise<number> {
    const now = this.o.clock.now()
    const due = this.o.tasks.due(now, 10_000).filter((t) => !this.running.has(t.key))
    let next = 0
    const worker = async () => {
      while (next < due.length) await this.execute(due[next++]!)
    }
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency ?? 4, due.length) }, worker))
    return due.length
  }

  private arm(ms: number): void {
    if (this.stopped) return
    this.o.clock.clear(this.timer)
    this.timer = this.o.clock.setTimeout(() => detached(() => this.tick()), ms, { background: true })
  }

  /** Start what is due (up to `concurrency`), then sleep until the next due time or `tickMs`. Never throws. */
  private tick(): void {
    if (this.stopped) return
    const now = this.o.clock.now()
    this.lastTick = now
    const tickMs = this.o.tickMs ?? 1000
    let next: number | undefined
    try {
      this.startDue(now)
      next = this.o.tasks.next()
      if (this.storeFailing) this.o.log.info('task store works again')
      this.storeFailing = false
    } catch (e) {
      if (!this.storeFailing) this.o.log.error('task store failed; checking again every tick', { reason: (e as Error)?.message ?? String(e) })
      this.storeFailing = true
    }
    // A due time already past belongs to a task that is running, held back, or waiting for a free slot: a finishing
    // task re-arms at once, so there is nothing to wake up for before the next tick.
    this.arm(next === undefined || next <= now ? tickMs : Math.min(next - now, tickMs))
  }

  private startDue(now: number): void {
    for (const [key, until] of this.held) if (until <= now) this.held.delete(key)
    const free = (this.o.concurrency ?? 4) - this.running.size
    if (free <= 0) return
    const due = this.o.tasks.due(now, free + this.running.size + this.held.size).filter((x) => !this.running.has(x.key) && !this.held.has(x.key) && !this.stalledTasks.has(x.key))
    if (due.length) this.o.fence?.() // a deposed leader starts nothing (the throw is logged by tick, once a spell)
    for (const t of due.slice(0, free)) {
      const p = this.execute(t)
      this.inFlight.push(p)
      void p.finally(() => {
        this.inFlight = this.inFlight.filter((x) => x !== p)
        this.arm(0)
      })
    }
  }

  /** Run one task and store its next due time or its retry; a store that fails holds the task back. Never rejects. */
  private async execute(t: Task): Promise<void> {
    this.running.add(t.key)
    try {
      let next: number | undefined
      let failure: unknown
      try {
        next = await this.bounded(t, detached(() => this.o.run(t))) // as svcd, whoever scheduled it (acting.ts)
      } catch (e) {
        failure = e
      }
      try {
        const stored = storedDataError(failure)
        if (failure === undefined) this.done(t, next)
        else if (stored && this.o.quarantine) this.quarantined(t, stored)
        else this.failed(t, failure)
      } catch (e) {
        const until = retryAt(this.o.retry, t.attempts, this.o.clock.now())
        this.held.set(t.key, until)
        const ran = failure === undefined ? 'succeeded' : 'failed'
        this.o.log.error(`the task ${ran} but its next due time could not be stored; it is held back`, { task: t.key, until: new Date(until).toISOString(), reason: (e as Error)?.message ?? String(e) })
      }
    } finally {
      this.running.delete(t.key)
    }
  }

  /** The run, or after stallMs a rejection that frees the slot (the run goes on; its outcome is then only logged). */
  private bounded<T>(t: Task, run: Promise<T>): Promise<T> {
    const ms = this.o.stallMs
    if (!ms) return run
    const started = this.o.clock.now()
    return new Promise<T>((resolve, reject) => {
      let timedOut = false
      const timer = this.o.clock.setTimeout(() => {
        timedOut = true
        this.stalledTasks.set(t.key, started)
        this.o.log.error('task stalled: it has not settled; its slot is freed and it is retried later', { task: t.key, seconds: Math.round(ms / 1000) })
        reject(new Error(`the task has not settled within ${Math.round(ms / 1000)} s`))
      }, ms, { background: true })
      const settle = (ok: boolean, v: unknown) => {
        this.o.clock.clear(timer)
        if (timedOut) {
          this.stalledTasks.delete(t.key)
          this.o.log.info('a stalled task settled', { task: t.key })
        } else if (ok) resolve(v as T)
        else reject(v)
      }
      run.then((v) => settle(true, v), (e: unknown) => settle(false, e))
    })
  }

  /** A task that cannot be decoded leaves the queue; a task of a CA that cannot be decoded waits the longest back-off. */
  private quarantined(t: Task, e: StoredDataError): void {
    this.o.quarantine!(e, t)
    if (e.what === 'task') this.o.tasks.remove(t.key)
    else if (this.o.tasks.get(t.key)) this.o.tasks.put({ ...t, due: this.o.clock.now() + this.o.retry.maxMs })
  }

  private done(t: Task, next: number | undefined): void {
    if (next === undefined) this.o.tasks.remove(t.key)
    else if (this.o.tasks.get(t.key)?.due === t.due) this.o.tasks.put({ ...t, due: next, attempts: 0 })
  }

  private failed(t: Task, e: unknown): void {
    const retry = retryAt(this.o.retry, t.attempts, this.o.clock.now())
    this.o.log.warn('task failed; will retry', { task: t.key, attempts: t.attempts + 1, retry_at: new Date(retry).toISOString(), reason: (e as Error)?.message ?? String(e) })
    if (this.o.tasks.get(t.key)) this.o.tasks.put({ ...t, due: retry, attempts: t.attempts + 1 })
  }
}

export function taskKey(kind: TaskKind, ca: string, arg: string): string {
  return `${kind}:${ca}${arg ? `/${arg}` : ''}`
}
