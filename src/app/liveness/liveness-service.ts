/**
 * The liveness service (design.md §11, issue 26 §1, §2): on a schedule and after each publication, the leader fetches
 * every repository its CAs (and their delegated children that publish elsewhere) publish in, once per transport, as a
 * relying party would; checks each publication point against what the CA believes it published (point-check.ts);
 * turns that into each CA's liveness (liveness/liveness.ts); stores it (a follower and a restart show it) and reports
 * the conditions that hold to the alert service. Built by compose-liveness.ts; read by the API, svcc, the console and
 * /metrics through LivenessView.
 */
import type { CaKeySummary } from '../../ca/object-model.js'
import type { CaState } from '../../ca/state.js'
import { reasonOf } from '../../errors.js'
import { compareTransports } from '../../liveness/compare.js'
import { checkPointSteps, type ObjectMemo, type PointToCheck } from '../../liveness/point-check.js'
import { caLiveness, childLiveness, conditions, pointLiveness, transitions, type LivenessRules, type PointMemory } from '../../liveness/liveness.js'
import type { BelievedPoint, CaLiveness, ChildLiveness, FetchedRepository, Finding, PointLiveness, PointSeen, Transport } from '../../liveness/model.js'
import type { Logger } from '../../log.js'
import type { LivenessStore, StoredLiveness } from '../../store/liveness-interfaces.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import { believedPoints } from './believed-points.js'
import { childPoints, localDirs } from './child-points.js'
import type { AlarmSink, LivenessView, RepositoryFetcher } from './ports.js'

/** Where a CA's repository is fetched from: its notification (rrdp) and an rsync directory (everything below it). */
export interface Sources {
  rrdp?: string
  rsync?: string
}

export interface LivenessServiceDeps {
  /** The CAs of this svcd and their state (read-only). */
  cas: { handles(): string[]; load(handle: string): { state: CaState } | undefined }
  objects: { summaries(handle: string): CaKeySummary[] }
  store: LivenessStore
  fetcher: RepositoryFetcher
  /** The alert service (source "liveness"); absent: conditions are only shown. */
  alarms?: AlarmSink
  /** Only the leader checks; the others show what it stored. */
  leading: () => boolean
  clock: Clock
  log: Logger
  /** Where relying parties fetch a CA's repository (the embedded one: `[liveness] rrdp_notification_uri`, rsync_base_uri). */
  sources: (s: CaState) => Sources
  /** Where a delegated child's point is fetched from (its SIA), or nothing to skip a transport. */
  childSources: (p: BelievedPoint) => Sources
  config: {
    checkMs: number
    afterPublishMs: number
    /** Check delegated children that publish elsewhere. */
    children: boolean
    rules: LivenessRules
  }
}

/** Counts for /metrics: checks that ran to the end (ok) or failed, and when the last one ended. */
export interface LivenessStats {
  checks: { ok: number; failed: number }
  lastCheckAt?: number
}

/**
 * Checks after publications take at most this share of the time (issue 28): a check reads every CA, so under a stream
 * of publications (10,000 CAs being created) back-to-back checks would cost the square of the CAs; spaced by 19 times
 * the last check's duration (at least after_publish_seconds), their cost stays a share of the time, as RRDP's pacer does.
 */
export const LIVENESS_BUSY_SHARE = 0.05

export class LivenessService implements LivenessView {
  private state = new Map<string, StoredLiveness>()
  private loaded = false
  private timer: TimerHandle | undefined
  private soon: TimerHandle | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = false
  private readonly counts: LivenessStats = { checks: { ok: 0, failed: 0 } }
  /** How long the last check took (ms, the injected clock's time). */
  private lastDurationMs = 0
  /** The objects' findings of the last check and of this one: bytes that did not change are not verified again. */
  private kept = new Map<string, Finding[]>()
  private fresh = new Map<string, Finding[]>()
  private readonly objects: ObjectMemo = {
    get: (key) => {
      const found = this.fresh.get(key) ?? this.kept.get(key)
      if (found) this.fresh.set(key, found)
      return found
    },
    set: (key, findings) => void this.fresh.set(key, findings),
  }

  constructor(private readonly d: LivenessServiceDeps) {}

  /**
   * Check every check_seconds, and the first time after_publish_seconds after start (not in the way of start-up); a
   * check that found something wrong is followed by another after_publish_seconds later.
   */
  start(): void {
    this.stopped = false
    this.timer = this.d.clock.setInterval(() => this.kick(), this.d.config.checkMs)
    this.published()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.d.clock.clear(this.timer)
    this.d.clock.clear(this.soon)
    this.timer = this.soon = undefined
    await this.running
  }

  /**
   * Something was published: one check after_publish_seconds from now (a burst of publications gets one check), or
   * later when the last check was long (LIVENESS_BUSY_SHARE).
   */
  published(): void {
    if (this.stopped || this.timer === undefined || this.soon !== undefined) return
    const delay = Math.max(this.d.config.afterPublishMs, Math.round(this.lastDurationMs * (1 / LIVENESS_BUSY_SHARE - 1)))
    this.soon = this.d.clock.setTimeout(() => {
      this.soon = undefined
      this.kick()
    }, delay, { background: true })
  }

