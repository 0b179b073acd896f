/**
 * Alarms where operators see and wire them (issue 26 §3), against a real svcd with `[[alerts.webhooks]]` pointing at a
 * real receiver on loopback that verifies each signature (the secret in a 0600 file):
 * - the test event: a receiver answering 500 first gets the same signed bytes again after the back-off, then it is
 *   delivered; GET /api/v1/alerts and `svcc alerts` show the delivery with its two attempts; an unknown webhook is 404
 *   alert-webhook-unknown and queues nothing; a role without ca-admin may not send one;
 * - alarms as stored rows: GET /api/v1/alerts (?active=true, paging), `svcc alerts [--all]`, `svc_alarm_active`; a
 *   token limited to one CA sees that CA's alarms and the CA-less ones only;
 * - the relying-party view (check_seconds = 2): a file deleted from the rsync tree raises repository-check-failed naming
 *   the CA and the file within two check intervals, delivered signed, shown by the API, svcc and svc_alarm_active;
 *   the next publication heals the tree and the alarm is cleared (alarm.cleared);
 * - the secret, and the token in the webhook URL's query, appear in no log line, API answer or svcc output.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { AlertsJson } from '../../src/api/alerts.js'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import type { NewTokenJson } from '../../src/api/tokens.js'
import { Db } from '../../src/store/db.js'
import { createSqlStores } from '../../src/store/sql-stores.js'
import { repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, svcc, tempDir } from '../helpers/daemon.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js'
import { waitFor } from '../helpers/wait.js'
import { webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js'

const SECRET = 'whsec-3f9c1b7e5d2a8f4c6e0b9d1a7c3e5f28'
const URL_TOKEN = 'urltoken-8d7c6b5a4f3e2d1c'

function api(d: RepoDaemon, token: string, method: string, path: string, body?: unknown) {
  return httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
}

async function alerts(d: RepoDaemon, query = '', token = d.token): Promise<AlertsJson> {
  const r = await api(d, token, 'GET', `alerts${query}`)
  if (r.status !== 200) throw new Error(`GET /api/v1/alerts${query}: ${r.status} ${r.body}`)
  return JSON.parse(r.body) as AlertsJson
}

/** A daemon whose webhooks `ops` (every kind) and `stalls` (publish-stalled only) post to `hook`, retrying after 1 s. */
async function alertingDaemon(t: Test, hook: WebhookReceiver, extra = ''): Promise<{ d: RepoDaemon; secretFile: string }> {
  const secretFile = join(tempDir(t, 'svc-whsec-'), 'webhook.secret')
  writeFileSync(secretFile, SECRET, { mode: 0o600 })
  chmodSync(secretFile, 0o600)
  const toml = [
    '[alerts]', 'retry_seconds = 1', 'max_retry_seconds = 2', 'max_attempts = 5', 'timeout_seconds = 5', '',
    '[[alerts.webhooks]]', 'name = "ops"', `url = "${hook.url}?token=${URL_TOKEN}"`, `secret_file = "${secretFile}"`, '',
    '[[alerts.webhooks]]', 'name = "stalls"', `url = "${hook.url}"`, 'events = ["publish-stalled"]', `secret_file = "${secretFile}"`, '',
    extra,
  ].join('\n')
  const d = await repoDaemon(t, { extra: toml, logLevel: 'info' })
  return { d, secretFile }
}

/** Nothing svcd said or answered holds the secret or the URL's token. */
function noSecrets(t: Test, what: string, text: string): void {
  t.notOk(text.includes(SECRET), `${what}: no webhook secret`)
  t.notOk(text.includes(URL_TOKEN), `${what}: no token of the webhook URL`)
}

/** The first two tests look at the alarms they make alone: no relying-party checks (they would clear stored rows of "liveness"). */
const NO_LIVENESS = '[liveness]\nenabled = false\n'

