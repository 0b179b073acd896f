/**
 * No publisher can delay another's rsync output (issue 22, defect 2), end to end over real RFC 8181 and rsyncd:
 *
 *   TestPublisher alice ── a burst of thousands of small objects ─┐
 *                                                                 ├─► svcd ──► rsync tree ──► rsyncd ──► rsync client
 *   TestPublisher bob (another CA) ── one ROA, just after ────────┘
 *
 * - Before the fix, the tree holding alice's burst took seconds to build and the rsync pacer then waited 100 times
 *   that before the next tree: bob's ROA reached rsync minutes later. Now trees are at most 30 s apart
 *   (RSYNC_MAX_SPACING_MS), so bob's ROA is in the tree within the bound plus the RRDP serial and the settling.
 * - An acknowledged change that the rsync tree does not hold after output_lag_max_seconds is a problem of GET /ready
 *   and of the bulk issues (sys-rsync-lag), gone once the tree catches up (the tree is made unwritable for a while).
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RSYNC_MAX_SPACING_MS } from '../../src/app/pubd/output-lag.js'
import type { PublishPdu } from '../../src/protocol/publication.js'
import { freePort, httpsGet, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { rsyncFetch, sha } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const bytes = (s: string) => new TextEncoder().encode(s)
const BURST = Number(process.env.SVC_TEST_RSYNC_BURST ?? 8000)

/**
 * How long another publisher's change may take to reach the rsync tree: an RRDP serial (at most 10 s apart), the
 * rsync pacer's settling (at most 10 s), the spacing bound, and a margin for the tree builds on a loaded machine.
 */
const DEADLINE_MS = 10_000 + 10_000 + RSYNC_MAX_SPACING_MS + 15_000

async function repoDaemon(t: Test, extra = ''): Promise<Daemon & { rsyncBase: string }> {
  const port = await freePort()
  const rsync = await freePort()
  const toml = `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:${rsync}/repo/"\nrsync_daemon = "auto"\n${extra}`
  const d = await startDaemon(t, { port, toml, logLevel: 'info' })
  return Object.assign(d, { rsyncBase: `rsync://localhost:${rsync}/repo/` })
}

async function addPublisher(t: Test, d: Daemon, pub: TestPublisher): Promise<string> {
  const file = join(tempDir(t), `${pub.handle}.xml`)
  writeFileSync(file, pub.requestXml())
  const r = await svcc(['publishers', 'add', '--request', file], { env: d.env })
  if (r.code !== 0) throw new Error(r.stderr)
  pub.useResponse(r.stdout)
  return pub.response!.siaBase
}

/** The file for `uri` in the current rsync tree (what rsyncd serves to a new session). */
const inTree = (d: Daemon, base: string, uri: string) => join(d.dataDir, 'repo', 'rsync', 'current', uri.slice(base.length))

t.test("a burst of one publisher's objects does not hold another CA's ROA out of rsync beyond the bound", { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t)
  const alice = new TestPublisher('alice')
  const bob = new TestPublisher('bob')
  const a = await addPublisher(t, d, alice)
  const b = await addPublisher(t, d, bob)
  t.same(await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${b}first.roa`, content: bytes('B0') }] }), { type: 'success' })
  await waitFor('the first tree', () => existsSync(inTree(d, d.rsyncBase, `${b}first.roa`)))

  const per = 2000
  for (let i = 0; i < BURST; i += per) {
    const pdus: PublishPdu[] = Array.from({ length: Math.min(per, BURST - i) }, (_, k) => ({ type: 'publish', uri: `${a}o/${String(i + k).padStart(6, '0')}.roa`, content: bytes(`alice ${i + k}`) }))
    t.same(await alice.send({ type: 'delta', pdus }), { type: 'success' }, `alice publishes objects ${i} to ${i + pdus.length - 1}`)
  }
  const last = `${a}o/${String(BURST - 1).padStart(6, '0')}.roa`
  await waitFor("alice's burst in the rsync tree", () => existsSync(inTree(d, d.rsyncBase, last)), 120_000)

  const roa = `${b}route.roa`
  t.same(await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: roa, content: bytes('bob ROA') }] }), { type: 'success' }, "bob's ROA is acknowledged")
  const acked = Date.now()
  await waitFor(`bob's ROA in the rsync tree within ${DEADLINE_MS / 1000} s`, () => existsSync(inTree(d, d.rsyncBase, roa)), DEADLINE_MS, 100)
  const delay = Date.now() - acked
  t.ok(delay <= DEADLINE_MS, `bob's ROA reached the rsync tree ${delay} ms after its acknowledgement, after a burst of ${BURST} objects`)
  t.comment(`rsync delay after a burst of ${BURST} objects: ${delay} ms`)

  const served = rsyncFetch(d.rsyncBase)
  t.equal(served.get(roa.slice(d.rsyncBase.length)), sha('bob ROA'), 'rsyncd serves it')
  t.equal(served.size, BURST + 2, "and every one of alice's objects")
})

