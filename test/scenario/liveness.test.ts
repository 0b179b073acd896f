/**
 * The relying-party view of svcd's own repository (issue 26 §1, §2, §4), end to end: svcd with the testbed, its
 * repository served over HTTPS (RRDP) and by the rsync daemon it runs, and `[liveness] check_seconds = 2`; the health
 * is read through GET /api/v1/health/cas.
 *
 *   ta ── testbed        both published in the embedded repository, fetched over RRDP and rsync
 *
 * - every CA is functional, with the hours to its manifest's expiry and the rsync lag (≥ 0) measured;
 * - a CRL deleted from the rsync tree is `missing` over rsync within two check intervals, and gone once the next
 *   publication (a ROA added: a new manifest and CRL) rebuilds the tree;
 * - the rsync daemon stopped (SIGSTOP: it accepts but never answers) makes rsync `unreachable` while RRDP keeps the CA
 *   functional; continued (SIGCONT), the finding clears.
 * Each fault also raises its alarm at a real webhook receiver (signed, naming the CA and the reason) and clears it
 * when healed. liveness-expiry.test.ts has manifests inside the expiry margin.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import { repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const CHECK_S = 2
const LIVENESS = `[liveness]\ncheck_seconds = ${CHECK_S}\nafter_publish_seconds = 1\nfetch_timeout_seconds = 3\n`
/** A fault shows within two check intervals, plus a fetch's timeout and the time the check takes on a loaded machine. */
const FAULT_MS = 2 * CHECK_S * 1000 + 3000 + 15_000

async function health(d: RepoDaemon): Promise<HealthCaJson[]> {
  const r = await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })
  if (r.status !== 200) throw new Error(`GET /api/v1/health/cas: ${r.status} ${r.body}`)
  return (JSON.parse(r.body) as HealthPageJson).cas
}

async function waitCa(d: RepoDaemon, ca: string, what: string, cond: (c: HealthCaJson) => boolean, ms = FAULT_MS): Promise<HealthCaJson> {
  return waitFor(what, async () => (await health(d)).find((c) => c.ca === ca && c.checked_at !== null && cond(c)), ms, 250)
}

const findings = (c: HealthCaJson) => c.points.flatMap((p) => p.findings)

/** The file of rsync URI `uri` in the tree rsyncd serves now. */
function inTree(d: RepoDaemon, uri: string): string {
  return join(d.dataDir, 'repo', 'rsync', 'current', uri.slice(d.rsyncBase.length))
}