t.test('a test event: signed, retried after a 500, delivered; visible with its attempts; unknown webhooks and roles refused', async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  const { d, secretFile } = await alertingDaemon(t, hook, NO_LIVENESS)
  const outputs: string[] = []

  const empty = await alerts(d)
  t.same(empty.active, [], 'no alarms')
  t.same(empty.deliveries, [], 'no deliveries')
  t.same(empty.webhooks, [
    { name: 'ops', url: hook.url, events: [] },
    { name: 'stalls', url: hook.url, events: ['publish-stalled'] },
  ], 'the webhooks, the URL without its query')

  // Refused: an unknown webhook (404, nothing queued), a body that is not the test body (400).
  const unknown = await api(d, d.token, 'POST', 'alerts/test', { webhook: 'nope' })
  t.equal(unknown.status, 404)
  t.match(JSON.parse(unknown.body), { label: 'alert-webhook-unknown', msg: /nope.*ops, stalls/ })
  const bad = await api(d, d.token, 'POST', 'alerts/test', { hook: 'ops' })
  t.equal(bad.status, 400)
  t.equal(JSON.parse(bad.body).label, 'api-invalid-body')
  t.same((await alerts(d)).deliveries, [], 'nothing queued')
  t.same(hook.received, [], 'nothing sent')

  // Hostile input on the new doors (alerts, health, quarantine): labelled refusals, nothing queued, nothing dropped.
  const raw = async (method: string, path: string, body?: string) => {
    // Content-Length: Node sends a DELETE's body unframed otherwise (no chunked encoding for DELETE).
    const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}) }, ...(body !== undefined ? { body } : {}) })
    return { status: r.status, label: r.body ? (JSON.parse(r.body) as { label?: string }).label : undefined }
  }
  const quarantineBefore = (await api(d, d.token, 'GET', 'quarantine')).body
  for (const [method, path, body, status, label] of [
    ['POST', 'alerts/test', '{"webhook":', 400, 'api-json'],
    ['POST', 'alerts/test', '{"webhook":5}', 400, 'api-invalid-body'],
    ['POST', 'alerts/test', '[]', 400, 'api-invalid-body'],
    ['POST', 'alerts/test', JSON.stringify({ webhook: 'x'.repeat(300 * 1024) }), 413, 'api-post-body-exceeds-limit'],
    ['GET', 'alerts?active=maybe', undefined, 400, 'api-invalid-query'],
    ['GET', 'alerts?limit=-1', undefined, 400, 'api-invalid-query'],
    ['GET', 'alerts?offset=x', undefined, 400, 'api-invalid-query'],
    ['DELETE', 'quarantine/abc', undefined, 404, 'api-unknown-resource'],
    ['DELETE', 'quarantine/99999', undefined, 404, 'api-unknown-resource'],
    ['DELETE', 'quarantine/1', '{"force":true}', 400, 'api-unexpected-body'],
  ] as const) {
    t.same(await raw(method, path, body), { status, label }, `${method} ${path} ${(body ?? '').slice(0, 30)}: ${status} ${label}`)
  }
  t.same((await alerts(d)).deliveries, [], 'still nothing queued')
  t.equal((await api(d, d.token, 'GET', 'quarantine')).body, quarantineBefore, 'the quarantine unchanged')

  // The receiver fails once: the same signed bytes come again after the back-off, then it takes them.
  hook.answer(500)
  const sent = await svcc(['alerts', 'test', '--webhook', 'ops'], { env: d.env })
  t.equal(sent.code, 0, sent.stderr)
  t.match(sent.stdout, /test event queued for: ops/)
  outputs.push(sent.stdout, sent.stderr)
  await waitFor('the test event delivered', () => hook.events('test').length === 1)
  const tries = hook.received.filter((r) => r.body.event === 'test')
  t.equal(tries.length, 2, 'two attempts reached the receiver')
  t.same(tries.map((r) => r.status), [500, 204])
  t.ok(tries.every((r) => r.signed), 'both signed with the secret')
  t.ok(tries[0]!.raw.equals(tries[1]!.raw), 'the retry sent the same bytes')
  t.equal(tries[0]!.headers['x-svc-event'], 'test')
  t.match(tries[0]!.body, { event: 'test', delivery: /^[0-9a-f]{32}$/, service_uri: d.url })
  t.equal(tries[0]!.headers['x-svc-delivery'], tries[0]!.body.delivery)
  // The README's check of a signature, with openssl.
  const body = join(tempDir(t, 'svc-whbody-'), 'body.json')
  writeFileSync(body, tries[1]!.raw)
  const readme = (sig: string) => spawnSync('sh', ['-c', `want="sha256=$(openssl dgst -sha256 -hmac "$(cat "$SECRET_FILE")" -r < "$BODY" | cut -d' ' -f1)"; [ "$want" = "$SIG" ] && echo "signed by svcd" || echo "REJECT"`], { encoding: 'utf8', env: { ...process.env, SECRET_FILE: secretFile, BODY: body, SIG: sig } }).stdout.trim()
  t.equal(readme(String(tries[1]!.headers['x-svc-signature-256'])), 'signed by svcd', "the README's openssl check accepts svcd's signature")
  t.equal(readme(`sha256=${'0'.repeat(64)}`), 'REJECT', 'and refuses another')
  const delivered = await waitFor('the delivery recorded', async () => (await alerts(d)).deliveries.find((x) => x.status === 'delivered'))
  t.match(delivered, { webhook: 'ops', event: 'test', alarm: null, status: 'delivered', attempts: 2, last_error: null, next_at: null })
  t.ok(delivered.done, 'with the time it was delivered')

  // svcc alerts shows it, with its attempts and the last error; --format json is the API's answer.
  const text = await svcc(['alerts'], { env: d.env })
  t.equal(text.code, 0, text.stderr)
  t.match(text.stdout, /No active alarms\./)
  t.match(text.stdout, /Webhooks: ops \(http:\/\/127\.0\.0\.1:\d+\/hook\), stalls/)
  t.match(text.stdout, /ops\s+test\s+-\s+delivered\s+2\s+-/)
  const json = await svcc(['alerts', '--format', 'json'], { env: d.env })
  t.match(JSON.parse(json.stdout), { active: [], deliveries: [{ webhook: 'ops', status: 'delivered', attempts: 2 }] })
  outputs.push(text.stdout, json.stdout)

  // Every webhook without a name: both get it.
  const both = JSON.parse((await api(d, d.token, 'POST', 'alerts/test')).body)
  t.same(both, { queued: ['ops', 'stalls'] })
  await waitFor('both webhooks took the second test event', () => hook.events('test').length === 3)

  // A readonly token limited to testbed may look, not send.
  const made = JSON.parse(await d.cli(['tokens', 'add', '--name', 'viewer', '--role', 'readonly', '--cas', 'testbed', '--format', 'json'])) as NewTokenJson
  t.equal((await api(d, made.token, 'GET', 'alerts')).status, 200, 'readonly may list')
  const refused = await api(d, made.token, 'POST', 'alerts/test', {})
  t.equal(refused.status, 403)
  t.match(JSON.parse(refused.body), { label: 'api-insufficient-rights', args: { permission: 'ca-admin' } })

  outputs.push(JSON.stringify(await alerts(d)))
  for (const o of outputs) noSecrets(t, 'API and svcc output', o)
  noSecrets(t, "svcd's log", d.output())
})

