/**
 * The wire JSON of the relying-party view (api/health.ts) from hand-built CaLiveness values: snake_case fields, ISO
 * times, hours to expiry, the CA's earliest expiries, the page (filters, sorts, summary, 1,000 CAs); the coalesced
 * check of POST /api/v1/health/check (http/routes/health.ts) on the fake clock; the liveness gauges of /metrics
 * (app/metrics/liveness-metrics.ts, through the real MetricsService) with and without metrics_hide_details; and the
 * report of `svcc health` (text, exit code).
 */
import { join } from 'node:path'
import t from 'tap'
import { caHealthJson, healthPage, hoursUntil, type HealthQuery } from '../../../src/api/health.js'
import { ChildExchanges } from '../../../src/app/metrics/metrics-snapshot.js'
import { MetricsService } from '../../../src/app/metrics/metrics-service.js'
import { healthReport } from '../../../src/cli/commands/health.js'
import { coalescedCheck } from '../../../src/http/routes/health.js'
import type { CaLiveness, PointLiveness } from '../../../src/liveness/model.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { parsePrometheusText } from '../../helpers/prometheus-text.js'

const NOW = Date.parse('2026-03-01T12:00:00.000Z')
const H = 3_600_000

function point(o: Partial<PointLiveness> = {}): PointLiveness {
  return {
    dir: 'rsync://localhost/repo/ca1/0/', keyId: 'AB'.repeat(20), functional: true, findings: [],
    seen: {
      rrdp: { transport: 'rrdp', at: NOW - 60_000, reachable: true, valid: true, manifestNumber: '7', manifestThisUpdate: NOW - H, manifestNextUpdate: NOW + 24 * H, crlNextUpdate: NOW + 24 * H, manifestHash: 'ff'.repeat(32) },
    },
    manifestExpires: NOW + 24 * H, crlExpires: NOW + 30 * H, certExpires: NOW + 365 * 24 * H, rsyncLagMs: 1_500, ...o,
  }
}

function ca(name: string, o: Partial<CaLiveness> = {}): CaLiveness {
  return { ca: name, checkedAt: NOW - 60_000, lastGoodFetch: { rrdp: NOW - 60_000, rsync: NOW - 120_000 }, points: [point()], children: [], functional: true, ...o }
}

const broken = ca('ca2', {
  functional: false,
  lastGoodFetch: { rrdp: NOW - 60_000 },
  points: [point({ functional: false, manifestExpires: NOW - 2 * H, rsyncLagMs: 8_400, findings: [{ kind: 'missing', transport: 'rsync', uri: 'rsync://localhost/repo/ca2/0/a.roa', detail: 'published, not served' }, { kind: 'stale', detail: 'manifest past its nextUpdate', rule: 'RFC 9286 §4.2.1' }] }), point({ dir: 'rsync://localhost/repo/ca2/1/', manifestExpires: NOW + 5 * H, rsyncLagMs: undefined })],
  children: [{ child: 'kid', point: point({ dir: 'rsync://elsewhere/repo/kid/', functional: false, findings: [{ kind: 'unreachable', transport: 'rrdp', detail: 'connection refused' }] }), nonFunctionalSince: NOW - 24 * H, revokeAt: NOW + 89 * 24 * H }],
})

const q = (o: Partial<HealthQuery> = {}): HealthQuery => ({ offset: 0, limit: 100, q: '', sort: 'ca', order: 'asc', ...o })