  all(): CaLiveness[] {
    const known = this.d.cas.handles()
    const stored = this.view()
    return known.map((ca) => stored.get(ca)?.liveness ?? unchecked(ca))
  }

  get(ca: string): CaLiveness | undefined {
    if (!this.d.cas.load(ca)) return undefined
    return this.view().get(ca)?.liveness ?? unchecked(ca)
  }

  stats(): LivenessStats {
    return { checks: { ...this.counts.checks }, ...(this.counts.lastCheckAt !== undefined ? { lastCheckAt: this.counts.lastCheckAt } : {}) }
  }

  /** Check now; a check under way finishes first, then one more runs. Never rejects. */
  async checkNow(): Promise<void> {
    if (this.running) {
      this.again = true
      await this.running // then the check asked for runs (kick's `again`)
    } else this.kick()
    await this.running
  }

  private kick(): void {
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.guarded().finally(() => {
      this.running = undefined
      if (this.again && !this.stopped) {
        this.again = false
        this.kick()
      }
    })
  }

  /** One check, never throwing out of the timer: a failure is logged and counted. */
  private async guarded(): Promise<void> {
    this.again = false
    if (!this.d.leading()) {
      this.loaded = false // a follower shows what the leader stored
      return
    }
    const started = this.d.clock.now()
    try {
      await this.check()
      this.counts.checks.ok++
    } catch (e) {
      this.counts.checks.failed++
      this.d.log.warn('liveness check failed', { err: reasonOf(e) })
    }
    this.counts.lastCheckAt = this.d.clock.now()
    this.lastDurationMs = this.counts.lastCheckAt - started
  }

  private view(): Map<string, StoredLiveness> {
    if (!this.loaded || !this.d.leading()) {
      this.state = new Map(this.d.store.all().map((r) => [r.liveness.ca, r]))
      this.loaded = this.d.leading()
    }
    return this.state
  }

  private async check(): Promise<void> {
    const d = this.d
    this.fresh = new Map()
    const before = this.view()
    const handles = d.cas.handles()
    const states = new Map<string, CaState>()
    for (const h of handles) {
      const s = d.cas.load(h)?.state
      if (s) states.set(h, s)
    }
    const local = localDirs(states.values())
    // What each CA believes, and every source to fetch (each once per check per transport).
    const plan = new Map<string, { sources: Sources; points: ReturnType<typeof believedPoints>; children: ReturnType<typeof childPoints> }>()
    const wanted = { rrdp: new Set<string>(), rsync: new Set<string>() }
    for (const [h, s] of states) {
      const sources = d.sources(s)
      const points = believedPoints(s, d.objects.summaries(h))
      const children = d.config.children ? childPoints(s, local) : []
      plan.set(h, { sources, points, children })
      if (points.length) add(wanted, sources)
      for (const c of children) add(wanted, d.childSources(c.point))
      await yieldNow() // a thousand CAs: let requests in between
    }
    const fetched = await this.fetchAll(wanted)
    d.fetcher.retain(wanted) // what was kept of repositories no longer checked goes
    const rows: StoredLiveness[] = []
    for (const [h, p] of plan) {
      const prev = before.get(h)
      const now = d.clock.now()
      const memory: Record<string, PointMemory> = {}
      const points: PointLiveness[] = []
      for (const b of p.points) points.push(await this.point({ ...b, key: b.point.dir }, p.sources, fetched, prev, memory, now))
      const children: ChildLiveness[] = []
      for (const c of p.children) {
        const key = `child:${c.child}`
        // What the child published is not known here: its manifest says (no belief to compare, the CRL the manifest lists).
        const check: PointToCheck = { dir: c.point.dir, manifestUri: c.point.manifestUri, ...(c.point.caCert ? { caCert: c.point.caCert } : {}) }
        const point = await this.point({ point: c.point, check, key, ...(c.certExpires !== undefined ? { certExpires: c.certExpires } : {}) }, d.childSources(c.point), fetched, prev, memory, now)
        children.push(childLiveness(c.child, point, prev?.liveness.children.find((x) => x.child === c.child), now, d.config.rules))
      }
      const lastGoodFetch = { ...(prev?.liveness.lastGoodFetch ?? {}) }
      for (const t of ['rrdp', 'rsync'] as const) {
        const src = p.sources[t]
        const f = src === undefined ? undefined : fetched[t].get(src)
        if (f && !f.error && p.points.length) lastGoodFetch[t] = f.at
      }
      const liveness = caLiveness(h, points, children, lastGoodFetch, now, prev?.liveness)
      for (const c of transitions(prev?.liveness, liveness)) {
        if (c.functional) d.log.info('functional again as relying parties see it', { subject: c.subject })
        else d.log.info('not functional as relying parties see it', { subject: c.subject, reason: c.reason ?? '' })
      }
      rows.push({ liveness, memory })
      await yieldNow()
    }
    this.kept = this.fresh // what this check read: the memo never holds more than one repository's objects
    if (!d.leading()) return // deposed during the check: the new leader's state stands
    d.store.save(rows, [...states.keys()])
    this.state = new Map(rows.map((r) => [r.liveness.ca, r]))
    this.loaded = true
    d.alarms?.report('liveness', conditions(rows.map((r) => r.liveness), d.clock.now(), d.config.rules))
    // Something wrong (perhaps a repository that had not yet served a publication just made): look again soon, as
    // after a publication, rather than only at the next check_seconds; a lasting fault is looked at that often.
    if (rows.some((r) => !r.liveness.functional || r.liveness.points.some((p) => p.findings.length > 0) || r.liveness.children.some((c) => !c.point.functional))) this.published()
  }

