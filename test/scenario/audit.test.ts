/**
 * The audit trail with a real svcd (issue 24): commands by the admin token and by a user's session (started through
 * the real SessionService on the daemon's own database, as a login does) are named in `svcc history` and in
 * GET /api/v1/audit with the right actor and provider; what svcd does after them (parent syncs, publication) is `svc`;
 * a testbed self-service registration is `anonymous` from its source. Filters, paging and bad parameters; what a
 * `readwrite` user sees against the admin; `svcc audit` as a table, as JSON and with --api; and no secret (the admin
 * token, the session's secret) in any audit record, history entry or answer.
 */
import t from 'tap'
import { join } from 'node:path'
import { SessionService } from '../../src/app/access/session-service.js'
import { systemClock, systemRandom } from '../../src/clock.js'
import { createIdCert } from '../../src/protocol/id-cert.js'
import { Db } from '../../src/store/db.js'
import { SqlSessionStore } from '../../src/store/session-store.js'
import { toBase64 } from '../../src/util/base64.js'
import type { AuditPageJson } from '../../src/api/audit.js'
import type { CommandHistoryJson } from '../../src/api/cas.js'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest, svcc } from '../helpers/daemon.js'
import { testKey } from '../helpers/fixed-keys.js'

const JOE = 'joe@example.com'