t.test('a CA as JSON: snake_case, ISO times, hours to each expiry, nulls for what is unknown', async (t) => {
  const j = caHealthJson(ca('ca1'), NOW)
  t.same(j, {
    ca: 'ca1', functional: true, checked_at: '2026-03-01T11:59:00.000Z', last_good_fetch: { rrdp: '2026-03-01T11:59:00.000Z', rsync: '2026-03-01T11:58:00.000Z' },
    manifest_expires: '2026-03-02T12:00:00.000Z', crl_expires: '2026-03-02T18:00:00.000Z', cert_expires: '2027-03-01T12:00:00.000Z',
    hours_to_manifest_expiry: 24, hours_to_crl_expiry: 30, hours_to_cert_expiry: 8760, rsync_lag_seconds: 1.5, findings_count: 0,
    points: [{
      dir: 'rsync://localhost/repo/ca1/0/', key_id: 'AB'.repeat(20), functional: true,
      manifest_expires: '2026-03-02T12:00:00.000Z', crl_expires: '2026-03-02T18:00:00.000Z', cert_expires: '2027-03-01T12:00:00.000Z',
      hours_to_manifest_expiry: 24, hours_to_crl_expiry: 30, hours_to_cert_expiry: 8760, rsync_lag_seconds: 1.5,
      seen: { rrdp: { at: '2026-03-01T11:59:00.000Z', reachable: true, valid: true, manifest_number: '7', manifest_this_update: '2026-03-01T11:00:00.000Z', manifest_next_update: '2026-03-02T12:00:00.000Z', crl_next_update: '2026-03-02T12:00:00.000Z', manifest_hash: 'ff'.repeat(32) }, rsync: null },
      findings: [],
    }],
    children: [],
  })
  t.same(JSON.parse(JSON.stringify(j)), j, 'plain JSON: survives a round trip')
})

t.test('a broken CA: earliest expiries of its points, longest lag, findings counted, children with revoke dates', async (t) => {
  const j = caHealthJson(broken, NOW)
  t.same([j.functional, j.hours_to_manifest_expiry, j.manifest_expires, j.rsync_lag_seconds, j.findings_count, j.last_good_fetch.rsync], [false, -2, '2026-03-01T10:00:00.000Z', 8.4, 2, null])
  t.same(j.points[0]!.findings, [
    { kind: 'missing', transport: 'rsync', uri: 'rsync://localhost/repo/ca2/0/a.roa', rule: null, detail: 'published, not served' },
    { kind: 'stale', transport: null, uri: null, rule: 'RFC 9286 §4.2.1', detail: 'manifest past its nextUpdate' },
  ])
  t.same(j.points[1]!.rsync_lag_seconds, null)
  t.match(j.children, [{ child: 'kid', functional: false, non_functional_since: '2026-02-28T12:00:00.000Z', revoke_at: '2026-05-29T12:00:00.000Z', hours_to_revoke: 2136, point: { dir: 'rsync://elsewhere/repo/kid/', findings: [{ kind: 'unreachable' }] } }])
})

t.test('a CA never checked: functional null, no times', async (t) => {
  const j = caHealthJson({ ca: 'new', lastGoodFetch: {}, points: [], children: [], functional: false }, NOW)
  t.same([j.functional, j.checked_at, j.last_good_fetch, j.hours_to_manifest_expiry, j.rsync_lag_seconds], [null, null, { rrdp: null, rsync: null }, null, null])
})

t.test('hours are to a tenth, negative once past', async (t) => {
  t.same([hoursUntil(NOW + 90 * 60_000, NOW), hoursUntil(NOW - 6 * 60_000, NOW), hoursUntil(undefined, NOW)], [1.5, -0.1, null])
})

