/**
 * Prometheus metrics at GET /metrics (issue 14 item 7), with prom-client (its one home is app/metrics/). Names follow
 * Krill's /metrics (krill-reference.md §1.1; krill:src/daemon/http/dispatch/metrics.rs) with the prefix `svc_` for
 * `krill_`, plus what svc adds: role and leader epoch, RRDP session, the publish → notification delay, publisher
 * staleness, ASPAs and router certificates, CA issues, the scheduler, the key pool and HTTP requests per route.
 * Gauges are filled at scrape time from one snapshot (metrics-snapshot.ts); counters and histograms are recorded as
 * things happen. With `hideDetails` no series carries a `ca`, `parent`, `child` or `publisher` label (Krill #654).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Clock } from '../../util/clock.js'
import type { Leadership } from '../shared/leadership.js'
import { readSnapshot, type ChildExchanges, type MetricsSnapshot, type SnapshotSources } from './metrics-snapshot.js'
import type { SignerJson } from '../../api/signers.js'
import type { CaLiveness } from '../../liveness/model.js'
import { livenessMetrics, type LivenessChecks } from './liveness-metrics.js'

export interface MetricsServiceDeps {
  sources: SnapshotSources
  leadership: Leadership
  /** The key pool's figures (crypto/key-pool.ts stats). */
  keyPool: { stats(): { size: number; ready: number } }
  /** Whether the database answers (a scrape with a failing store still answers, with svc_store_up 0). */
  storeAlive: () => boolean
  version: string
  started: Date
  clock: Pick<Clock, 'now'>
  /** Leave out every per-CA and per-publisher series (config metrics_hide_details). */
  hideDetails: boolean
  /** Also the process metrics of prom-client (CPU, memory, event loop), prefixed svc_. */
  processMetrics?: boolean
  /** The configured signers with their operation counts since start, availability and keys held (app/signers/signer-service.ts). */
  signers?: () => readonly SignerJson[]
  /** Each CA's liveness as of its last check (the relying-party view, design.md §11): the svc_ca_functional… gauges. */
  liveness?: () => readonly CaLiveness[]
  /** The liveness service's count of checks and the end of the last one. */
  livenessChecks?: () => LivenessChecks
  /** The alarms active now (app/liveness/alert-service.ts). */
  alarms?: () => readonly { kind: string; subject: string }[]
  /** Issue 26 §5: items quarantined by kind (svc_quarantined{what}) and stalled components, 1/0 (svc_stalled{component}). */
  queues?: () => { quarantined: Record<string, number>; stalled: Record<string, number> }
}

/** A scrape: the text exposition format (version 0.0.4) and its content type. */
export interface Scrape {
  contentType: string
  body: string
}

type Fill = (g: Gauge<string>, s: MetricsSnapshot) => void

/** The publish delay buckets (seconds): from a batching interval of 0 to minutes behind. */
const PUBLISH_DELAY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900]

export class MetricsService {
  private readonly registry = new Registry()
  private snapshot: MetricsSnapshot | undefined
  private readonly http: { requests: Counter<string>; duration: Histogram<string> }
  private readonly publishDelay: Histogram<string>
  private readonly logins: Record<'success' | 'failure' | 'rate-limited', Counter<string>>
  private readonly children: ChildExchanges
  private readonly deliveries: Counter<string>
  /** Whether the last snapshot could be read (svc_store_up). */
  private storeUp = false
  /** The signers as read for this scrape. */
  private signerRows: readonly SignerJson[] = []

