/**
 * A delegated child that publishes in another svcd (issue 26 §2), seen by its parent through the SIA of the
 * certificate the parent issued it, fetched over RRDP and rsync; the health is read through GET /api/v1/health/cas.
 *
 *   svcd P: ta ── testbed ◄──RFC 6492── svcd C: kid ──► svcd C's own repository (RRDP over HTTPS, rsyncd)
 *
 * - kid is functional in P's view, and not one of P's own CAs;
 * - svcd C stopped (its repository goes away): P shows kid non-functional with revoke_at = since + 90 days
 *   (child_revoke_days), within two check intervals plus the fetch timeout;
 * - svcd C started again on the same data and ports: kid is functional again, without a since.
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import type { HealthCaJson, HealthChildJson, HealthPageJson } from '../../src/api/health.js'
import { caObjects, connect, repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const LIVENESS = '[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\nfetch_timeout_seconds = 3\n'
const DAY_MS = 86_400_000

async function testbedHealth(d: RepoDaemon): Promise<HealthCaJson | undefined> {
  const r = await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })
  if (r.status !== 200) throw new Error(`GET /api/v1/health/cas: ${r.status} ${r.body}`)
  return (JSON.parse(r.body) as HealthPageJson).cas.find((c) => c.ca === 'testbed')
}

async function waitKid(d: RepoDaemon, what: string, cond: (c: HealthChildJson) => boolean, ms = 30_000): Promise<HealthChildJson> {
  return waitFor(what, async () => (await testbedHealth(d))?.children.find((c) => c.child === 'kid' && cond(c)), ms, 250)
}

t.test("a child in another svcd whose repository goes away: non-functional, revoke_at, and back", { skip: noRsync }, async (t) => {
  const SECRET = 'child-scenario-webhook-secret!!!'
  const hook = await webhookReceiver(t, SECRET)
  const p = await repoDaemon(t, { extra: LIVENESS + webhookToml(t, hook, SECRET, tempDir(t)), logLevel: 'info' })
  let c = await repoDaemon(t, { testbed: false, logLevel: 'info' })
  await c.cli(['add', '-c', 'kid'])
  await connect(p, 'testbed', c, 'kid', { asn: 'AS64500', ipv4: '192.0.2.0/24' })
  await waitFor('kid certified by testbed', async () => (await caObjects(c, 'kid')).active === 1)
  const up = await waitKid(p, 'kid functional in its parent\'s view, over both transports', (k) => k.functional && k.point.seen.rrdp?.valid === true && k.point.seen.rsync?.valid === true, 60_000)
  t.ok(up.point.dir.startsWith(c.rsyncBase), `its point is in svcd C's repository: ${up.point.dir}`)
  t.equal(up.non_functional_since, null)
  t.equal(up.revoke_at, null)
  t.ok(up.point.hours_to_manifest_expiry! > 20, `its manifest expires in ${up.point.hours_to_manifest_expiry} hours`)
  t.equal((await testbedHealth(p))!.functional, true, 'testbed itself is functional')

  // svcd C stops: its RRDP and its rsyncd are gone.
  const ports = { port: c.port, rsync: c.rsyncPort }
  const dataDir = c.dataDir
  const from = hook.received.length
  await c.stop()
  const stopped = Date.now()
  const down = await waitKid(p, 'kid non-functional', (k) => !k.functional)
  t.pass(`non-functional after ${Date.now() - stopped} ms`)
  t.ok(down.non_functional_since !== null && down.revoke_at !== null)
  t.equal(Date.parse(down.revoke_at!) - Date.parse(down.non_functional_since!), 90 * DAY_MS, 'revoke_at = since + 90 days')
  t.ok(down.point.findings.some((f) => f.kind === 'unreachable' && f.transport === 'rrdp'), 'RRDP unreachable')
  t.ok(down.point.findings.some((f) => f.kind === 'unreachable' && f.transport === 'rsync'), 'rsync unreachable')
  t.equal((await testbedHealth(p))!.functional, true, 'the parent itself stays functional')
  const later = await waitKid(p, 'a later check', (k) => !k.functional && k.point.seen.rrdp?.at !== down.point.seen.rrdp?.at)
  t.equal(later.non_functional_since, down.non_functional_since, 'the since is kept across checks')
  const raised = await waitAlarm(hook, from, 'alarm.raised', 'testbed/kid', /unreachable.*a 90-day policy would revoke it at /, 30_000)
  t.same([raised.body.alarm?.kind, raised.body.alarm?.ca], ['child-nonfunctional', 'testbed'], `webhook: ${raised.body.alarm?.reason}`)
  t.ok(raised.body.alarm?.reason.includes(down.revoke_at!.replace(/\.\d+Z$/, '')), 'the webhook names the revoke date')

  // svcd C again, on the same data and ports.
  c = await repoDaemon(t, { testbed: false, logLevel: 'info', dataDir, ports })
  const back = await waitKid(p, 'kid functional again', (k) => k.functional, 60_000)
  t.equal(back.non_functional_since, null, 'no since once functional')
  t.equal(back.revoke_at, null)
  await waitAlarm(hook, from, 'alarm.cleared', 'testbed/kid', undefined, 30_000)
  t.pass('webhook: cleared once the child is functional again')
})
