/**
 * What one scrape of /metrics reads (issue 14 item 7): every figure taken once from the stores and services, cheaply
 * (aggregate queries, the status rows, the publishers' totals; no DER decoded, no CA state or object JSON parsed), then
 * turned into series by metrics-service.ts. Also the in-memory record of RFC 6492 exchanges with children.
 */
import type { Clock } from '../../util/clock.js'
import type { CaObjectsStore, CaStatusStore, CaStore, PublicationStore, StatusKind, TaskStore } from '../../store/interfaces.js'

/** The last exchange of a CA with one counterpart: its result and, in unix seconds, its time and last success. */
export interface ExchangeFigures {
  name: string
  ok: boolean
  time: number
  lastSuccess: number | undefined
}

export interface CaFigures {
  ca: string
  roas: number
  aspas: number
  routerCerts: number
  /** The CA's issues as `svcc issues` counts them: a failing repository, each failing parent, failing objects. */
  issues: number
  parents: ExchangeFigures[]
  repo: ExchangeFigures | undefined
  children: ExchangeFigures[]
}

export interface PublisherFigures {
  handle: string
  objects: number
  size: number
  /** Unix seconds of the last publish, if any. */
  lastUpdate: number | undefined
  /** Seconds since the last publish, or since the publisher was added when it never published. */
  staleness: number
}

export interface RepoFigures {
  session: string
  serial: number
  /** Unix seconds of the current serial. */
  updated: number
  publishers: PublisherFigures[]
}

export interface MetricsSnapshot {
  cas: CaFigures[]
  /** Scheduled tasks by kind, and those due for longer than the overdue grace. */
  tasks: Map<string, number>
  overdue: number
  repo: RepoFigures | undefined
}

/** Where a snapshot is read from: storage interfaces only, and the in-memory child exchanges. */
export interface SnapshotSources {
  cas: Pick<CaStore, 'handles'>
  objects: Pick<CaObjectsStore, 'counts'>
  status: Pick<CaStatusStore, 'all'>
  tasks: Pick<TaskStore, 'all'>
  /** The embedded publication server's store; undefined when [repository] is not enabled. */
  publication: Pick<PublicationStore, 'stats' | 'rrdpState' | 'publishers'> | undefined
  children: ChildExchanges
}

/** A task due for longer than this is overdue: the scheduler runs due tasks at once, so it is behind. */
export const OVERDUE_GRACE_MS = 60_000

const seconds = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000))

/** Read everything once, at `now` (milliseconds). */
export function readSnapshot(src: SnapshotSources, now: number): MetricsSnapshot {
  const counts = new Map<string, Map<string, number>>()
  for (const c of src.objects.counts()) {
    const m = counts.get(c.handle) ?? new Map<string, number>()
    m.set(c.kind, c.count)
    counts.set(c.handle, m)
  }
  const cas = src.cas.handles().map((ca) => caFigures(ca, src, counts.get(ca)))
  src.children.keepOnly(new Set(cas.map((c) => c.ca)))
  const tasks = new Map<string, number>()
  let overdue = 0
  for (const t of src.tasks.all()) {
    tasks.set(t.kind, (tasks.get(t.kind) ?? 0) + 1)
    if (t.due < now - OVERDUE_GRACE_MS) overdue++
  }
  return { cas, tasks, overdue, repo: src.publication && repoFigures(src.publication, now) }
}

function caFigures(ca: string, src: SnapshotSources, counts: Map<string, number> | undefined): CaFigures {
  const statuses = src.status.all(ca)
  const of = (kind: StatusKind) => statuses.filter((s) => s.kind === kind).map((s) => exchange(s.name, s.status))
  const parents = of('parent')
  const repo = of('repo')[0]
  const objectsFailing = statuses.some((s) => s.kind === 'objects' && s.status.result === 'failure')
  const issues = parents.filter((p) => !p.ok).length + (repo && !repo.ok ? 1 : 0) + (objectsFailing ? 1 : 0)
  return { ca, roas: counts?.get('roa') ?? 0, aspas: counts?.get('asa') ?? 0, routerCerts: counts?.get('router') ?? 0, issues, parents, repo, children: src.children.of(ca) }
}

function exchange(name: string, s: { time: string; result: string; lastSuccess?: string }): ExchangeFigures {
  const ok = s.result === 'success'
  return { name, ok, time: seconds(s.time)!, lastSuccess: ok ? seconds(s.time) : seconds(s.lastSuccess) }
}

function repoFigures(pubd: NonNullable<SnapshotSources['publication']>, now: number): RepoFigures | undefined {
  const state = pubd.rrdpState()
  if (!state) return undefined
  const stats = pubd.stats()
  // Only a publisher that never published needs its creation time (the publishers' rows are read only then).
  const created = stats.some((p) => p.lastPublish === undefined) ? new Map(pubd.publishers().map((p) => [p.handle, p.created])) : new Map<string, string>()
  const publishers = stats.map((p) => {
    const since = Date.parse(p.lastPublish ?? created.get(p.handle) ?? new Date(now).toISOString())
    return { handle: p.handle, objects: Number(p.objects), size: Number(p.size), lastUpdate: seconds(p.lastPublish), staleness: Math.max(0, Math.floor((now - since) / 1000)) }
  })
  return { session: state.session, serial: state.serial, updated: seconds(state.updated)!, publishers }
}

/**
 * The last RFC 6492 exchange with each registered child, per CA, in memory (recording them in the database would
 * write on every child request; with suspension of inactive children on, the status store keeps the contact time).
 */
export class ChildExchanges {
  private readonly byCa = new Map<string, Map<string, ExchangeFigures>>()

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  record(ca: string, child: string, ok: boolean): void {
    const m = this.byCa.get(ca) ?? new Map<string, ExchangeFigures>()
    const time = Math.floor(this.clock.now() / 1000)
    const last = m.get(child)
    m.set(child, { name: child, ok, time, lastSuccess: ok ? time : last?.lastSuccess })
    this.byCa.set(ca, m)
  }

  of(ca: string): ExchangeFigures[] {
    return [...(this.byCa.get(ca)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  /** Forget the CAs that are gone. */
  keepOnly(cas: ReadonlySet<string>): void {
    for (const ca of this.byCa.keys()) if (!cas.has(ca)) this.byCa.delete(ca)
  }
}