  constructor(private readonly d: MetricsServiceDeps) {
    this.children = d.sources.children
    const registers = [this.registry]
    this.http = {
      requests: new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames: ['method', 'route', 'status'], registers }),
      duration: new Histogram({ name: 'svc_http_request_duration_seconds', help: 'HTTP request latency by method and route pattern', labelNames: ['method', 'route'], registers }),
    }
    this.publishDelay = new Histogram({ name: 'svc_repo_publish_delay_seconds', help: 'delay from acknowledging a publish to the RRDP notification that contains it', buckets: PUBLISH_DELAY_BUCKETS, registers })
    this.logins = {
      success: new Counter({ name: 'svc_auth_logins_total', help: 'logins (POST /auth/login and the OpenID Connect callback) that started a session, by provider', labelNames: ['provider'], registers }),
      failure: new Counter({ name: 'svc_auth_login_failures_total', help: 'logins refused (wrong credentials, or a user without the login permission), by provider', labelNames: ['provider'], registers }),
      'rate-limited': new Counter({ name: 'svc_auth_login_rate_limited_total', help: 'logins refused unchecked because their source or user failed too often lately, by provider', labelNames: ['provider'], registers }),
    }
    this.deliveries = new Counter({ name: 'svc_alert_deliveries_total', help: 'webhook delivery attempts by webhook and outcome (delivered, failed: retried later, gave-up)', labelNames: ['webhook', 'outcome'], registers })
    if (d.alarms) {
      const alarms = orEmpty(d.alarms, [])
      this.plain('svc_alarm_active', 'the alarms active now (1 each), by kind and subject', ['kind', 'subject'], (g) => {
        for (const a of alarms()) g.set({ kind: a.kind, subject: a.subject }, 1)
      })
    }
    this.serverGauges()
    this.signerMetrics()
    this.queueGauges()
    this.caGauges()
    this.repoGauges()
    livenessMetrics(this.registry, { liveness: orEmpty(d.liveness ?? (() => []), []), ...(d.livenessChecks ? { checks: d.livenessChecks } : {}), hideDetails: d.hideDetails })
    if (d.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' })
  }

  /** The text exposition of every metric, read now. */
  async scrape(): Promise<Scrape> {
    let alive = false
    try {
      alive = this.d.storeAlive()
      this.snapshot = alive ? readSnapshot(this.d.sources, this.d.clock.now()) : undefined
    } catch {
      this.snapshot = undefined // svc_store_up 0 says why the store figures are missing
    }
    this.storeUp = alive && this.snapshot !== undefined
    try {
      this.signerRows = this.d.signers?.() ?? []
    } catch {
      this.signerRows = [] // the key counts come from the database; a scrape with a failing store still answers
    }
    try {
      return { contentType: this.registry.contentType, body: await this.registry.metrics() }
    } finally {
      this.snapshot = undefined
    }
  }

  /** One HTTP request answered: `route` is the router's pattern (bounded), never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.requests.inc({ method, route, status: String(status) })
    this.http.duration.observe({ method, route }, seconds)
  }

  /** A publish reached the notification `seconds` after it was acknowledged (app/pubd/publish-latency.ts). */
  observePublishDelay(seconds: number): void {
    this.publishDelay.observe(seconds)
  }

  /** A login's outcome (app/access/login-service.ts). */
  observeLogin(provider: string, outcome: 'success' | 'failure' | 'rate-limited'): void {
    this.logins[outcome].inc({ provider })
  }

  /** A webhook delivery attempt's outcome (app/liveness/alert-service.ts). */
  observeDelivery(webhook: string, outcome: string): void {
    this.deliveries.inc({ webhook, outcome })
  }

  /** An RFC 6492 exchange with a registered child (app/ca/child-server.ts). */
  childExchanged(ca: string, child: string, ok: boolean): void {
    this.children.record(ca, child, ok)
  }

  /** A gauge filled from the scrape's snapshot (left empty when the store could not be read). */
  private gauge(name: string, help: string, labelNames: readonly string[], fill: Fill): void {
    const self = this
    new Gauge({
      name, help, labelNames, registers: [this.registry],
      collect() {
        this.reset()
        if (self.snapshot) fill(this, self.snapshot)
      },
    })
  }

  /** A gauge that needs no store. */
  private plain(name: string, help: string, labelNames: readonly string[], fill: (g: Gauge<string>) => void): void {
    new Gauge({
      name, help, labelNames, registers: [this.registry],
      collect() {
        this.reset()
        fill(this)
      },
    })
  }

  private queueGauges(): void {
    if (!this.d.queues) return
    const q = orEmpty(this.d.queues, { quarantined: {}, stalled: {} })
    this.plain('svc_quarantined', 'items set aside because what is stored cannot be decoded or run, by kind (task, ca, publication)', ['what'], (g) => {
      for (const [what, n] of Object.entries(q().quarantined)) g.set({ what }, n)
    })
    this.plain('svc_stalled', 'whether a part of svcd stopped making progress (1) or not (0): scheduler, publication, leadership, pacer', ['component'], (g) => {
      for (const [component, n] of Object.entries(q().stalled)) g.set({ component }, n)
    })
  }

  private serverGauges(): void {
    const d = this.d
    const [major, minor, patch] = d.version.split(/[.+-]/).map((x) => Number.parseInt(x, 10))
    this.plain('svc_server_start', 'unix timestamp of the last svcd start', [], (g) => g.set(Math.floor(d.started.getTime() / 1000)))
    this.plain('svc_version_major', 'svcd major version number', [], (g) => g.set(major ?? 0))
    this.plain('svc_version_minor', 'svcd minor version number', [], (g) => g.set(minor ?? 0))
    this.plain('svc_version_patch', 'svcd patch version number', [], (g) => g.set(patch ?? 0))
    this.plain('svc_store_up', 'whether the database answered this scrape (1) or not (0: the store figures are left out)', [], (g) => g.set(this.storeUp ? 1 : 0))
    this.plain('svc_instance_role', 'role of this instance among those sharing the database (1 for the current role)', ['role'], (g) => {
      for (const role of ['leader', 'follower']) g.set({ role }, d.leadership.role() === role ? 1 : 0)
    })
    this.plain('svc_leader_epoch', 'epoch of the leadership this instance holds or last saw (0 for a single instance)', [], (g) => g.set(d.leadership.epoch()))
    this.plain('svc_key_pool_ready', 'pre-generated keys ready in the key pool', [], (g) => g.set(d.keyPool.stats().ready))
    this.plain('svc_key_pool_size', 'number of keys the key pool keeps ready', [], (g) => g.set(d.keyPool.stats().size))
    this.gauge('svc_scheduler_tasks', 'scheduled tasks by kind', ['kind'], (g, s) => {
      for (const [kind, n] of s.tasks) g.set({ kind }, n)
    })
    this.gauge('svc_scheduler_tasks_overdue', 'scheduled tasks due for more than a minute (the scheduler is behind)', [], (g, s) => g.set(s.overdue))
  }

  /**
   * Per configured signer (issue 25): signatures and key generations and their failures since start (counters read from
   * the SignerSet's counts at scrape time), whether it can sign now, and the keys recorded for it.
   */
  private signerMetrics(): void {
    if (!this.d.signers) return
    const rows = () => this.signerRows
    const registers = [this.registry]
    const counter = (name: string, help: string, value: (s: SignerJson, op: 'sign' | 'keygen') => number) =>
      new Counter({
        name, help, labelNames: ['signer', 'operation'], registers,
        collect() {
          this.reset()
          for (const s of rows()) for (const operation of ['sign', 'keygen'] as const) this.inc({ signer: s.name, operation }, value(s, operation))
        },
      })
    this.plain('svc_signer_available', 'whether the signer can sign now (1) or not (0)', ['signer'], (g) => {
      for (const s of rows()) g.set({ signer: s.name }, s.available ? 1 : 0)
    })
    this.plain('svc_signer_keys', 'persistent keys recorded for the signer', ['signer'], (g) => {
      for (const s of rows()) g.set({ signer: s.name }, s.keys)
    })
    counter('svc_signer_operations_total', 'signatures (sign) and key generations (keygen) by the signer since svcd started', (s, op) => (op === 'sign' ? s.operations.sign : s.operations.keygen))
    counter('svc_signer_errors_total', 'failed signatures (sign) and key generations (keygen) of the signer since svcd started', (s, op) => (op === 'sign' ? s.operations.sign_errors : s.operations.keygen_errors))
  }

  private caGauges(): void {
    const sum = (s: MetricsSnapshot, f: (c: MetricsSnapshot['cas'][number]) => number) => s.cas.reduce((n, c) => n + f(c), 0)
    this.gauge('svc_cas', 'number of CAs in svcd', [], (g, s) => g.set(s.cas.length))
    this.gauge('svc_roas', 'ROA objects published by all CAs', [], (g, s) => g.set(sum(s, (c) => c.roas)))
    this.gauge('svc_aspas', 'ASPA objects published by all CAs', [], (g, s) => g.set(sum(s, (c) => c.aspas)))
    this.gauge('svc_router_certs', 'BGPsec router certificates published by all CAs', [], (g, s) => g.set(sum(s, (c) => c.routerCerts)))
    this.gauge('svc_issues', 'CA issues (failing repository, parent or objects) over all CAs', [], (g, s) => g.set(sum(s, (c) => c.issues)))
    const results = (name: string, help: string, pick: (c: MetricsSnapshot['cas'][number]) => { ok: boolean }[]) =>
      this.gauge(name, help, ['result'], (g, s) => {
        const all = s.cas.flatMap(pick)
        g.set({ result: 'success' }, all.filter((e) => e.ok).length)
        g.set({ result: 'failure' }, all.filter((e) => !e.ok).length)
      })
    results('svc_parent_exchanges', 'CA to parent connections by the result of their last exchange', (c) => c.parents)
    results('svc_ps_exchanges', 'CA to publication server connections by the result of their last exchange', (c) => (c.repo ? [c.repo] : []))
    results('svc_child_exchanges', 'child to CA connections since svcd started, by the result of their last exchange', (c) => c.children)
    if (this.d.hideDetails) return
    const perCa = (name: string, help: string, value: (c: MetricsSnapshot['cas'][number]) => number) =>
      this.gauge(name, help, ['ca'], (g, s) => {
        for (const c of s.cas) g.set({ ca: c.ca }, value(c))
      })
    perCa('svc_ca_roas', 'ROA objects published by the CA', (c) => c.roas)
    perCa('svc_ca_aspas', 'ASPA objects published by the CA', (c) => c.aspas)
    perCa('svc_ca_router_certs', 'BGPsec router certificates published by the CA', (c) => c.routerCerts)
    perCa('svc_ca_issues', 'issues of the CA (failing repository, parent or objects)', (c) => c.issues)
    this.exchangeGauges()
  }

  /** Krill's per-CA exchange gauges: success of the last exchange and time of the last success. */
  private exchangeGauges(): void {
    const pairs = (name: string, help: string, other: 'parent' | 'child', pick: (c: MetricsSnapshot['cas'][number]) => MetricsSnapshot['cas'][number]['parents'], value: (e: MetricsSnapshot['cas'][number]['parents'][number]) => number | undefined) =>
      this.gauge(name, help, ['ca', other], (g, s) => {
        for (const c of s.cas) for (const e of pick(c)) {
          const v = value(e)
          if (v !== undefined) g.set({ ca: c.ca, [other]: e.name }, v)
        }
      })
    pairs('svc_ca_parent_success', 'status of last CA to parent connection (1 .. success)', 'parent', (c) => c.parents, (e) => (e.ok ? 1 : 0))
    pairs('svc_ca_parent_last_success_time', 'unix timestamp of last successful CA to parent connection', 'parent', (c) => c.parents, (e) => e.lastSuccess)
    pairs('svc_ca_child_success', 'status of last child to CA connection since svcd started (1 .. success)', 'child', (c) => c.children, (e) => (e.ok ? 1 : 0))
    pairs('svc_ca_child_last_connection', 'unix timestamp of last child to CA connection since svcd started', 'child', (c) => c.children, (e) => e.time)
    pairs('svc_ca_child_last_success', 'unix timestamp of last successful child to CA connection since svcd started', 'child', (c) => c.children, (e) => e.lastSuccess)
    const repo = (name: string, help: string, value: (e: NonNullable<MetricsSnapshot['cas'][number]['repo']>) => number | undefined) =>
      this.gauge(name, help, ['ca'], (g, s) => {
        for (const c of s.cas) {
          const v = c.repo && value(c.repo)
          if (v !== undefined) g.set({ ca: c.ca }, v)
        }
      })
    repo('svc_ca_ps_success', 'status of last CA to Publication Server connection (1 .. success)', (e) => (e.ok ? 1 : 0))
    repo('svc_ca_ps_last_success_time', 'unix timestamp of last successful CA to Publication Server connection', (e) => e.lastSuccess)
  }

  private repoGauges(): void {
    if (!this.d.sources.publication) return
    this.gauge('svc_repo_publisher', 'number of publishers in repository', [], (g, s) => g.set(s.repo?.publishers.length ?? 0))
    this.gauge('svc_repo_rrdp_serial', 'RRDP serial', [], (g, s) => s.repo && g.set(s.repo.serial))
    this.gauge('svc_repo_rrdp_last_update', 'unix timestamp of the current RRDP serial', [], (g, s) => s.repo && g.set(s.repo.updated))
    this.gauge('svc_repo_rrdp_session', 'the current RRDP session (1 for its session id)', ['session'], (g, s) => s.repo && g.set({ session: s.repo.session }, 1))
    this.gauge('svc_repo_all_objects', 'number of objects in repository', [], (g, s) => g.set(s.repo?.publishers.reduce((n, p) => n + p.objects, 0) ?? 0))
    this.gauge('svc_repo_all_size', 'size of all objects in repository in bytes', [], (g, s) => g.set(s.repo?.publishers.reduce((n, p) => n + p.size, 0) ?? 0))
    if (this.d.hideDetails) return
    const perPublisher = (name: string, help: string, value: (p: NonNullable<MetricsSnapshot['repo']>['publishers'][number]) => number | undefined) =>
      this.gauge(name, help, ['publisher'], (g, s) => {
        for (const p of s.repo?.publishers ?? []) {
          const v = value(p)
          if (v !== undefined) g.set({ publisher: p.handle }, v)
        }
      })
    perPublisher('svc_repo_objects', 'number of objects in repository for publisher', (p) => p.objects)
    perPublisher('svc_repo_size', 'size of objects in bytes in repository for publisher', (p) => p.size)
    perPublisher('svc_repo_last_update', 'unix timestamp of last update for publisher', (p) => p.lastUpdate)
    perPublisher('svc_repo_staleness_seconds', 'seconds since the publisher last published (since it was added, if never)', (p) => p.staleness)
  }
}

/**
 * A source read at scrape time that may read the database (the alarms; the liveness state on a follower): when the
 * store fails, its series are left out and the scrape still answers (svc_store_up 0 says why), as for the snapshot.
 */
function orEmpty<T>(read: () => T, empty: T): () => T {
  return () => {
    try {
      return read()
    } catch {
      return empty
    }
  }
}
