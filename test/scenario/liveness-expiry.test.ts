/**
 * Manifests close to expiry in the relying-party view (issue 26 §2): svcd with the testbed and rsyncd makes manifests
 * that live 1 hour (timing.mft_next_update_seconds = 3600) while `[liveness] expiry_margin_hours = 4`: every manifest
 * relying parties see is `expiring`, with the hours left, and the CA stays functional. Read through GET /api/v1/health/cas.
 * The alarm manifest-expiring reaches a real webhook receiver, signed; svcd restarted with a margin of 0 clears it (the
 * alarm was kept in the database across the restart).
 *
 *   ta ── testbed
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import { repoDaemon } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const LIVENESS = '[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\nfetch_timeout_seconds = 3\n'

t.test('manifests that live less than the expiry margin are expiring', { skip: noRsync }, async (t) => {
  const SECRET = 'expiry-scenario-webhook-secret!!'
  const hook = await webhookReceiver(t, SECRET)
  const alerts = webhookToml(t, hook, SECRET, tempDir(t))
  const timing = '[timing]\nmft_next_update_seconds = 3600\nmft_reissue_seconds = 600\n'
  const d = await repoDaemon(t, { extra: `${LIVENESS}expiry_margin_hours = 4\n${alerts}${timing}`, logLevel: 'info' })
  const c = await waitFor('the testbed manifest expiring', async () => {
    const r = await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })
    const ca = (JSON.parse(r.body) as HealthPageJson).cas.find((c) => c.ca === 'testbed')
    return ca && ca.points.some((p) => p.findings.some((f) => f.kind === 'expiring')) ? ca : undefined
  }, 60_000, 250) as HealthCaJson
  t.ok(c.hours_to_manifest_expiry! > 0 && c.hours_to_manifest_expiry! <= 1, `${c.hours_to_manifest_expiry} hours left`)
  t.equal(c.functional, true, 'expiring, still functional')
  const raised = await waitAlarm(hook, 0, 'alarm.raised', 'testbed', /^manifest expires in 0\.\d hours|^manifest expires in 1\.0 hours|^CRL expires in/, 30_000)
  t.same([raised.body.alarm?.kind, raised.body.alarm?.ca], ['manifest-expiring', 'testbed'], `webhook: ${raised.body.alarm?.reason}`)

  // Restarted with no margin: nothing is expiring any more, and the kept alarm is cleared.
  const from = hook.received.length
  await d.stop()
  const again = await repoDaemon(t, { extra: `${LIVENESS}expiry_margin_hours = 0\n${alerts}${timing}`, logLevel: 'info', dataDir: d.dataDir, token: d.token, ports: { port: d.port, rsync: d.rsyncPort } })
  await waitAlarm(hook, from, 'alarm.cleared', 'testbed', undefined, 60_000)
  t.pass('webhook: cleared after the restart')
  const after = await httpsGet(`${again.url}api/v1/alerts?active=true`, { Authorization: `Bearer ${again.token}` })
  t.notOk((JSON.parse(after.body) as { active: { kind: string }[] }).active.some((a) => a.kind === 'manifest-expiring'), 'no manifest-expiring alarm active')
})
