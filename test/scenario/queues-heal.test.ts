/**
 * Queues that heal (issue 26 §5, Krill #1384), with the real daemon: corrupt rows are written into svcd's SQLite
 * database with the sqlite3 tool while svcd is stopped (a task of an unknown kind with an empty argument, a task whose
 * argument is garbage, a CA whose stored snapshot JSON is truncated). svcd starts; another CA's ROA change reaches
 * RRDP; `svcc issues` lists the three items as quarantined; the log has one line for each (never retried in a loop);
 * after the CA's snapshot is repaired, dropping the items (`svcc quarantine drop`) clears the report.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { freePort, tempDir } from '../helpers/daemon.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { readRrdp, waitRrdp } from '../helpers/repo.js'
import type { BulkIssuesJson } from '../../src/api/cas.js'

function sqlite(db: string, sql: string): string {
  const r = spawnSync('sqlite3', [db, sql], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`)
  return r.stdout
}

t.test('corrupt rows are quarantined and reported once; every other CA keeps publishing; dropping clears the report', async (t) => {
  const ports = { port: await freePort(), rsync: await freePort() }
  const d = await repoDaemon(t, { ports, logLevel: 'info' })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  await d.cli(['add', '-c', 'broken'])
  t.equal(await d.stop(), 0)

  const db = join(d.dataDir, 'svcd.db')
  const state = sqlite(db, "SELECT state FROM ca_snapshots WHERE handle = 'broken'").trimEnd()
  t.ok(state.startsWith('{'), 'the snapshot is JSON')
  sqlite(db, [
    "INSERT INTO tasks (key, kind, ca, arg, due, attempts) VALUES ('mystery:alice', 'mystery', 'alice', '', 0, 0)",
    "INSERT INTO tasks (key, kind, ca, arg, due, attempts) VALUES ('sync-parent:alice/x', 'sync-parent', 'alice', char(0, 255, 123) || ' garbage', 0, 0)",
    `UPDATE ca_snapshots SET state = substr(state, 1, ${Math.floor(state.length / 2)}) WHERE handle = 'broken'`,
  ].join('; '))

  const SECRET = 'queues-scenario-webhook-secret!!'
  const hook = await webhookReceiver(t, SECRET)
  const r = await repoDaemon(t, { ports, dataDir: d.dataDir, logLevel: 'info', extra: webhookToml(t, hook, SECRET, tempDir(t)) })
  const before = await readRrdp(r.url)
  await r.cli(['roas', 'update', '-c', 'alice', '--delta', r.file('a.txt', 'A: 10.1.0.0/16 => 65000\n')])
  const began = Date.now()
  await waitRrdp(r.url, (v) => [...v.objects.keys()].some((u) => u.endsWith('.roa')) && Number(v.notification.serial) > Number(before.notification.serial), 60_000)
  t.comment(`alice's ROA reached RRDP ${Date.now() - began} ms after the change`)

  const issues = async () => JSON.parse(await r.cli(['issues', '--format', 'json'])) as BulkIssuesJson
  const all = await waitFor('three items quarantined', async () => ((await issues()).quarantined?.length === 3 ? (await issues()).quarantined : undefined))
  t.same(all!.map((q) => [q.what, q.subject]).sort(), [['ca', 'broken'], ['task', 'mystery:alice'], ['task', 'sync-parent:alice/x']])
  t.match(await r.cli(['issues']), /Quarantined task mystery:alice .*unknown task kind "mystery"/)
  t.match(await r.cli(['quarantine', 'list']), /ca broken .*does not decode/)
  const lines = (re: RegExp) => r.output().split('\n').filter((l) => re.test(l))
  t.equal(lines(/task quarantined/).length, 2, 'one log line for each task')
  t.equal(lines(/ca quarantined/).length, 1, 'one log line for the CA')
  t.equal(lines(/task failed; will retry.*(mystery|sync-parent:alice\/x)/).length, 0, 'never retried')
  t.match(await r.cli(['metrics']).catch(() => ''), /svc_quarantined\{what="task"\} 2/)
  await waitFor('the task-quarantined alarms', async () => /svc_alarm_active\{kind="task-quarantined",subject="mystery:alice"\} 1/.test(await r.cli(['metrics'])) || undefined, 90_000)
  for (const [subject, reason] of [['mystery:alice', /unknown task kind "mystery"/], ['ca:broken', /does not decode/]] as const) {
    const raised = await waitAlarm(hook, 0, 'alarm.raised', subject, reason, 30_000)
    t.equal(raised.body.alarm?.kind, 'task-quarantined', `webhook: ${subject}: ${raised.body.alarm?.reason}`)
  }

  // The operator repairs the CA's snapshot and drops what was set aside: the report clears.
  sqlite(db, `UPDATE ca_snapshots SET state = '${state.replaceAll("'", "''")}' WHERE handle = 'broken'`)
  for (const q of all!) await r.cli(['quarantine', 'drop', String(q.id)])
  t.equal((await issues()).quarantined, undefined, 'nothing is quarantined any more')
  for (const subject of ['mystery:alice', 'ca:broken']) await waitAlarm(hook, 0, 'alarm.cleared', subject, undefined, 30_000)
  t.pass('webhook: both alarms cleared once dropped')
  t.match(await r.cli(['quarantine', 'list']), /nothing is quarantined/)
  t.match(await r.cli(['show', '-c', 'broken']), /broken/, 'the repaired CA answers')
  const refused = await r.run(['quarantine', 'drop', String(all![0]!.id)])
  t.not(refused.code, 0, 'an item dropped before is unknown')
})