t.test('a change the rsync tree does not hold after output_lag_max_seconds is a /ready problem and an issue until it does', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, 'output_lag_max_seconds = 2\n')
  const bob = new TestPublisher('bob')
  const b = await addPublisher(t, d, bob)
  t.same(await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${b}a.roa`, content: bytes('A') }] }), { type: 'success' })
  await waitFor('the first tree', () => existsSync(inTree(d, d.rsyncBase, `${b}a.roa`)))
  t.equal((await httpsGet(d.url + 'ready')).status, 200, 'ready')

  // The fault: the directory of the trees is replaced by a file, so no new tree can be built (as root, a mode would not stop the writer).
  const trees = join(d.dataDir, 'repo', 'rsync', 'trees')
  renameSync(trees, `${trees}.away`)
  writeFileSync(trees, 'not a directory')
  t.teardown(() => {
    if (existsSync(`${trees}.away`)) {
      rmSync(trees, { force: true })
      renameSync(`${trees}.away`, trees)
    }
  })
  t.same(await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${b}b.roa`, content: bytes('B') }] }), { type: 'success' })
  const ready = await waitFor('GET /ready to name the rsync lag', async () => {
    const r = await httpsGet(d.url + 'ready')
    return r.status === 503 && r.body.includes('sys-rsync-lag') ? (JSON.parse(r.body) as { problems: { label: string; msg: string; args: Record<string, string> }[] }) : undefined
  })
  const lag = ready.problems.find((p) => p.label === 'sys-rsync-lag')!
  t.match(lag, { args: { bound: '2' }, msg: /The rsync tree does not hold a change accepted at .*, more than 2 s ago/ }, 'labelled, with the bound')
  const issues = await httpsRequest(`${d.url}api/v1/bulk/cas/issues`, { headers: { Authorization: `Bearer ${d.token}` } })
  const listed = (JSON.parse(issues.body) as { publication_server?: { label: string; args: Record<string, string> }[] }).publication_server ?? []
  t.match(listed.find((p) => p.label === 'sys-rsync-lag'), { args: { bound: '2', reason: /^\d+ s behind$/ } }, 'the bulk issues show it too, with how far behind')

  rmSync(trees, { force: true })
  renameSync(`${trees}.away`, trees)
  await waitFor('the tree to catch up', () => existsSync(inTree(d, d.rsyncBase, `${b}b.roa`)), 60_000)
  await waitFor('GET /ready to be 200 again', async () => ((await httpsGet(d.url + 'ready')).status === 200 ? true : undefined), 60_000)
  const after = JSON.parse((await httpsRequest(`${d.url}api/v1/bulk/cas/issues`, { headers: { Authorization: `Bearer ${d.token}` } })).body) as { publication_server?: unknown }
  t.equal(after.publication_server, undefined, 'no publication server issue left')
  t.equal(readFileSync(inTree(d, d.rsyncBase, `${b}b.roa`), 'utf8'), 'B')
})