t.test('every CA functional; a CRL deleted from the rsync tree; the rsync daemon stopped and continued', { skip: noRsync }, async (t) => {
  const SECRET = 'liveness-scenario-webhook-secret'
  const hook = await webhookReceiver(t, SECRET)
  const d = await repoDaemon(t, { extra: LIVENESS + webhookToml(t, hook, SECRET, tempDir(t)), logLevel: 'info' })
  const alarmMs = FAULT_MS + 10_000 // the second check confirms, then the delivery
  let cas: HealthCaJson[] = []
  await waitFor('ta and testbed checked, functional over both transports, the rsync lag measured', async () => {
    cas = await health(d)
    return cas.length === 2 && cas.every((c) => c.functional === true && c.rsync_lag_seconds !== null && c.last_good_fetch.rsync !== null && c.last_good_fetch.rrdp !== null && findings(c).length === 0)
  }, 60_000, 250)
  for (const c of cas) {
    t.ok(c.hours_to_manifest_expiry! > 20 && c.hours_to_manifest_expiry! <= 24, `${c.ca}: the manifest expires in ${c.hours_to_manifest_expiry} hours`)
    t.ok(c.hours_to_cert_expiry! > 24, `${c.ca}: its certificate in ${c.hours_to_cert_expiry} hours`)
    t.ok(c.rsync_lag_seconds! >= 0, `${c.ca}: rsync trails RRDP by ${c.rsync_lag_seconds} s`)
    t.ok(c.points.every((p) => p.seen.rrdp?.valid && p.seen.rsync?.valid), `${c.ca}: a valid manifest and CRL over both transports`)
  }

  // A file deleted from the rsync tree (the testbed's CRL: each publication re-issues it, so the next tree has it again).
  const point = cas.find((c) => c.ca === 'testbed')!.points[0]!
  const crl = readdirSync(inTree(d, point.dir)).find((n) => n.endsWith('.crl'))!
  const crlUri = point.dir + crl
  const deleted = Date.now()
  let from = hook.received.length
  rmSync(inTree(d, crlUri))
  const missing = await waitCa(d, 'testbed', 'the CRL missing over rsync', (c) => findings(c).some((f) => f.kind === 'missing' && f.transport === 'rsync' && f.uri === crlUri))
  t.pass(`missing over rsync after ${Date.now() - deleted} ms`)
  t.equal(missing.functional, true, 'RRDP still serves a valid manifest and CRL: functional')
  t.equal(missing.points[0]!.seen.rsync?.valid, false, 'not valid over rsync')
  const raised = await waitAlarm(hook, from, 'alarm.raised', 'testbed', new RegExp(`^rsync: missing ${crlUri.replace(/[.]/g, '\\.')}`), alarmMs)
  t.same([raised.body.alarm?.kind, raised.body.alarm?.ca], ['repository-check-failed', 'testbed'], `webhook: ${raised.body.alarm?.reason}, ${Date.now() - deleted} ms after the deletion`)
  await d.cli(['roas', 'update', '-c', 'testbed', '--delta', d.file('roa.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const healed = await waitCa(d, 'testbed', 'the rebuilt tree has a CRL again', (c) => findings(c).length === 0 && c.points[0]!.seen.rsync?.valid === true && c.points[0]!.seen.rsync.manifest_hash !== point.seen.rsync?.manifest_hash)
  t.pass('cleared after the next publication')
  await waitAlarm(hook, from, 'alarm.cleared', 'testbed', undefined, alarmMs)
  t.pass('webhook: the alarm cleared')
  t.ok(healed.rsync_lag_seconds !== null && healed.rsync_lag_seconds >= 0, `the rsync lag after the publication: ${healed.rsync_lag_seconds} s`)

  // The rsync daemon stopped: it accepts connections and never answers.
  const pid = Number(readFileSync(join(d.dataDir, 'repo', 'rsyncd.pid'), 'utf8').trim())
  const before = (await health(d)).find((c) => c.ca === 'ta')!.last_good_fetch.rsync
  process.kill(pid, 'SIGSTOP')
  t.teardown(() => {
    try {
      process.kill(pid, 'SIGCONT')
    } catch {
      // gone already
    }
  })
  const stopped = Date.now()
  from = hook.received.length
  const down = await waitCa(d, 'ta', 'rsync unreachable', (c) => findings(c).some((f) => f.kind === 'unreachable' && f.transport === 'rsync'))
  t.pass(`rsync unreachable after ${Date.now() - stopped} ms`)
  t.equal(down.functional, true, 'RRDP keeps the CA functional')
  t.ok(down.last_good_fetch.rsync !== null && down.last_good_fetch.rsync >= before!, 'the last good rsync fetch stays as it was')
  const unreachable = await waitAlarm(hook, from, 'alarm.raised', 'ta', /^rsync: unreachable/, alarmMs)
  t.pass(`webhook: ${unreachable.body.alarm?.reason}`)
  process.kill(pid, 'SIGCONT')
  await waitCa(d, 'ta', 'rsync back', (c) => findings(c).length === 0 && c.last_good_fetch.rsync! > down.last_good_fetch.rsync!)
  t.pass('cleared once rsyncd answers again')
  await waitAlarm(hook, from, 'alarm.cleared', 'ta', undefined, alarmMs)
  t.pass('webhook: the alarm cleared')
})
