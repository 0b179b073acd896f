/**
 * Manifests close to expiry in the relying-party view (issue 26 §2): svcd with the testbed and rsyncd makes manifests
 * that live 1 hour (timing.mft_next_update_seconds = 3600) while `[liveness] expiry_margin_hours = 4`: every manifest
 * relying parties see is `expiring`, with the hours left, and the CA stays functional. Read through GET /api/v1/health/cas.
 *
 *   ta ── testbed
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import { repoDaemon } from '../helpers/cas.js'
import { httpsGet } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const LIVENESS = '[liveness]\ncheck_seconds = 2\nafter_publish_seconds = 1\nfetch_timeout_seconds = 3\n'

t.test('manifests that live less than the expiry margin are expiring', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, { extra: `${LIVENESS}expiry_margin_hours = 4\n[timing]\nmft_next_update_seconds = 3600\nmft_reissue_seconds = 600\n`, logLevel: 'info' })
  const c = await waitFor('the testbed manifest expiring', async () => {
    const r = await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })
    const ca = (JSON.parse(r.body) as HealthPageJson).cas.find((c) => c.ca === 'testbed')
    return ca && ca.points.some((p) => p.findings.some((f) => f.kind === 'expiring')) ? ca : undefined
  }, 60_000, 250) as HealthCaJson
  t.ok(c.hours_to_manifest_expiry! > 0 && c.hours_to_manifest_expiry! <= 1, `${c.hours_to_manifest_expiry} hours left`)
  t.equal(c.functional, true, 'expiring, still functional')
})