t.test('the page: summary of all, filters by functional, ca and q, sorts, pages', async (t) => {
  const fresh: CaLiveness = { ca: 'ca3', lastGoodFetch: {}, points: [], children: [], functional: false }
  const all = [ca('ca1'), broken, fresh]
  const p = healthPage(all, q(), NOW)
  t.same(p.summary, { cas: 3, checked: 2, functional: 1, non_functional: 1, children_non_functional: 1 })
  t.same([p.total, p.cas.map((c) => c.ca)], [3, ['ca1', 'ca2', 'ca3']])
  t.same(healthPage(all, q({ functional: false }), NOW).cas.map((c) => c.ca), ['ca2'], 'never-checked CAs are not non-functional')
  t.same(healthPage(all, q({ functional: true }), NOW).cas.map((c) => c.ca), ['ca1'])
  t.same(healthPage(all, q({ ca: 'ca3' }), NOW).cas.map((c) => c.ca), ['ca3'])
  t.same(healthPage(all, q({ q: 'A2' }), NOW).cas.map((c) => c.ca), ['ca2'])
  t.same(healthPage(all, q({ sort: 'functional' }), NOW).cas.map((c) => c.ca), ['ca2', 'ca3', 'ca1'])
  t.same(healthPage(all, q({ sort: 'manifest_expiry' }), NOW).cas.map((c) => c.ca), ['ca2', 'ca1', 'ca3'])
  t.same(healthPage(all, q({ order: 'desc' }), NOW).cas.map((c) => c.ca), ['ca3', 'ca2', 'ca1'])
  const second = healthPage(all, q({ offset: 1, limit: 1 }), NOW)
  t.same([second.total, second.offset, second.limit, second.cas.map((c) => c.ca)], [3, 1, 1, ['ca2']])
})

t.test('1,000 CAs: a page of 100 sorted by expiry is fast', async (t) => {
  const many = Array.from({ length: 1000 }, (_, i) => (i % 10 === 0 ? { ...broken, ca: `ca${i}` } : ca(`ca${i}`, { points: [point({ manifestExpires: NOW + i * 60_000 }), point()] })))
  const start = performance.now()
  const p = healthPage(many, q({ sort: 'manifest_expiry' }), NOW)
  const ms = performance.now() - start
  t.comment(`1,000 CAs, a page of 100 by manifest expiry: ${ms.toFixed(1)} ms`)
  t.same([p.total, p.cas.length, p.summary.non_functional], [1000, 100, 100])
  t.ok(ms < 500, 'well under a request budget')
})

t.test('a check asked while one runs joins it; one asked soon after runs none', async (t) => {
  const clock = new FakeClock(NOW)
  let runs = 0
  let release!: () => void
  const check = coalescedCheck(() => (runs++, new Promise<void>((r) => (release = r))), clock, 10_000)
  const a = check()
  const b = check()
  await Promise.resolve()
  t.equal(runs, 1, 'one check for two asks')
  release()
  t.same(await Promise.all([a, b]), ['ran', 'joined'])
  t.equal(await check(), 'recent')
  t.equal(runs, 1)
  await clock.advance(10_000)
  const c = check()
  release()
  t.equal(await c, 'ran')
  t.equal(runs, 2)
})