t.test('alarms: listed, paged, per role; svcc alerts --all; svc_alarm_active', async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  const { d } = await alertingDaemon(t, hook, NO_LIVENESS)
  // Rows in the store, as the alert service writes them (the producers of conditions are other parts' tests).
  const db = Db.openSecondary(join(d.dataDir, 'svcd.db'))
  t.teardown(() => db.close())
  const store = createSqlStores(db).alerts
  const at = Date.UTC(2026, 10, 27, 12)
  store.saveAlarm({ key: 'repository-check-failed:testbed', kind: 'repository-check-failed', subject: 'testbed', ca: 'testbed', source: 'liveness', reason: 'rsync: missing rsync://localhost/repo/testbed/0/x.roa', raisedAt: at })
  store.saveAlarm({ key: 'manifest-expiring:other', kind: 'manifest-expiring', subject: 'other', ca: 'other', source: 'liveness', reason: 'manifest expires in 3 h', raisedAt: at + 1000 })
  store.saveAlarm({ key: 'service-stalled:scheduler', kind: 'service-stalled', subject: 'scheduler', source: 'queues', reason: 'no task ran for 300 s', raisedAt: at + 2000 })
  for (let i = 0; i < 3; i++) {
    store.saveAlarm({ key: `child-nonfunctional:other/c${i}`, kind: 'child-nonfunctional', subject: `other/c${i}`, ca: 'other', source: 'liveness', reason: 'no current manifest', raisedAt: at - 10_000 * (i + 1), clearedAt: at - 5_000 * (i + 1) })
  }
  store.saveAlarm({ key: 'publish-stalled:publication', kind: 'publish-stalled', subject: 'publication', source: 'publication', reason: 'RRDP behind', raisedAt: at - 1000, clearedAt: at - 500 })

  const all = await alerts(d)
  t.same(all.active.map((a) => a.subject), ['testbed', 'other', 'scheduler'], 'active, oldest first')
  t.same(all.active[0], { kind: 'repository-check-failed', subject: 'testbed', ca: 'testbed', reason: 'rsync: missing rsync://localhost/repo/testbed/0/x.roa', raised_at: new Date(at).toISOString() })
  t.equal(all.active[2]!.ca, null, 'a CA-less alarm')
  t.same(all.recent.map((a) => a.subject), ['publication', 'other/c0', 'other/c1', 'other/c2'], 'cleared, the most recently raised first')
  t.equal(all.recent[0]!.cleared_at, new Date(at - 500).toISOString())
  t.same((await alerts(d, '?active=true')).recent, [], '?active=true: no cleared ones')
  const page = await alerts(d, '?offset=1&limit=2')
  t.same(page.recent.map((a) => a.subject), ['other/c0', 'other/c1'], 'a window of the cleared ones')
  t.match(page, { offset: 1, limit: 2 })
  t.equal(page.active.length, 3, 'the active ones are never paged')
  for (const q of ['?active=yes', '?limit=0', '?limit=1001', '?offset=-1', '?active=true&active=false']) {
    const r = await api(d, d.token, 'GET', `alerts${q}`)
    t.equal(r.status, 400, q)
    t.equal(JSON.parse(r.body).label, 'api-invalid-query', q)
  }

  // A token limited to testbed: testbed's alarms and the CA-less ones.
  const made = JSON.parse(await d.cli(['tokens', 'add', '--name', 'viewer', '--role', 'readonly', '--cas', 'testbed', '--format', 'json'])) as NewTokenJson
  const scoped = await alerts(d, '', made.token)
  t.same(scoped.active.map((a) => a.subject), ['testbed', 'scheduler'], "another CA's alarm is not shown")
  t.same(scoped.recent.map((a) => a.subject), ['publication'])

  // svcc alerts: the active ones; --all the cleared ones too.
  const text = await d.cli(['alerts'])
  t.match(text, /Active alarms \(3\):/)
  t.match(text, /repository-check-failed\s+testbed\s+testbed\s+2026-11-27T12:00:00Z\s+rsync: missing/)
  t.match(text, /service-stalled\s+scheduler\s+-\s+/)
  t.notMatch(text, /Cleared alarms/)
  t.match(await d.cli(['alerts', '--all']), /Cleared alarms:\n[^]*child-nonfunctional\s+other\/c0\s+other\s+/)
  t.equal((await d.run(['alerts', 'nonsense'])).code, 2, 'an unknown action is a usage error')

  // /metrics: svc_alarm_active for each active alarm.
  const metrics = parsePrometheusText((await httpsRequest(`${d.url}metrics`, { headers: { Authorization: `Bearer ${d.token}` } })).body)
  t.equal(sampleValue(metrics, 'svc_alarm_active', { kind: 'repository-check-failed', subject: 'testbed' }), 1)
  t.equal(sampleValue(metrics, 'svc_alarm_active', { kind: 'service-stalled', subject: 'scheduler' }), 1)
  t.equal(sampleValue(metrics, 'svc_alarm_active', { kind: 'publish-stalled', subject: 'publication' }), undefined, 'a cleared one is not')
  noSecrets(t, "svcd's log", d.output())
})

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const CHECK_S = 2
/** A fault shows within two check intervals, plus a fetch's timeout and the time a check takes on a loaded machine. */
const FAULT_MS = 2 * CHECK_S * 1000 + 3000 + 15_000