  /** Fetch every source once; sources of a transport in parallel, a few at a time. */
  private async fetchAll(wanted: Record<Transport, Set<string>>): Promise<Record<Transport, Map<string, FetchedRepository>>> {
    const out = { rrdp: new Map<string, FetchedRepository>(), rsync: new Map<string, FetchedRepository>() }
    const jobs = (['rrdp', 'rsync'] as const).flatMap((t) => [...wanted[t]].map((source) => ({ t, source })))
    let next = 0
    const worker = async () => {
      while (next < jobs.length && !this.stopped) {
        const job = jobs[next++]!
        out[job.t].set(job.source, await this.d.fetcher.fetch(job.t, job.source))
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    return out
  }

  /**
   * One point's liveness from what each transport served of it (point-check.ts, compare.ts), with the manifest each
   * transport served at the previous check (RFC 9286 §4.2.1: its number only grows); its memory goes into `memory`.
   */
  private async point(o: { point: BelievedPoint; role?: PointLiveness['role']; certExpires?: number; check?: PointToCheck; key: string }, sources: Sources, fetched: Record<Transport, Map<string, FetchedRepository>>, prev: StoredLiveness | undefined, memory: Record<string, PointMemory>, now: number): Promise<PointLiveness> {
    const b = o.point
    const before = prev?.memory[o.key]
    const last = o.key.startsWith('child:') ? prev?.liveness.children.find((c) => `child:${c.child}` === o.key)?.point : prev?.liveness.points.find((p) => p.dir === b.dir && p.keyId === b.keyId)
    const seen: Partial<Record<Transport, PointSeen>> = {}
    const findings: Finding[] = []
    const got: Partial<Record<Transport, FetchedRepository>> = {}
    for (const t of ['rrdp', 'rsync'] as const) {
      const src = sources[t]
      const f = src === undefined ? undefined : fetched[t].get(src)
      if (!f) continue
      got[t] = f
      const was = last?.seen[t]
      const check: PointToCheck = { ...(o.check ?? { dir: b.dir, manifestUri: b.manifestUri, crlUri: b.crlUri, files: b.files, ...(b.caCert ? { caCert: b.caCert } : {}) }), ...(was?.manifestNumber !== undefined ? { previousManifestNumber: was.manifestNumber } : {}), ...(was?.manifestHash !== undefined ? { previousManifestHash: was.manifestHash } : {}) }
      const r = await stepped(checkPointSteps(f, check, now, { expiryMarginMs: this.d.config.rules.expiryMarginMs, objects: this.objects }))
      seen[t] = r.seen
      findings.push(...r.findings)
    }
    if (got.rrdp && got.rsync) findings.push(...compareTransports(got.rrdp, got.rsync, b.dir, now - (before?.disagreementSince ?? now)))
    const r = pointLiveness({ dir: b.dir, keyId: b.keyId, ...(o.role ? { role: o.role } : {}), seen, findings, ...(o.certExpires !== undefined ? { certExpires: o.certExpires } : {}) }, before, now, this.d.config.rules)
    memory[o.key] = r.memory
    return r.liveness
  }
}

function add(wanted: Record<Transport, Set<string>>, s: Sources): void {
  if (s.rrdp) wanted.rrdp.add(s.rrdp)
  if (s.rsync) wanted.rsync.add(s.rsync)
}

function unchecked(ca: string): CaLiveness {
  return { ca, lastGoodFetch: {}, points: [], children: [], functional: false }
}

/** Objects a check verifies between two turns of the event loop (a few ms each when not seen before). */
const OBJECTS_PER_TURN = 16

/** Drive a check's steps, letting other work run every OBJECTS_PER_TURN objects. */
async function stepped<T>(steps: Generator<void, T>): Promise<T> {
  for (let n = 1; ; n++) {
    const r = steps.next()
    if (r.done) return r.value
    if (n % OBJECTS_PER_TURN === 0) await yieldNow()
  }
}

/** Let other work (requests, timers) run between CAs. */
function yieldNow(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
