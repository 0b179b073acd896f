/**
 * A CA that publishes in another svcd's repository (issue 26 §1): its own svcd fetches that repository as relying
 * parties do, and checks it after each publication (the repository sync succeeded: CaPublisher's hook), not only every
 * check_seconds. The health is read through GET /api/v1/health/cas of svcd B.
 *
 *   svcd A: ta ── testbed ◄──RFC 6492── svcd B: remote ──RFC 8181──► svcd A: publication server
 *
 * svcd B checks every 600 s and 1 s after a publication (and 1 s after a check that found something wrong, e.g. a
 * repository that had not yet served what was just published): `remote` checked and functional within seconds of
 * its publication can only be the publication's doing.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import type { HealthCaJson, HealthPageJson } from '../../src/api/health.js'
import { caObjects, connect, repoDaemon, type RepoDaemon } from '../helpers/cas.js'
import { httpsGet } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'

async function remoteHealth(d: RepoDaemon): Promise<HealthCaJson | undefined> {
  const r = await httpsGet(`${d.url}api/v1/health/cas`, { Authorization: `Bearer ${d.token}` })
  if (r.status !== 200) throw new Error(`GET /api/v1/health/cas: ${r.status} ${r.body}`)
  return (JSON.parse(r.body) as HealthPageJson).cas.find((c) => c.ca === 'remote')
}

t.test('a CA publishing in another svcd is checked after its publication', async (t) => {
  const a = await repoDaemon(t, { logLevel: 'info' })
  const b = await repoDaemon(t, { repository: false, logLevel: 'info', extra: '[liveness]\ncheck_seconds = 600\nafter_publish_seconds = 1\nrsync = false\n' })
  await b.cli(['add', '-c', 'remote'])
  const pubReq = b.file('pub-req.xml', await b.cli(['repo', 'request', '-c', 'remote']))
  const repoResp = a.file('repo-resp.xml', await a.cli(['publishers', 'add', '--request', pubReq]))
  await b.cli(['repo', 'update', '-c', 'remote'], readFileSync(repoResp, 'utf8'))
  await connect(a, 'testbed', b, 'remote', { asn: 'AS64500', ipv4: '192.0.2.0/24' })
  await waitFor('remote certified by testbed in svcd A', async () => (await caObjects(b, 'remote')).active === 1)
  const c = await waitFor('remote checked and functional in svcd A\'s repository', async () => {
    const h = await remoteHealth(b)
    return h && h.functional === true && h.points.length === 1 ? h : undefined
  }, 30_000, 250)
  t.ok(c.points[0]!.dir.startsWith(a.rsyncBase), `its point is in svcd A's repository: ${c.points[0]!.dir}`)
  t.equal(c.points[0]!.seen.rrdp?.valid, true, 'a valid manifest and CRL over RRDP')
  t.equal(c.points[0]!.seen.rsync, null, 'rsync not fetched ([liveness] rsync = false)')
  t.same(c.points[0]!.findings, [], 'what svcd A serves is what remote published')
})
