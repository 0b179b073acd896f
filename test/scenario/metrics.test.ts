/**
 * GET /metrics on the real daemon (issue 14 item 7): 401 without the token and 200 with it (text format 0.0.4, parsed
 * strictly); values that agree with the API and change after adding a CA and a ROA and after an RFC 8181 publish; the HTTP
 * latency histogram labelled with the route pattern, never the raw path; every spelling of /metrics decided the same
 * way by routing and authentication; `svcc metrics`; and a second daemon with metrics_public and metrics_hide_details.
 *
 *   ta ── testbed ── ca1 (AS65000, 10.0.0.0/8)
 */
import https from 'node:https'
import t from 'tap'
import { isPublic, PUBLIC_METRICS } from '../../src/http/auth.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { parsePrometheusText, sampleValue, seriesNames, type Family } from '../helpers/prometheus-text.js'

/** One request with the target sent exactly as written (no URL normalisation). */
function raw(d: RepoDaemon, target: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: d.port, method: 'GET', path: target, headers, rejectUnauthorized: false, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

async function scrape(d: RepoDaemon, auth = true): Promise<Map<string, Family>> {
  const r = await raw(d, '/metrics', auth ? { Authorization: `Bearer ${d.token}` } : {})
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status} ${r.body}`)
  return parsePrometheusText(r.body)
}

const api = async (d: RepoDaemon, path: string) => JSON.parse((await httpsRequest(`${d.url}api/v1/${path}`, { headers: { Authorization: `Bearer ${d.token}` } })).body)

t.test('/metrics behind the token, values against the API, changes after a CA, a ROA and a publish', async (t) => {
  const d = await repoDaemon(t)
  const noToken = await raw(d, '/metrics')
  t.equal(noToken.status, 401, 'no token: 401')
  t.equal(JSON.parse(noToken.body).label, 'api-invalid-credentials')
  t.equal((await raw(d, '/metrics', { Authorization: 'Bearer wrong-token-123' })).status, 401, 'a wrong token: 401')
  const ok = await raw(d, '/metrics', { Authorization: `Bearer ${d.token}` })
  t.equal(ok.status, 200)
  t.equal(ok.type, 'text/plain; version=0.0.4; charset=utf-8')

  // Against the API (waiting until the testbed's first serials are written, so both read the same state).
  const agree = async () => {
    const f = await scrape(d)
    const stats = await api(d, 'pubd/stats')
    const cas = (await api(d, 'cas')).cas.length
    return sampleValue(f, 'svc_repo_rrdp_serial') === stats.serial && sampleValue(f, 'svc_cas') === cas && f
  }
  const before = await waitFor('metrics and the API to agree', agree)
  t.equal(sampleValue(before, 'svc_cas'), 2, 'ta and testbed')
  t.equal(sampleValue(before, 'svc_repo_publisher'), (await api(d, 'pubd/publishers')).publishers.length)
  t.equal(sampleValue(before, 'svc_store_up'), 1)
  t.equal(sampleValue(before, 'svc_instance_role', { role: 'leader' }), 1, 'a single instance is the leader')
  t.equal(sampleValue(before, 'svc_leader_epoch'), 0)
  t.ok(sampleValue(before, 'svc_key_pool_size')! > 0)
  const roasBefore = sampleValue(before, 'svc_roas')!
  const delayBefore = sampleValue(before, 'svc_repo_publish_delay_seconds_count')!

  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('delta.txt', 'A: 10.0.0.0/24 => 65000\n')])
  let shown: { current_files: { uri: string; base64: string }[] } = { current_files: [] }
  const after = await waitFor('the ROA in the metrics and in the API', async () => {
    const f = await scrape(d)
    shown = await api(d, 'pubd/publishers/ca1')
    const published = shown.current_files.some((x) => x.uri.endsWith('.roa'))
    return published && sampleValue(f, 'svc_ca_roas', { ca: 'ca1' }) === 1 && sampleValue(f, 'svc_repo_objects', { publisher: 'ca1' }) === shown.current_files.length && f
  })
  t.same(shown.current_files.map((x) => x.uri.split('.').pop()).sort(), ['crl', 'mft', 'roa'], 'ca1 publishes a CRL, a manifest and the ROA (API)')
  t.equal(sampleValue(after, 'svc_repo_objects', { publisher: 'ca1' }), 3, 'the objects ca1 publishes, as the API shows them')
  t.equal(sampleValue(after, 'svc_cas'), 3, 'one CA more')
  t.equal(sampleValue(after, 'svc_roas'), roasBefore + 1, 'one ROA more')
  t.equal(sampleValue(after, 'svc_repo_size', { publisher: 'ca1' }), shown.current_files.reduce((n, f) => n + Buffer.from(f.base64, 'base64').length, 0), 'the bytes ca1 publishes, as the API shows them')
  t.ok(sampleValue(after, 'svc_repo_rrdp_serial')! > sampleValue(before, 'svc_repo_rrdp_serial')!, 'a new serial')
  t.ok(sampleValue(after, 'svc_repo_publish_delay_seconds_count')! > delayBefore, 'publishes reached a notification: the delay was observed')
  t.equal(sampleValue(after, 'svc_ca_parent_success', { ca: 'ca1', parent: 'testbed' }), 1, 'ca1 to its parent: success')
  t.equal(sampleValue(after, 'svc_ca_child_success', { ca: 'testbed', child: 'ca1' }), 1, 'testbed answered its child ca1')
  t.equal(sampleValue(after, 'svc_ca_ps_success', { ca: 'ca1' }), 1, 'ca1 to the publication server: success')
  t.equal(sampleValue(after, 'svc_ca_issues', { ca: 'ca1' }), 0)
  t.equal(sampleValue(after, 'svc_scheduler_tasks_overdue'), 0)

  // A publisher over RFC 8181: its objects, bytes and last update; the delay of its publish observed.
  const bob = new TestPublisher('bob')
  bob.useResponse(await d.cli(['publishers', 'add', '--request', d.file('bob.xml', bob.requestXml())]))
  const idle = await scrape(d)
  t.ok(sampleValue(idle, 'svc_repo_staleness_seconds', { publisher: 'bob' })! >= 0, 'a publisher that never published: staleness since it was added')
  t.equal(sampleValue(idle, 'svc_repo_last_update', { publisher: 'bob' }), undefined, 'and no last update')
  const delayBeforeBob = sampleValue(idle, 'svc_repo_publish_delay_seconds_count')!
  const publishedAt = Math.floor(Date.now() / 1000)
  t.same(await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${bob.response!.siaBase}x.cer`, content: new Uint8Array(1234) }] }), { type: 'success' }, 'an RFC 8181 publish')
  const published = await waitFor('the RFC 8181 publish in a notification', async () => {
    const f = await scrape(d)
    return sampleValue(f, 'svc_repo_publish_delay_seconds_count')! > delayBeforeBob && f
  })
  t.same([sampleValue(published, 'svc_repo_objects', { publisher: 'bob' }), sampleValue(published, 'svc_repo_size', { publisher: 'bob' })], [1, 1234], 'one object of 1234 bytes')
  t.ok(Math.abs(sampleValue(published, 'svc_repo_last_update', { publisher: 'bob' })! - publishedAt) <= 2, 'its last update is the time of the publish')
  t.ok(sampleValue(published, 'svc_repo_staleness_seconds', { publisher: 'bob' })! <= 5, 'not stale')
  t.equal(sampleValue(published, 'svc_repo_publisher'), (await api(d, 'pubd/publishers')).publishers.length, 'publishers as the API lists them')

  const runs = 10
  const start = process.hrtime.bigint()
  for (let i = 0; i < runs; i++) await scrape(d)
  t.comment(`GET /metrics of the daemon (3 CAs) over HTTPS, parsed: ${(Number(process.hrtime.bigint() - start) / 1e6 / runs).toFixed(1)} ms (mean of ${runs})`)

  // The latency histogram is labelled with the route pattern, never with the handle of the path.
  await d.cli(['show', '-c', 'ca1'])
  const routes = await scrape(d)
  t.ok(sampleValue(routes, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/cas/:ca' })! >= 1, 'GET /api/v1/cas/:ca')
  t.ok(sampleValue(routes, 'svc_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })! >= 1, 'the scrapes themselves')
  t.ok(sampleValue(routes, 'svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '401' })! >= 2, 'refused before routing: unmatched')
  t.same(seriesNames(routes).filter((s) => /route="[^"]*(ca1|testbed)/.test(s)), [], 'no raw path as a route label')
  t.ok(sampleValue(routes, 'svc_process_resident_memory_bytes')! > 0, 'process metrics')

  // svcc metrics: text, JSON and --api.
  const text = await d.cli(['metrics'])
  t.ok(parsePrometheusText(text + '\n').has('svc_cas'), 'svcc metrics prints the exposition')
  const json = JSON.parse(await d.cli(['metrics', '-f', 'json'])) as { name: string; labels: Record<string, string>; value: number }[]
  t.same(json.find((s) => s.name === 'svc_ca_roas' && s.labels.ca === 'ca1'), { name: 'svc_ca_roas', labels: { ca: 'ca1' }, value: 1 }, 'svcc metrics --format json: samples')
  t.match(await d.cli(['metrics', '--api']), /^GET https:\/\/\S+\/metrics\nAuthorization: Bearer \*\*\*\n/)
})

t.test('every spelling of /metrics: routing and authentication agree', async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  const token = { Authorization: `Bearer ${d.token}` }
  // [target, status without the token, status with it]
  const cases: [string, number, number][] = [
    ['/metrics', 401, 200],
    ['/metrics/', 401, 200],
    ['/metrics?x=1', 401, 200],
    ['/Metrics', 401, 404],
    ['/METRICS', 401, 404],
    ['/%6Detrics', 401, 404],
    ['/metrics%2F', 401, 404],
    ['/metrics%2Fx', 401, 404],
    ['/metrics/x', 401, 404],
    ['/./metrics', 400, 400],
    ['/x/../metrics', 400, 400],
    ['/metrics/.', 400, 400],
    ['/%2e/metrics', 400, 400],
    ['//metrics', 400, 400],
    ['/metrics;x', 400, 400],
  ]
  for (const [target, without, withToken] of cases) {
    t.equal((await raw(d, target)).status, without, `${target} without the token`)
    t.equal((await raw(d, target, token)).status, withToken, `${target} with the token`)
  }
  t.notOk(isPublic('GET', '/metrics'), 'not on the public list by default')
  t.ok(isPublic('GET', '/metrics/', [PUBLIC_METRICS]) && !isPublic('GET', '/Metrics', [PUBLIC_METRICS]) && !isPublic('POST', '/metrics', [PUBLIC_METRICS]), 'the opened route: GET and HEAD of /metrics only')
})

t.test('metrics_public and metrics_hide_details', async (t) => {
  const d = await repoDaemon(t, { toml: 'metrics_public = true\nmetrics_hide_details = true' })
  for (const target of ['/metrics', '/metrics/']) t.equal((await raw(d, target)).status, 200, `${target} without the token`)
  for (const target of ['/Metrics', '/metrics%2F', '/metrics/x']) t.equal((await raw(d, target)).status, 401, `${target} is not opened`)
  t.equal((await raw(d, '/api/v1/cas')).status, 401, 'the API still needs the token')
  const f = await waitFor('the testbed in the metrics', async () => {
    const f = await scrape(d, false)
    return sampleValue(f, 'svc_cas') === 2 && (sampleValue(f, 'svc_repo_rrdp_serial') ?? 0) > 0 && f
  })
  t.same(seriesNames(f).filter((s) => /[{,](ca|parent|child|publisher)="/.test(s)), [], 'no series per CA, parent, child or publisher')
  for (const name of ['svc_ca_roas', 'svc_ca_parent_success', 'svc_repo_objects', 'svc_repo_staleness_seconds']) t.notOk(f.has(name), `${name} left out`)
  t.equal(sampleValue(f, 'svc_repo_publisher'), 2, 'the totals stay')
  t.equal(sampleValue(f, 'svc_parent_exchanges', { result: 'success' }), 1, 'testbed to ta')
})
