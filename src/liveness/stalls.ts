/**
 * Stalls (issue 26 §5): parts of svcd that stopped making progress without crashing. Pure rules over what the
 * watchdog (app/shared/watchdog.ts) observed at `now`: the scheduler made no tick within the bound while tasks were
 * due, or a task did not settle; a pacer's run pending or running longer than the bound; a leader whose lease was not
 * renewed within the lease; acknowledged changes not on RRDP within the bound (publish-stalled).
 */
import type { Condition } from './model.js'

export type StallComponent = 'scheduler' | 'pacer' | 'leadership' | 'publication'

export interface StallObservations {
  now: number
  /** The bound, ms (liveness.stall_seconds). */
  stallMs: number
  scheduler?: { running: boolean; lastTick: number | undefined; nextDue: number | undefined; stalled: { key: string; since: number }[] }
  /** Each pacer by name: since when a run is pending (kicked, not started) and since when one runs. */
  pacers?: { name: string; pendingSince?: number; runningSince?: number }[]
  /** This instance leads and last renewed its lease at `renewedAt` (ms); leases last `leaseMs`. */
  leadership?: { leading: boolean; renewedAt: number | undefined; leaseMs: number }
  /** The oldest acknowledged change RRDP does not hold (ms), and whose it is when known. */
  publication?: { oldestWaiting: number | undefined; publisher?: string }
}

export interface Stall {
  component: StallComponent
  /** What within the component: the component itself, a pacer's name, a task key, a publisher. */
  subject: string
  since: number
  why: string
}

export function stalls(o: StallObservations): Stall[] {
  const out: Stall[] = []
  const late = (t: number | undefined) => t !== undefined && o.now - t > o.stallMs
  const s = o.scheduler
  if (s?.running) {
    const dueSince = s.nextDue !== undefined && s.nextDue <= o.now ? s.nextDue : undefined
    const last = s.lastTick ?? dueSince
    if (dueSince !== undefined && late(last) && late(dueSince)) out.push({ component: 'scheduler', subject: 'scheduler', since: last!, why: `no check since ${iso(last!)} while tasks are due` })
    for (const t of s.stalled) out.push({ component: 'scheduler', subject: t.key, since: t.since, why: `task ${t.key} has not settled since ${iso(t.since)}` })
  }
  for (const p of o.pacers ?? []) {
    if (late(p.runningSince)) out.push({ component: 'pacer', subject: p.name, since: p.runningSince!, why: `a run of ${p.name} has been running since ${iso(p.runningSince!)}` })
    else if (late(p.pendingSince)) out.push({ component: 'pacer', subject: p.name, since: p.pendingSince!, why: `a run of ${p.name} has been pending since ${iso(p.pendingSince!)}` })
  }
  const l = o.leadership
  if (l?.leading && l.renewedAt !== undefined && o.now - l.renewedAt > l.leaseMs) {
    out.push({ component: 'leadership', subject: 'leadership', since: l.renewedAt, why: `the leader's lease was last renewed at ${iso(l.renewedAt)}` })
  }
  const p = o.publication
  if (late(p?.oldestWaiting)) {
    out.push({ component: 'publication', subject: p!.publisher ?? 'publication', since: p!.oldestWaiting!, why: `${p!.publisher !== undefined ? `publisher ${p!.publisher}: ` : ''}a change accepted at ${iso(p!.oldestWaiting!)} is not on RRDP yet` })
  }
  return out
}

/** The conditions of the stalls: publish-stalled (source "publication") and service-stalled (source "queues"). */
export function stallConditions(list: readonly Stall[]): { publication: Condition[]; queues: Condition[] } {
  const publication: Condition[] = []
  const queues: Condition[] = []
  for (const s of list) {
    if (s.component === 'publication') publication.push({ kind: 'publish-stalled', subject: s.subject, reason: s.why })
    else queues.push({ kind: 'service-stalled', subject: s.component === 'scheduler' && s.subject !== 'scheduler' ? `scheduler:${s.subject}` : s.component === 'pacer' ? `pacer:${s.subject}` : s.component, reason: s.why })
  }
  return { publication, queues }
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}