async function health(d: RepoDaemon): Promise<HealthCaJson[]> {
  const r = await api(d, d.token, 'GET', 'health/cas')
  if (r.status !== 200) throw new Error(`GET /api/v1/health/cas: ${r.status} ${r.body}`)
  return (JSON.parse(r.body) as HealthPageJson).cas
}

async function activeAlarm(d: RepoDaemon, kind: string, subject: string): Promise<number | undefined> {
  const r = await httpsRequest(`${d.url}metrics`, { headers: { Authorization: `Bearer ${d.token}` } })
  return sampleValue(parsePrometheusText(r.body), 'svc_alarm_active', { kind, subject })
}

t.test("a file deleted from the rsync tree: alarm.raised naming the CA and the file, signed; cleared after the next publication", { skip: noRsync }, async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  const { d } = await alertingDaemon(t, hook, `[liveness]\ncheck_seconds = ${CHECK_S}\nafter_publish_seconds = 1\nfetch_timeout_seconds = 3\n`)
  let cas: HealthCaJson[] = []
  await waitFor('ta and testbed checked and functional over both transports', async () => {
    cas = await health(d)
    return cas.length === 2 && cas.every((c) => c.functional === true && c.findings_count === 0 && c.last_good_fetch.rsync !== null && c.last_good_fetch.rrdp !== null)
  }, 60_000, 250)
  // A check racing the start-up publications may have raised an alarm of its own (two checks in a row on a loaded
  // machine): it clears once a check finds everything as published.
  await waitFor('no alarm while everything is as published', async () => (await alerts(d)).active.length === 0, FAULT_MS, 250)

  // The testbed's CRL deleted from the tree rsyncd serves (the next publication re-issues it).
  const dir = cas.find((c) => c.ca === 'testbed')!.points[0]!.dir
  const tree = (uri: string) => join(d.dataDir, 'repo', 'rsync', 'current', uri.slice(d.rsyncBase.length))
  const crl = readdirSync(tree(dir)).find((n) => n.endsWith('.crl'))!
  // Only what comes after the deletion counts (a check racing the start-up publications may have raised and cleared
  // an alarm of its own before).
  const from = hook.received.length
  const after = (event: string) => hook.received.slice(from).filter((r) => r.signed && r.status < 300 && r.body.event === event && r.body.alarm?.subject === 'testbed' && r.body.alarm.reason.includes(crl))
  const deleted = Date.now()
  rmSync(tree(dir + crl))
  const [raised] = await waitFor('alarm.raised for testbed naming the CRL', () => after('alarm.raised').length ? after('alarm.raised') : undefined, FAULT_MS, 100)
  t.pass(`alarm.raised ${Date.now() - deleted} ms after the file was deleted (check_seconds = ${CHECK_S})`)
  t.match(raised!.body, { event: 'alarm.raised', alarm: { kind: 'repository-check-failed', subject: 'testbed', ca: 'testbed', reason: /^rsync: missing rsync:\/\/localhost:\d+\/repo\/testbed\// } })
  t.ok(raised!.headers['x-svc-signature-256'], 'signed (the receiver verified it with the secret)')

  // Where operators see it: the API, svcc, /metrics.
  const listed = (await alerts(d)).active.find((a) => a.subject === 'testbed')
  t.match(listed, { kind: 'repository-check-failed', ca: 'testbed', reason: new RegExp(crl.replace('.', '\\.')) })
  t.match(await d.cli(['alerts']), new RegExp(`repository-check-failed\\s+testbed\\s+testbed\\s+\\S+\\s+.*${crl.replace('.', '\\.')}`))
  t.equal(await activeAlarm(d, 'repository-check-failed', 'testbed'), 1, 'svc_alarm_active')
  const delivery = await waitFor('the delivery recorded', async () => (await alerts(d)).deliveries.find((x) => x.event === 'alarm.raised' && x.status === 'delivered' && Date.parse(x.created) >= Date.parse(raised!.body.at)))
  t.match(delivery, { webhook: 'ops', alarm: 'repository-check-failed:testbed', attempts: 1 })

  // Healed: the next publication (a ROA) rebuilds the tree with a CRL.
  await d.cli(['roas', 'update', '-c', 'testbed', '--delta', d.file('roa.txt', 'A: 10.0.0.0/24 => 65000\n')])
  // The clear of that raise (its reason is the last one stored, which may name another file by then).
  const clears = () => hook.received.slice(from).filter((r) => r.signed && r.status < 300 && r.body.event === 'alarm.cleared' && r.body.alarm?.subject === 'testbed' && r.body.alarm.raised_at === raised!.body.alarm!.raised_at)
  const [cleared] = await waitFor('alarm.cleared for testbed', () => clears().length ? clears() : undefined, FAULT_MS, 100)
  t.match(cleared!.body, { event: 'alarm.cleared', alarm: { kind: 'repository-check-failed', subject: 'testbed', cleared_at: /Z$/ } })
  t.equal(cleared!.body.alarm!.raised_at, raised!.body.alarm!.raised_at, 'the clear of that raise')
  t.match((await alerts(d)).recent.find((a) => a.subject === 'testbed' && a.raised_at === raised!.body.alarm!.raised_at), { kind: 'repository-check-failed', cleared_at: /Z$/ }, 'listed as cleared')
  await waitFor('no testbed alarm active, svc_alarm_active gone', async () => !(await alerts(d)).active.some((a) => a.subject === 'testbed') && (await activeAlarm(d, 'repository-check-failed', 'testbed')) === undefined, FAULT_MS, 250)
  t.pass('healed')
  noSecrets(t, "svcd's log", d.output())
  noSecrets(t, 'svcc alerts', await d.cli(['alerts', '--all', '--format', 'json']))
})