t.test('who did what: history and the audit trail name the admin token, a user, svcd and the testbed', async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  // Sessions as a config-file login makes them, in the daemon's database (which it reads): joe (admin) changes
  // things; ann (readwrite: every CA, but neither pub-admin nor every permission) only looks.
  const db = Db.openSecondary(join(d.dataDir, 'svcd.db'))
  t.teardown(() => db.close())
  const sessions = new SessionService({ store: new SqlSessionStore(db), clock: systemClock, random: systemRandom, idleSeconds: 1800, maxSeconds: 43200 })
  const joe = sessions.start({ userId: JOE, provider: 'config-file', role: 'admin' }).secret
  const ann = sessions.start({ userId: 'ann', provider: 'config-file', role: 'readwrite' }).secret
  const asJoe = (args: string[]) => svcc(args, { env: { ...d.env, SVC_CLI_TOKEN: joe } })
  const api = async <T>(path: string, token = d.token) => {
    const r = await httpsRequest(`${d.url}api/v1/${path}`, { headers: { Authorization: `Bearer ${token}` } })
    return { status: r.status, body: JSON.parse(r.body || 'null') as T, raw: r.body }
  }

  const start = new Date(Date.now() - 1000).toISOString()
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const ok = await asJoe(['roas', 'update', '-c', 'ca1', '--delta', d.file('joe.txt', 'A: 10.0.0.0/24 => 65000\n')])
  t.equal(ok.code, 0, `joe's ROA update: ${ok.stderr}`)
  const refused = await asJoe(['roas', 'update', '-c', 'ca1', '--delta', d.file('bad.txt', 'A: 192.168.0.0/24 => 65000\n')])
  t.equal(refused.code, 1, "joe's ROA outside the resources is refused")
  // A testbed self-service registration, without any token.
  const pubReq = { publisher_handle: 'tb-pub', id_cert: toBase64(createIdCert(testKey('bpki-id'), new Date())), tag: null }
  const reg = await httpsRequest(`${d.url}testbed/publishers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pubReq) })
  t.equal(reg.status, 200, `testbed registration: ${reg.body}`)
  await waitFor('the ROA published', async () => /Publish \d+ and withdraw/.test(await d.cli(['history', '-c', 'ca1', '--full', '--after', start])))

  // svcc history names the actor of every entry: Krill's four fields, then who.
  const lines = (await d.cli(['history', '-c', 'ca1', '--full'])).trim().split('\n').map((l) => l.split('::'))
  const by = (re: RegExp) => lines.filter((p) => re.test(p[1]!)).map((p) => p[4])
  t.same(by(/Initialise CA 'ca1'/), ['admin-token (admin-token)'], 'the CA was made with the admin token')
  t.same(by(/Add parent 'testbed'/), ['admin-token (admin-token)'], 'so was its parent')
  t.same(by(/Update ROAs/), [`${JOE} (config-file)`, `${JOE} (config-file)`], 'both ROA updates (one refused) name joe and his provider')
  t.ok(by(/Update entitlements|Update received cert/).every((a) => a === 'svc (svc)') && by(/Update received cert/).length > 0, 'what svcd did after the parent was added is svc')
  t.ok(by(/Publish \d+ and withdraw/).every((a) => a === 'svc (svc)') && by(/Publish/).length > 0, "the publications that followed joe's change are svc")
  const roaKey = lines.find((p) => /Update ROAs/.test(p[1]!))![2]!
  t.match(await d.cli(['action', '-c', 'ca1', '--key', roaKey]), new RegExp(`actor:  ${JOE.replace('.', '\\.')} \\(config-file\\)`), 'svcc action names him too')
  const hist = await api<CommandHistoryJson>('cas/ca1/history/commands')
  t.match(hist.body.commands.find((c) => /Update ROAs/.test(c.summary.msg)), { actor: JOE, actor_provider: 'config-file', actor_token: null }, "the history JSON: Krill's actor, and beside it the provider")
  t.equal((await api<CommandHistoryJson>(`cas/ca1/history/commands?q=${encodeURIComponent('joe')}`)).body.total, 2, '?q=joe finds his two actions')

  // GET /api/v1/audit: every action, by whom. Records up to `cut` only, so that svcd's later work changes no count.
  const cut = encodeURIComponent(new Date().toISOString())
  const all = await api<AuditPageJson>(`audit?limit=1000&until=${cut}`)
  t.equal(all.status, 200)
  t.equal(all.body.total, all.body.records.length, 'one page holds it all')
  const rec = (kind: string, ca: string | null) => all.body.records.filter((r) => r.kind === kind && r.ca === ca)
  t.match(rec('ca-init', 'ca1'), [{ actor: 'admin-token', provider: 'admin-token', token: null, success: true, source: /127\.0\.0\.1|::1/ }], 'CA add by the admin token, from loopback')
  t.match(rec('roas-update', 'ca1'), [
    { actor: JOE, provider: 'config-file', success: true, details: { args: { added: '1', removed: '0' } } },
    { actor: JOE, provider: 'config-file', success: false, details: { args: { added: '1', removed: '0' }, error: { label: String } } },
  ], "joe's ROA updates with their counts, the refusal as a failure")
  const pubs = rec('publisher-add', null).filter((r) => r.details.publisher === 'ca1' || r.details.publisher === 'tb-pub')
  t.match(pubs.map((r) => [r.actor, r.provider, r.details.publisher]), [['admin-token', 'admin-token', 'ca1'], ['anonymous', 'testbed', 'tb-pub']], "ca1's publisher (with the CA), and the testbed's registration")
  t.match(pubs[1], { source: /127\.0\.0\.1|::1/ }, 'the anonymous registration names its source')
  t.ok(rec('publisher-add', null).some((r) => r.details.publisher === 'testbed' && r.actor === 'svc'), "svcd's own CAs at start-up: svc")
  t.ok(all.body.records.some((r) => r.actor === 'svc' && r.ca === 'ca1' && r.kind === 'certificate-receive'), 'svcd receiving the certificate is svc')

  // Filters and paging.
  const joes = await api<AuditPageJson>(`audit?actor=${encodeURIComponent(JOE)}`)
  t.same(joes.body.records.map((r) => [r.kind, r.success]), [['roas-update', true], ['roas-update', false]], 'actor')
  t.same((await api<AuditPageJson>('audit?kind=ca-init&ca=ca1')).body.records.map((r) => r.ca), ['ca1'], 'kind and CA')
  const future = new Date(Date.now() + 3_600_000).toISOString()
  t.equal((await api<AuditPageJson>(`audit?since=${future}`)).body.total, 0, 'since')
  t.equal((await api<AuditPageJson>(`audit?until=${encodeURIComponent(start)}`)).body.records.some((r) => r.ca === 'ca1'), false, 'until')
  t.equal((await api<AuditPageJson>(`audit?since=${encodeURIComponent(start)}&until=${cut}&ca=ca1`)).body.total, all.body.records.filter((r) => r.ca === 'ca1').length, 'since and until together')
  const page = await api<AuditPageJson>(`audit?offset=1&limit=2&order=desc&until=${cut}`)
  t.match(page.body, { total: all.body.total, offset: 1, limit: 2 })
  t.same(page.body.records.map((r) => r.seq), all.body.records.slice().reverse().slice(1, 3).map((r) => r.seq), 'a page, newest first')
  for (const bad of ['limit=1001', 'limit=0', 'offset=-1', 'order=up', 'since=yesterday', 'until=2026-13-01', 'actr=joe', 'kind=', 'actor=a&actor=b']) {
    const r = await api<{ label: string; args: { name: string } }>(`audit?${bad}`)
    t.match([r.status, r.body.label], [400, 'api-invalid-query'], `400 for ${bad}`)
  }

  // What ann (readwrite) sees: every CA's records, none without a CA but her own (she has none).
  const annAll = await api<AuditPageJson>(`audit?limit=1000&until=${cut}`, ann)
  t.equal(annAll.status, 200)
  t.ok(annAll.body.records.length > 0 && annAll.body.records.every((r) => r.ca !== null), 'no record without a CA')
  t.same(annAll.body.records.filter((r) => r.ca === 'ca1').map((r) => r.seq), all.body.records.filter((r) => r.ca === 'ca1').map((r) => r.seq), 'every record of a CA she may read')
  t.equal((await api<AuditPageJson>('audit?kind=publisher-add', ann)).body.total, 0, 'not the publication server (no pub-admin)')
  t.same((await api<AuditPageJson>(`audit?actor=${encodeURIComponent(JOE)}`, ann)).body.records.map((r) => r.kind), ['roas-update', 'roas-update'], "joe's actions on a CA she reads")

  // svcc audit.
  const table = (await asJoe(['audit', '--actor', JOE])).stdout.trim().split('\n')
  t.match(table[0], /^TIME\s+ACTOR\s+KIND\s+CA\s+RESULT$/, 'a table')
  t.match(table[1], new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+${JOE.replace('.', '\\.')} \\(config-file\\)\\s+roas-update\\s+ca1\\s+OK$`))
  t.match(table[2], /roas-update\s+ca1\s+ERROR: /)
  t.equal(table[3], '1-2 of 2', 'which rows of how many')
  const json = JSON.parse(await d.cli(['audit', '-c', 'ca1', '--kind', 'roas-update', '--order', 'desc', '--rows', '1', '--format', 'json'])) as AuditPageJson
  t.match(json, { total: 2, offset: 0, limit: 1, records: [{ kind: 'roas-update', ca: 'ca1', success: false }] }, '--format json: the API answer')
  t.match(await d.cli(['--api', 'audit', '--actor', JOE, '--since', '2026-11-27', '--offset', '5']), new RegExp(`^GET \\S+/api/v1/audit\\?actor=joe%40example\\.com&since=2026-11-27&offset=5\\n`), '--api prints the call')
  const badRows = await d.run(['audit', '--rows', '5000'])
  t.equal(badRows.code, 2, 'svcc refuses --rows over the maximum')

  // No secret anywhere: the admin token and joe's session secret never in the audit, the history or the database rows.
  const everything = [all.raw, annAll.raw, (await api<unknown>('cas/ca1/history/commands/1000/0?full=true')).raw, JSON.stringify(db.prepare('SELECT * FROM audit_log').all()), JSON.stringify(db.prepare('SELECT * FROM ca_history').all())].join('\n')
  const everythingJoeSaw = (await api<AuditPageJson>('audit?limit=1000', joe)).raw
  for (const [name, secret] of [['admin token', d.token], ['session secret', joe], ['session secret without prefix', joe.slice(5)], ['second session secret', ann]] as const) {
    t.notOk(everything.includes(secret) || everythingJoeSaw.includes(secret), `no ${name} in the audit or history`)
  }
})
