/**
 * Upgrade: a data dir written by a released svcd (fixtures/upgrade/, made by test/helpers/make-upgrade-fixture.ts)
 * opens with this svcd (its migrations run at start) and serves the same CAs, the same ROAs and the same RRDP session.
 *
 *   ta ── testbed ── ca1 (10.1.0.0/16, AS65001) ── ca1-child (10.1.1.0/24)
 *                └─ ca2 (10.2.0.0/16)
 *
 * The fixture's ports are baked into its data (SIA URIs, TAL, RRDP files), so svcd runs on the same fixed ports
 * here, with a config written by the test (data_dir of the unpacked fixture, a fresh admin token).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { fixture } from '../helpers/paths.js'
import { readRrdp } from '../helpers/repo.js'

interface Expected {
  commit: string
  ports: { https: number; rsync: number }
  cas: unknown
  routes: Record<string, { asn: number; prefix: string; max_length: number; roa_objects: { uri: string; hash: string }[] }[]>
  rrdp: { session: string; serial: number }
  snapshot: string[]
}

/** True when `port` can be bound on 127.0.0.1 right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)))
  })
}

async function api(d: RepoDaemon, path: string): Promise<unknown> {
  const r = await httpsRequest(`${d.url}api/v1/${path}`, { headers: { Authorization: `Bearer ${d.token}` } })
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body}`)
  return JSON.parse(r.body)
}

for (const commit of ['7656ee3']) {
  t.test(`a data dir written by svcd ${commit} opens and serves the same CAs, ROAs and RRDP session`, async (t) => {
    const expected = JSON.parse(readFileSync(fixture('upgrade', `data-${commit}.expected.json`), 'utf8')) as Expected
    const dataDir = join(tempDir(t, 'svc-upgrade-'), 'data')
    execFileSync('mkdir', ['-p', dataDir])
    execFileSync('tar', ['-xpzf', fixture('upgrade', `data-${commit}.tar.gz`), '-C', dataDir])
    t.equal(statSync(join(dataDir, 'ssl', 'key.pem')).mode & 0o777, 0o600, 'key files unpacked with mode 0600')

    const { https, rsync } = expected.ports
    const free = await waitFor(`ports ${https} and ${rsync} (baked into the fixture's data) to be free`, async () => (await portFree(https)) && (await portFree(rsync)), 15_000).catch(() => false)
    if (!free) return t.fail(`ports ${https}/${rsync}, fixed by the fixture (its URIs name them), are in use: free them and rerun`)

    const d = await repoDaemon(t, { dataDir, ports: { port: https, rsync }, logLevel: 'info' })
    t.teardown(() => d.stop())

    t.same(await api(d, 'cas'), expected.cas, 'the same CAs')
    // ROA objects are compared by URI: their bytes change when svcd renews them (52 weeks after the fixture was made,
    // less the re-issue margin), and that is no upgrade failure.
    const roas = (rs: Expected['routes'][string]) => rs.map((r) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length, roa_objects: r.roa_objects.map((o) => o.uri) }))
    for (const [ca, routes] of Object.entries(expected.routes)) {
      const now = (await api(d, `cas/${ca}/routes`)) as Expected['routes'][string]
      t.same(roas(now), roas(routes), `${ca}: the same ROAs (authorisations and ROA objects)`)
    }

    // The tree of the fixture (fixtures/upgrade/README.md): the children survive the move into rows of their own.
    const children = async (ca: string) => ((await api(d, `cas/${ca}`)) as { children: string[] }).children
    t.same(await children('ca1'), ['ca1-child'], "ca1's child")
    t.same((await children('testbed')).filter((c) => c.startsWith('ca')).sort(), ['ca1', 'ca2'], "testbed's children")
    t.same(await children('ca1-child'), [], 'ca1-child has none')

    const rrdp = await readRrdp(d.url)
    t.equal(rrdp.notification.sessionId, expected.rrdp.session, 'the same RRDP session')
    t.ok(Number(rrdp.notification.serial) >= expected.rrdp.serial, `RRDP serial ${rrdp.notification.serial} ≥ ${expected.rrdp.serial}`)
    const uris = new Set(rrdp.objects.keys())
    const cas = Object.keys(expected.routes)
    t.same(expected.snapshot.filter((u) => !uris.has(u) && cas.some((ca) => u.includes(`/repo/${ca}/`)) && u.endsWith('.roa')), [], "the snapshot still holds the CAs' ROAs")
    for (const ca of cas) t.ok([...uris].some((u) => u.includes(`/repo/${ca}/`) && u.endsWith('.mft')), `the snapshot holds ${ca}'s manifest`)
    t.ok(expected.snapshot.every((u) => uris.has(u) || !/\.(roa|cer)$/.test(u)), 'every certificate and ROA of the old snapshot is still published')

    // The upgraded data takes commands: a ROA added to ca2 is signed and published.
    await d.cli(['roas', 'update', '-c', 'ca2', '--delta', d.file('ca2.txt', 'A: 10.2.1.0/24 => 65022\n')])
    const added = await waitFor('the new ROA of ca2 signed', async () => {
      const rs = (await api(d, 'cas/ca2/routes')) as Expected['routes'][string]
      return rs.length === expected.routes.ca2.length + 1 && rs.every((r) => r.roa_objects.length > 0) ? rs : undefined
    })
    t.ok(added.some((r) => r.prefix === '10.2.1.0/24' && r.asn === 65022), 'a ROA added after the upgrade')
    const later = await waitFor('the new ROA published', async () => {
      const v = await readRrdp(d.url)
      return added.every((r) => r.roa_objects.every((o) => v.objects.has(o.uri))) ? v : undefined
    })
    t.equal(later.notification.sessionId, expected.rrdp.session, 'in the same RRDP session')

    const code = await d.stop()
    t.equal(code, 0, 'svcd stops cleanly')
  })
}
