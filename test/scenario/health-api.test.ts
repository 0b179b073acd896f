/**
 * Where operators see liveness (issue 26 §2), against a real svcd whose repository is served over HTTPS (RRDP) and by
 * its rsync daemon, checked every 2 s (`[liveness] check_seconds = 2`):
 *
 *   ta ── testbed          (the embedded trust anchor and the testbed CA, both in the embedded repository)
 *
 * - `svcc health` shows ta and testbed functional, with the hours to manifest expiry, the last good fetch per
 *   transport; `-c testbed` one CA; `--check` runs a check now; `--format json` is the API's page.
 * - The API: 404 ca-unknown, 400 for a bad filter or a body on POST …/check, and a token limited to `ta` sees only ta
 *   (403 on testbed, 403 on the check, which needs ca-admin).
 * - /metrics has the liveness gauges with the values the API shows.
 * - A real fault: testbed's CRL moved out of the rsync tree rsyncd serves. svcd reports it (missing over rsync) while
 *   RRDP still serves it (so testbed stays functional), and the finding clears once the file is back.
 */
import t from 'tap'
import { existsSync, readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import type { HealthCaJson, HealthCheckJson, HealthPageJson } from '../../src/api/health.js'
import type { NewTokenJson } from '../../src/api/tokens.js'
import { repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, svcc, tempDir } from '../helpers/daemon.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js'
import { waitFor } from '../helpers/wait.js'

const LIVENESS = '[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\n'

function api(d: RepoDaemon, token: string, method: string, path: string, body?: string) {
  return httpsRequest(`${d.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body }) })
}

async function health(d: RepoDaemon, args: string[] = []): Promise<{ code: number | null; json: unknown; stderr: string }> {
  const r = await svcc(['health', '--format', 'json', ...args], { env: d.env })
  return { code: r.code, json: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr }
}

/** The directory of the rsync tree rsyncd serves that holds `dir` (an rsync URI under the daemon's base). */
const treeDir = (d: RepoDaemon, dir: string) => join(d.dataDir, 'repo', 'rsync', 'current', dir.slice(d.rsyncBase.length))

t.test('svcc health, the API, the role filter, /metrics and a file missing from rsync', async (t) => {
  const d = await repoDaemon(t, { extra: LIVENESS })

  // Both CAs functional over both transports, with their expiries.
  // Right after start the rsync tree may trail RRDP by a few seconds (issue 26 §4): wait until both agree.
  let last: HealthPageJson | undefined
  const page = await waitFor('ta and testbed checked and functional over RRDP and rsync, without findings', async () => {
    const r = await health(d)
    const p = (last = r.json as HealthPageJson | undefined)
    return r.code === 0 && p && p.cas.length === 2 && p.cas.every((c) => c.functional === true && c.last_good_fetch.rrdp && c.last_good_fetch.rsync && c.findings_count === 0) ? p : undefined
  }, 90_000).catch((e) => {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last?.cas.map((c) => [c.ca, c.functional, c.points.map((p) => p.findings)]))}`)
  })
  t.same(page.cas.map((c) => c.ca), ['ta', 'testbed'])
  t.same(page.summary, { cas: 2, checked: 2, functional: 2, non_functional: 0, children_non_functional: 0 })
  for (const c of page.cas) {
    t.ok(c.hours_to_manifest_expiry! > 0 && c.hours_to_crl_expiry! > 0 && c.hours_to_cert_expiry! > 0, `${c.ca}: expiries ahead (manifest in ${c.hours_to_manifest_expiry} h)`)
    t.equal(c.findings_count, 0, `${c.ca}: no findings`)
    t.match(c.points[0], { functional: true, seen: { rrdp: { reachable: true, valid: true }, rsync: { reachable: true, valid: true } } })
  }
  const text = await svcc(['health'], { env: d.env })
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /^Healthy: 2 CAs functional\n\nCA\s+functional\s+manifest\s+CRL\s+certificates\s+rrdp fetch\s+rsync fetch\s+rsync lag\s+findings\nta\s+yes\s+in \d+(\.\d)?h\s+in [\d.]+h\s+in [\d.]+h\s+\d+s ago\s+\d+s ago\s+\S+\s+0\ntestbed\s+yes\s+in [\d.]+h/)

  // One CA; a check now.
  const one = await health(d, ['-c', 'testbed'])
  t.equal(one.code, 0)
  t.match(one.json as HealthCaJson, { ca: 'testbed', functional: true, points: [{ dir: /^rsync:\/\/localhost:\d+\/repo\// }] })
  const checked = await health(d, ['--check'])
  t.equal(checked.code, 0, checked.stderr)
  t.match(checked.json as HealthCheckJson, { check: /^(ran|joined|recent)$/, total: 2, cas: [{ ca: 'ta' }, { ca: 'testbed' }] })

  // The API's refusals: nothing changes.
  const unknown = await api(d, d.token, 'GET', 'api/v1/health/cas/nope')
  t.same([unknown.status, JSON.parse(unknown.body).label], [404, 'ca-unknown'])
  const bad = await api(d, d.token, 'GET', 'api/v1/health/cas?functional=maybe')
  t.same([bad.status, JSON.parse(bad.body).label, JSON.parse(bad.body).args.name], [400, 'api-invalid-query', 'functional'])
  const body = await api(d, d.token, 'POST', 'api/v1/health/check', '{"x":1}')
  t.same([body.status, JSON.parse(body.body).label], [400, 'api-unexpected-body'])
  const onlyBad = JSON.parse((await api(d, d.token, 'GET', 'api/v1/health/cas?functional=false')).body) as HealthPageJson
  t.same([onlyBad.total, onlyBad.summary.cas], [0, 2])

  // A token limited to ta: only ta, 403 on testbed, 403 on a check (ca-admin).
  const made = JSON.parse(await d.cli(['tokens', 'add', '--name', 'ta-only', '--permissions', 'ca-list,ca-read', '--cas', 'ta', '--format', 'json'])) as NewTokenJson
  const limited = JSON.parse((await api(d, made.token, 'GET', 'api/v1/health/cas')).body) as HealthPageJson
  t.same([limited.total, limited.summary.cas, limited.cas.map((c) => c.ca)], [1, 1, ['ta']])
  const other = await api(d, made.token, 'GET', 'api/v1/health/cas/testbed')
  t.same([other.status, JSON.parse(other.body).label], [403, 'api-insufficient-rights'])
  t.equal((await api(d, made.token, 'GET', 'api/v1/health/cas/ta')).status, 200)
  const check = await api(d, made.token, 'POST', 'api/v1/health/check')
  t.same([check.status, JSON.parse(check.body).args.permission], [403, 'ca-admin'])
  const viaCli = await svcc(['health', '--format', 'json'], { env: { ...d.env, SVC_CLI_TOKEN: made.token } })
  t.same([viaCli.code, (JSON.parse(viaCli.stdout) as HealthPageJson).cas.map((c) => c.ca)], [0, ['ta']])

  // /metrics: the gauges, with the values the API shows.
  const now = JSON.parse((await api(d, d.token, 'GET', 'api/v1/health/cas')).body) as HealthPageJson
  const m = parsePrometheusText((await api(d, d.token, 'GET', 'metrics')).body)
  t.equal(sampleValue(m, 'svc_cas_nonfunctional'), 0)
  for (const c of now.cas) {
    t.equal(sampleValue(m, 'svc_ca_functional', { ca: c.ca }), 1, `svc_ca_functional{ca="${c.ca}"}`)
    // A check may end between the two reads: the expiry is the same unless a manifest was re-issued in between.
    t.ok(Math.abs(sampleValue(m, 'svc_ca_manifest_expiry_timestamp_seconds', { ca: c.ca })! - Date.parse(c.manifest_expires!) / 1000) < 3600, `${c.ca}: manifest expiry`)
    t.ok(sampleValue(m, 'svc_ca_certificate_expiry_timestamp_seconds', { ca: c.ca })! > Date.now() / 1000)
    for (const transport of ['rrdp', 'rsync']) t.ok(sampleValue(m, 'svc_ca_last_good_fetch_timestamp_seconds', { ca: c.ca, transport })! > Date.now() / 1000 - 120, `${c.ca}: last good ${transport} fetch`)
  }
  t.ok(sampleValue(m, 'svc_liveness_checks_total', { outcome: 'ok' })! >= 1)
  t.ok(sampleValue(m, 'svc_liveness_last_check_timestamp_seconds')! > Date.now() / 1000 - 120)

  // A real fault: testbed's CRL leaves the rsync tree (RRDP still serves it).
  const dir = treeDir(d, page.cas[1]!.points[0]!.dir)
  const crl = readdirSync(dir).find((f) => f.endsWith('.crl'))!
  const aside = join(tempDir(t), crl)
  renameSync(join(dir, crl), aside)
  const found = await waitFor('the missing CRL reported over rsync', async () => {
    const c = (await health(d, ['-c', 'testbed'])).json as HealthCaJson
    return c.points.flatMap((p) => p.findings).some((f) => f.kind === 'missing' && f.transport === 'rsync' && f.uri?.endsWith(crl)) ? c : undefined
  }, 60_000)
  t.equal(found.functional, true, 'still functional: relying parties get it over RRDP')
  const shown = await svcc(['health'], { env: d.env })
  t.match(shown.stdout, new RegExp(`Findings:\\n(.*\\n)*  testbed: missing over rsync \\S*${crl.replace('.', '\\.')}`))
  const metricsNow = parsePrometheusText((await api(d, d.token, 'GET', 'metrics')).body)
  t.ok(sampleValue(metricsNow, 'svc_ca_repository_findings', { ca: 'testbed', kind: 'missing' })! >= 1, 'svc_ca_repository_findings{kind="missing"}')

  if (existsSync(dir)) renameSync(aside, join(dir, crl))
  await waitFor('the finding cleared', async () => ((await health(d, ['-c', 'testbed'])).json as HealthCaJson).findings_count === 0, 60_000)
})
