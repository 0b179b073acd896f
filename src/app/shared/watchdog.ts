/**
 * The watchdog (issue 26 §5): looks at the scheduler, the pacers, leadership and the publication outputs on the
 * injected Clock, and reports what stopped making progress without crashing (liveness/stalls.ts): GET /ready problems
 * (sys-stalled), `svc_stalled{component}`, and the conditions of the sources "publication" (publish-stalled) and
 * "queues" (service-stalled, with the quarantine's task-quarantined). Each check pushes them to `report` (the alert
 * service's AlarmSink.report, once composed), and each stall is logged when it begins and when it ends.
 */
import { CATALOGUE, renderMessage, type ErrorBody } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { Condition } from '../../liveness/model.js'
import { stallConditions, stalls, type Stall, type StallComponent, type StallObservations } from '../../liveness/stalls.js'
import type { Clock, TimerHandle } from '../../util/clock.js'

export interface WatchdogDeps {
  clock: Clock
  log: Logger
  /** The bound, ms (liveness.stall_seconds). */
  stallMs: number
  /** What to look at now (each part optional: what this svcd does not run is left out). */
  observe: () => Omit<StallObservations, 'now' | 'stallMs'>
  /** Other conditions of the "queues" source (the quarantine's task-quarantined). */
  queued?: () => Condition[]
  /** Where the conditions go after each check (AlarmSink.report): every condition of the source that holds now. */
  report?: (source: 'publication' | 'queues', conditions: Condition[]) => void
  /** How often to check, ms (default a quarter of the bound, between 1 s and 60 s). */
  everyMs?: number
}

export const STALL_COMPONENTS: readonly StallComponent[] = ['scheduler', 'publication', 'leadership', 'pacer']

/** What a stall means, naming nothing internal (GET /ready answers without a token). */
const GENERIC: Record<StallComponent, string> = {
  scheduler: 'scheduled work is not making progress',
  pacer: 'an output or a publication run is not making progress',
  leadership: "the leader's lease was not renewed",
  publication: 'accepted changes are not reaching RRDP',
}

export class Watchdog {
  private timer: TimerHandle | undefined
  private current = new Map<string, Stall>()

  constructor(private readonly d: WatchdogDeps) {}

  start(): void {
    const every = this.d.everyMs ?? Math.min(60_000, Math.max(1000, Math.floor(this.d.stallMs / 4)))
    this.timer = this.d.clock.setInterval(() => this.check(), every)
  }

  stop(): void {
    this.d.clock.clear(this.timer)
    this.timer = undefined
  }

  /** Look now: log the stalls that began or ended, push the conditions; the stalls that hold. */
  check(): Stall[] {
    const list = this.stalls()
    const next = new Map(list.map((s) => [`${s.component}:${s.subject}`, s]))
    for (const [k, s] of next) if (!this.current.has(k)) this.d.log.error('stalled', { component: s.component, subject: s.subject, since: new Date(s.since).toISOString(), why: s.why })
    for (const [k, s] of this.current) if (!next.has(k)) this.d.log.info('no longer stalled', { component: s.component, subject: s.subject })
    this.current = next
    if (this.d.report) {
      const c = this.conditionsOf(list)
      this.d.report('publication', c.publication)
      this.d.report('queues', c.queues)
    }
    return list
  }

  /** The stalls that hold now (computed at each call: cheap reads of in-memory state). */
  stalls(): Stall[] {
    try {
      return stalls({ ...this.d.observe(), now: this.d.clock.now(), stallMs: this.d.stallMs })
    } catch (e) {
      this.d.log.warn('the watchdog could not look', { err: (e as Error)?.message ?? String(e) })
      return []
    }
  }

  /** Every condition of the two sources that holds now (publish-stalled; service-stalled and task-quarantined). */
  conditions(): Condition[] {
    const c = this.conditionsOf(this.stalls())
    return [...c.publication, ...c.queues]
  }

  /** 1/0 per component (svc_stalled{component}). */
  stalled(): Record<StallComponent, number> {
    const out = Object.fromEntries(STALL_COMPONENTS.map((c) => [c, 0])) as Record<StallComponent, number>
    for (const s of this.stalls()) out[s.component] = 1
    return out
  }

  /**
   * GET /ready and the bulk issues: one sys-stalled problem per component that stalled, with the first stall's reason
   * (`detail`, for authenticated callers) or a reason naming no CA, task or publisher (GET /ready, unauthenticated).
   */
  problems(detail = true): ErrorBody[] {
    const seen = new Set<string>()
    const out: ErrorBody[] = []
    for (const s of this.stalls()) {
      if (seen.has(s.component)) continue
      seen.add(s.component)
      const args = { component: s.component, since: new Date(s.since).toISOString(), why: detail ? s.why : GENERIC[s.component] }
      out.push({ label: 'sys-stalled', msg: renderMessage(CATALOGUE['sys-stalled'].msg, args), args })
    }
    return out
  }

  private conditionsOf(list: readonly Stall[]): { publication: Condition[]; queues: Condition[] } {
    const c = stallConditions(list)
    return { publication: c.publication, queues: [...c.queues, ...(this.d.queued?.() ?? [])] }
  }
}