t.test('/metrics: the liveness gauges with exact values; hidden details leave only the counts', async (t) => {
  const dir = tempDir(t, 'svc-health-metrics-')
  const db = Db.open(join(dir, 'm.db'))
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const fresh: CaLiveness = { ca: 'ca3', lastGoodFetch: {}, points: [], children: [], functional: false }
  const metrics = (hideDetails: boolean) => new MetricsService({
    sources: { cas: stores.cas, objects: stores.objects, status: stores.status, tasks: stores.tasks, publication: undefined, children: new ChildExchanges({ now: () => NOW }) },
    leadership: { role: () => 'leader', epoch: () => 0, fence: () => undefined }, keyPool: { stats: () => ({ size: 1, ready: 1 }) }, storeAlive: () => true,
    version: '1.2.3', started: new Date(NOW), clock: { now: () => NOW }, hideDetails, liveness: () => [ca('ca1'), broken, fresh],
    livenessChecks: () => ({ checks: { ok: 2, failed: 1 }, lastCheckAt: NOW - 30_000 }),
  })
  const m = metrics(false)
  const f = parsePrometheusText((await m.scrape()).body)
  const v = (name: string) => Object.fromEntries((f.get(name)?.samples ?? []).map((s) => [Object.values(s.labels).join('/'), s.value]))
  t.same(v('svc_cas_nonfunctional'), { '': 1 })
  t.same(v('svc_ca_functional'), { ca1: 1, ca2: 0 }, 'ca3 is not checked yet')
  t.same(v('svc_ca_manifest_expiry_timestamp_seconds'), { ca1: (NOW + 24 * H) / 1000, ca2: (NOW - 2 * H) / 1000 })
  t.same(v('svc_ca_crl_expiry_timestamp_seconds'), { ca1: (NOW + 30 * H) / 1000, ca2: (NOW + 30 * H) / 1000 })
  t.same(v('svc_ca_certificate_expiry_timestamp_seconds').ca1, (NOW + 365 * 24 * H) / 1000)
  t.same(v('svc_ca_last_good_fetch_timestamp_seconds'), { 'ca1/rrdp': (NOW - 60_000) / 1000, 'ca1/rsync': (NOW - 120_000) / 1000, 'ca2/rrdp': (NOW - 60_000) / 1000 })
  t.same(v('svc_ca_repository_findings'), { 'ca2/missing': 1, 'ca2/stale': 1 })
  t.same(v('svc_ca_rsync_lag_seconds'), { ca1: 1.5, ca2: 8.4 })
  t.same(v('svc_child_functional'), { 'ca2/kid': 0 })
  t.same(v('svc_child_revoke_timestamp_seconds'), { 'ca2/kid': (NOW + 89 * 24 * H) / 1000 })
  t.same(v('svc_liveness_checks_total'), { ok: 2, failed: 1 })
  t.same(v('svc_liveness_last_check_timestamp_seconds'), { '': (NOW - 30_000) / 1000 })
  const hidden = parsePrometheusText((await metrics(true).scrape()).body)
  t.same([...hidden.keys()].filter((n) => /liveness|functional|svc_ca_|svc_child_(functional|revoke)/.test(n)).sort(), ['svc_cas_nonfunctional', 'svc_liveness_checks_total', 'svc_liveness_last_check_timestamp_seconds'])
  t.notMatch((await metrics(true).scrape()).body, /ca="/, 'no series names a CA')
})

t.test('svcc health: summary, table, findings, children; exit code 1 when a checked CA is not functional', async (t) => {
  const cas = [caHealthJson(ca('ca1'), NOW), caHealthJson(broken, NOW)]
  const r = healthReport(cas, {}, NOW)
  t.equal(r.exitCode, 1)
  const lines = r.text.split('\n')
  t.equal(lines[0], 'Not healthy: 1 of 2 CAs not functional (ca2)')
  t.match(lines[2], /^CA\s+functional\s+manifest\s+CRL\s+certificates\s+rrdp fetch\s+rsync fetch\s+rsync lag\s+findings$/)
  t.match(lines[3], /^ca1\s+yes\s+in 24h\s+in 30h\s+in 8760h\s+60s ago\s+2m ago\s+1\.5s\s+0$/)
  t.match(lines[4], /^ca2\s+NO\s+expired 2h ago\s+in 30h\s+in 8760h\s+60s ago\s+never\s+8\.4s\s+2$/)
  t.match(r.text, /Findings:\n {2}ca2: missing over rsync rsync:\/\/localhost\/repo\/ca2\/0\/a\.roa: published, not served\n {2}ca2: stale: manifest past its nextUpdate \(RFC 9286 §4\.2\.1\)/)
  t.match(r.text, /Children publishing elsewhere:\n {2}ca2\/kid: NOT functional since 2026-02-28T12:00:00\.000Z; a registry would revoke it at 2026-05-29T12:00:00\.000Z \(in 2136h\)/)
  const ok = healthReport([cas[0]!, caHealthJson({ ca: 'new', lastGoodFetch: {}, points: [], children: [], functional: false }, NOW)], {}, NOW)
  t.same([ok.exitCode, ok.text.split('\n')[0]], [0, 'Healthy: 1 CA functional, 1 not checked yet'])
})
