/**
 * A manifest close to expiry as it happens to an operator (issue 26, fault "a manifest close to expiry"): svcd runs
 * under libfaketime (its wall clock read from a file, as test/e2e/clock.test.ts does) with its CA keys in a SoftHSM2
 * token. The token goes away, so nothing can be re-signed; the clock moves 21 hours on, so the manifests and CRLs
 * relying parties fetch end within the 4-hour margin. The relying-party view reports `expiring` and the signed webhook
 * says manifest-expiring for ta and testbed, naming the hours left; the token back, svcd re-signs everything and the
 * alarms clear.
 */
import t from 'tap'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HealthPageJson } from '../../src/api/health.js'
import { repoDaemon } from '../helpers/cas.js'
import { httpsGet, tempDir } from '../helpers/daemon.js'
import { softHsm } from '../helpers/softhsm.js'
import { waitFor } from '../helpers/wait.js'
import { waitAlarm, webhookReceiver, webhookToml } from '../helpers/webhook-receiver.js'

const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((p) => existsSync(p))
const SECRET = 'faketime-scenario-webhook-secret'

t.test('the token away for 21 hours: manifests expiring as relying parties see them, alarmed; the token back: cleared', { skip: LIBFAKETIME ? false : 'needs libfaketime (make test installs it)' }, async (t) => {
  const clockFile = join(tempDir(t), 'faketime')
  writeFileSync(clockFile, '+0\n')
  const hsm = softHsm(t, { label: 'liveness-faketime' })
  const hook = await webhookReceiver(t, SECRET)
  const env = { ...hsm.env, LD_PRELOAD: LIBFAKETIME!, FAKETIME_TIMESTAMP_FILE: clockFile, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' }
  const toml = `default_signer = "hsm"\n${hsm.signerToml('hsm', 'check_seconds = 1\nretry_seconds = 1\nmax_retry_seconds = 2\n')}`
  const extra = `[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\nfetch_timeout_seconds = 5\nexpiry_margin_hours = 4\n${webhookToml(t, hook, SECRET, tempDir(t))}`
  const d = await repoDaemon(t, { env, toml, extra, logLevel: 'info' })
  t.teardown(() => {
    if (!t.passing()) console.error(d.output().split('\n').filter((l) => !/"level":"debug"/.test(l)).slice(-80).join('\n'))
  })
  const health = async () => (JSON.parse((await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })).body) as HealthPageJson).cas
  await waitFor('ta and testbed functional, nothing expiring', async () => {
    const cas = await health()
    return cas.length === 2 && cas.every((c) => c.functional === true && c.hours_to_manifest_expiry !== null && c.hours_to_manifest_expiry > 20)
  }, 60_000, 250)

  hsm.away()
  await waitFor('the signer unavailable', async () => (await httpsGet(`${d.url}ready`)).status === 503, 30_000, 250)
  writeFileSync(clockFile, `+${21 * 3600}\n`)
  const from = hook.received.length
  const expiring = await waitFor('testbed expiring in the relying-party view', async () => {
    const c = (await health()).find((x) => x.ca === 'testbed')
    return c && c.hours_to_manifest_expiry !== null && c.hours_to_manifest_expiry < 4 && c.points.some((p) => p.findings.some((f) => f.kind === 'expiring')) ? c : undefined
  }, 60_000, 250)
  t.ok(expiring.hours_to_manifest_expiry! > 2 && expiring.hours_to_manifest_expiry! < 4, `the manifest relying parties see ends in ${expiring.hours_to_manifest_expiry} hours`)
  t.equal(expiring.functional, true, 'still functional: not expired yet')
  for (const ca of ['ta', 'testbed']) {
    const raised = await waitAlarm(hook, from, 'alarm.raised', ca, /^(manifest|CRL) expires in [23]\.\d hours/, 60_000)
    t.same([raised.body.alarm?.kind, raised.body.alarm?.ca], ['manifest-expiring', ca], `webhook: ${ca}: ${raised.body.alarm?.reason}`)
  }

  hsm.back()
  for (const ca of ['ta', 'testbed']) await waitAlarm(hook, from, 'alarm.cleared', ca, undefined, 90_000)
  t.pass('the token back: re-signed, both alarms cleared')
  const after = (await health()).find((x) => x.ca === 'testbed')!
  t.ok(after.hours_to_manifest_expiry! > 20, `the new manifest ends in ${after.hours_to_manifest_expiry} hours`)
})
