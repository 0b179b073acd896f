/**
 * The composition root's part for queues that heal and stalls (issue 26 §5): the quarantine over its store and the
 * watchdog over the scheduler, the outputs' pacers and RRDP lag, and leadership. `conditions()` answers every
 * condition of the sources "publication" and "queues" that holds now; `attach(report)` pushes them to the alert
 * service (AlarmSink.report) after each check.
 */
import type { Condition } from './liveness/model.js'
import type { Logger } from './log.js'
import type { OutputService } from './app/pubd/output-service.js'
import type { ClusterService } from './app/shared/cluster.js'
import { Quarantine } from './app/shared/quarantine.js'
import type { Scheduler } from './app/shared/scheduler.js'
import { Watchdog } from './app/shared/watchdog.js'
import type { QuarantineStore } from './store/quarantine-interfaces.js'
import type { Clock } from './util/clock.js'

export interface Queues {
  quarantine: Quarantine
  watchdog: Watchdog
  /** Every condition of "publication" (publish-stalled) and "queues" (service-stalled, task-quarantined) now. */
  conditions(): Condition[]
  /** For the metrics: svc_quarantined{what}, svc_stalled{component}. */
  gauges(): { quarantined: Record<string, number>; stalled: Record<string, number> }
  /** Where the conditions go after each check (the alert service's AlarmSink.report). */
  attach(report: (source: 'publication' | 'queues', conditions: Condition[]) => void): void
  /** What the watchdog looks at (set once the parts exist): the scheduler, the outputs, leadership, other pacers. */
  observe(parts: { scheduler: Scheduler; outputs?: OutputService; cluster?: ClusterService; pacers?: () => { name: string; pendingSince?: number; runningSince?: number }[] }): void
}

export function composeQueues(o: { store: QuarantineStore; clock: Clock; log: Logger; stallSeconds: number }): Queues {
  // A quarantined or dropped item is reported at once (the watchdog's next check may be a minute away).
  const quarantine = new Quarantine({ store: o.store, clock: o.clock, log: o.log, changed: () => void watchdog.check() })
  let parts: Parameters<Queues['observe']>[0] | undefined
  let report: ((source: 'publication' | 'queues', conditions: Condition[]) => void) | undefined
  const watchdog = new Watchdog({
    clock: o.clock, log: o.log, stallMs: o.stallSeconds * 1000,
    observe: () => {
      if (!parts) return {}
      const out = parts.outputs?.stallView()
      return {
        scheduler: parts.scheduler.health(),
        pacers: [...(out?.pacers ?? []), ...(parts.pacers?.() ?? [])],
        ...(out ? { publication: { oldestWaiting: out.rrdpOldestWaiting, ...(out.rrdpOldestPublisher !== undefined ? { publisher: out.rrdpOldestPublisher } : {}) } } : {}),
        ...(parts.cluster ? { leadership: parts.cluster.stallView() } : {}),
      }
    },
    queued: () => quarantine.conditions(),
    report: (source, conditions) => report?.(source, conditions),
  })
  return {
    quarantine, watchdog,
    conditions: () => watchdog.conditions(),
    gauges: () => ({ quarantined: quarantine.counts(), stalled: watchdog.stalled() }),
    attach: (r) => void (report = r),
    observe: (p) => void (parts = p),
  }
}
