/**
 * Timed work (design.md "Scheduler", "Timing defaults"): tasks are rows with a due time in SQLite, so a restart
 * resumes them. Each CA has a 'republish' task (manifests and CRLs before they are due, ROAs and other objects
 * before they expire, and the repository re-synced while doing so) and a 'sync-parent' task per parent (every
 * refresh interval with random jitter; after a failure, retried with back-off and recorded as the CA's issue).
 * A task's failure is logged and rescheduled; it never blocks other tasks or other CAs.
 */
import type { Logger } from './log.js'
import type { Task, TaskKind, TaskStore } from './store/task-store.js'

export interface SchedulerOptions {
  tasks: TaskStore
  /** Run one task; resolves to the next due time (ms), or undefined to drop the task. Throws on failure. */
  run: (task: Task) => Promise<number | undefined>
  /** When a failed task is tried again (back-off by attempts). */
  retryAt: (task: Task, now: number) => number
  now: () => number
  log: Logger
  /** Tasks run at once at most (default 4). */
  concurrency?: number
  /** Longest sleep between checks, ms (default 1000): new tasks and clock shifts are noticed within it. */
  tickMs?: number
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined
  private running = new Set<string>()
  private stopped = true
  private inFlight: Promise<void>[] = []

  constructor(private readonly o: SchedulerOptions) {}

  start(): void {
    this.stopped = false
    this.arm(0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await Promise.allSettled(this.inFlight)
  }

  /** Create or move a task to `due`. With `earlier`, an existing earlier due time is kept. */
  schedule(kind: TaskKind, ca: string, arg: string, due: number, opts: { earlier?: boolean } = {}): void {
    const t = { key: taskKey(kind, ca, arg), kind, ca, arg, due }
    if (opts.earlier) this.o.tasks.putEarlier(t)
    else this.o.tasks.put(t)
    if (due <= this.o.now()) this.arm(0)
  }

  unschedule(kind: TaskKind, ca: string, arg: string): void {
    this.o.tasks.remove(taskKey(kind, ca, arg))
  }

  /** Run every task due now (used by tests with an injected clock); resolves when they are done. */
  async runDue(): Promise<number> {
    const now = this.o.now()
    const due = this.o.tasks.due(now, 10_000).filter((t) => !this.running.has(t.key))
    await Promise.all(due.map((t) => this.execute(t)))
    return due.length
  }

  private arm(ms: number): void {
    if (this.stopped) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.tick(), ms)
    this.timer.unref()
  }

  private tick(): void {
    if (this.stopped) return
    const now = this.o.now()
    const free = (this.o.concurrency ?? 4) - this.running.size
    if (free > 0) {
      for (const t of this.o.tasks.due(now, free + this.running.size).filter((x) => !this.running.has(x.key)).slice(0, free)) {
        const p = this.execute(t)
        this.inFlight.push(p)
        void p.finally(() => {
          this.inFlight = this.inFlight.filter((x) => x !== p)
          this.arm(0)
        })
      }
    }
    const next = this.o.tasks.next()
    const wait = next === undefined ? (this.o.tickMs ?? 1000) : Math.max(10, Math.min(next - now, this.o.tickMs ?? 1000))
    this.arm(wait)
  }

  private async execute(t: Task): Promise<void> {
    this.running.add(t.key)
    try {
      const next = await this.o.run(t)
      if (next === undefined) this.o.tasks.remove(t.key)
      else if (this.o.tasks.get(t.key)?.due === t.due) this.o.tasks.put({ ...t, due: next, attempts: 0 })
    } catch (e) {
      const retry = this.o.retryAt(t, this.o.now())
      this.o.log.warn('task failed; will retry', { task: t.key, attempts: t.attempts + 1, retry_at: new Date(retry).toISOString(), reason: (e as Error)?.message ?? String(e) })
      if (this.o.tasks.get(t.key)) this.o.tasks.put({ ...t, due: retry, attempts: t.attempts + 1 })
    } finally {
      this.running.delete(t.key)
    }
  }
}

export function taskKey(kind: TaskKind, ca: string, arg: string): string {
  return `${kind}:${ca}${arg ? `/${arg}` : ''}`
}
