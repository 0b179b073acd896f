/**
 * The publication-server BCP (draft-ietf-sidrops-publication-server-bcp), RFC 9697 and the safety floor (issue 12):
 * gzip for clients that ask, delta retention, deterministic rsync mtimes, the rsync tree grace period and bound, a new
 * session after a restored database, a delta that never changes across kill -9, and the safety floor held and
 * released. One test publisher with its own identity publishes over RFC 8181:
 *
 *   TestPublisher ──RFC 8181 (CMS)──► svcd /rfc8181/alice ──► RRDP /rrdp/ + rsyncd rsync://localhost:<port>/repo/
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { decodeCrl } from '../../src/objects/crl.js'
import { freePort, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { TestPublisher } from '../helpers/publisher.js'
import { readDeltas, readRrdp, sha, waitRrdp } from '../helpers/repo.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const bytes = (s: string) => new TextEncoder().encode(s)
const CRL = readFileSync(new URL('../../fixtures/objects/sample/repo/ca/1EB86521C59E475B6E9E5E9239C3670FC8FED843.crl', import.meta.url))

async function repoDaemon(t: Test, extra = '', dataDir?: string, ports?: { port: number; rsync: number }): Promise<Daemon & { rsyncPort: number; rsyncBase: string }> {
  const port = ports?.port ?? (await freePort())
  const rsync = ports?.rsync ?? (await freePort())
  const toml = `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:${rsync}/repo/"\nrsync_daemon = "auto"\n${extra}`
  const d = await startDaemon(t, { port, toml, logLevel: 'info', ...(dataDir ? { dataDir } : {}) })
  return Object.assign(d, { rsyncPort: rsync, rsyncBase: `rsync://localhost:${rsync}/repo/` })
}

async function publisher(t: Test, d: Daemon): Promise<{ alice: TestPublisher; jail: string }> {
  const alice = new TestPublisher('alice')
  const file = join(tempDir(t), 'req.xml')
  writeFileSync(file, alice.requestXml())
  const r = await svcc(['publishers', 'add', '--request', file], { env: d.env })
  if (r.code !== 0) throw new Error(r.stderr)
  alice.useResponse(r.stdout)
  return { alice, jail: alice.response!.siaBase }
}

t.test('RRDP is gzip-compressed for a client that asks, plain otherwise', async (t) => {
  const d = await repoDaemon(t)
  const { alice, jail } = await publisher(t, d)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A'.repeat(5000)) }] })
  const v = await waitRrdp(d.url, (v) => v.objects.size === 1)
  for (const url of [d.url + 'rrdp/notification.xml', v.notification.snapshot.uri, ...v.notification.deltas.map((x) => x.uri)]) {
    const plain = await httpsRequest(url, { binary: true })
    const gz = await httpsRequest(url, { binary: true, headers: { 'Accept-Encoding': 'gzip, deflate' } })
    t.equal(plain.headers['content-encoding'], undefined, `${url.slice(d.url.length)}: plain without Accept-Encoding`)
    t.equal(gz.headers['content-encoding'], 'gzip', 'gzip when asked')
    t.match(String(gz.headers.vary), /Accept-Encoding/i)
    t.match(String(plain.headers.vary), /Accept-Encoding/i)
    t.not(gz.headers.etag, plain.headers.etag, 'an ETag per encoding')
    if (!url.endsWith('notification.xml')) t.same(gunzipSync(gz.raw), plain.raw, 'the same bytes once decompressed')
    const refused = await httpsRequest(url, { binary: true, headers: { 'Accept-Encoding': 'gzip;q=0, identity' } })
    t.equal(refused.headers['content-encoding'], undefined, 'gzip;q=0: plain')
  }
  t.equal(sha(readFileSync(join(d.dataDir, 'repo', 'rrdp', 'notification.xml'))), sha(gunzipSync(readFileSync(join(d.dataDir, 'repo', 'rrdp', 'notification.xml.gz')))), 'the notification is compressed when written')
})

t.test('deltas are kept 4 hours by default, beyond max_nr, while smaller than the snapshot', async (t) => {
  const d = await repoDaemon(t)
  const { alice, jail } = await publisher(t, d)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'ballast.cer', content: bytes('Z'.repeat(200_000)) }] })
  for (let i = 0; i < 56; i++) {
    await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}o${i}.roa`, content: bytes(`o${i}`) }] })
    await waitRrdp(d.url, (v) => v.objects.size === i + 2)
  }
  const v = await readRrdp(d.url)
  t.ok(v.notification.deltas.length > 50, `${v.notification.deltas.length} deltas listed: more than rrdp_delta_files_max_nr, all younger than 4 hours`)
  await readDeltas(v.notification)

  // A snapshot smaller than the deltas together: the oldest go.
  await alice.send({ type: 'delta', pdus: [{ type: 'withdraw', uri: jail + 'ballast.cer', hash: sha('Z'.repeat(200_000)) }] })
  const small = await waitRrdp(d.url, (v) => !v.objects.has(jail + 'ballast.cer'))
  const total = (await readDeltas(small.notification)).reduce((n, x) => n + Buffer.byteLength(x.xml), 0)
  t.ok(total <= Buffer.byteLength(small.snapshotXml), `deltas (${total} bytes) never more than the snapshot (${Buffer.byteLength(small.snapshotXml)})`)
})

t.test('rsync files have deterministic mtimes; replaced trees are kept, at most rsync_trees_max', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, 'rsync_trees_max = 2\n')
  const { alice, jail } = await publisher(t, d)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'ca.crl', content: CRL }] })
  const thisUpdate = decodeCrl(CRL).thisUpdate
  const listed = await waitFor('ca.crl in the rsync listing', () => {
    const r = spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/`], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } })
    return r.stdout.includes('ca.crl') ? r.stdout : undefined
  })
  const line = listed.split('\n').find((l) => l.endsWith('ca.crl'))!
  const shown = /(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)/.exec(line)!
  t.equal(`${shown[1]}-${shown[2]}-${shown[3]}T${shown[4]}:${shown[5]}:${shown[6]}.000Z`, thisUpdate.toISOString(), `the CRL's mtime is its thisUpdate: ${line}`)

  const trees = join(d.dataDir, 'repo', 'rsync', 'trees')
  for (let i = 0; i < 5; i++) {
    await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}o${i}.roa`, content: bytes(`o${i}`) }] })
    await waitFor(`o${i}.roa in the rsync tree`, () => (spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/o${i}.roa`], { encoding: 'utf8' }).status === 0 ? true : undefined))
  }
  await waitFor('at most 3 trees', () => (readdirSync(trees).length <= 3 ? true : undefined), 5000)
  t.equal(readdirSync(trees).length, 3, 'the current tree and the 2 newest replaced ones (within the 2-hour grace period)')
})

t.test('rsync_tree_grace_seconds = 0: a replaced tree goes at once', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, 'rsync_tree_grace_seconds = 0\n')
  const { alice, jail } = await publisher(t, d)
  for (let i = 0; i < 3; i++) {
    await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}o${i}.roa`, content: bytes(`o${i}`) }] })
    await waitFor(`o${i}.roa in the rsync tree`, () => (spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/o${i}.roa`], { encoding: 'utf8' }).status === 0 ? true : undefined))
  }
  const trees = join(d.dataDir, 'repo', 'rsync', 'trees')
  await waitFor('one tree', () => (readdirSync(trees).length === 1 ? true : undefined), 5000)
  t.equal(readdirSync(trees).length, 1)
})

t.test('a restored database starts a new RRDP session instead of reusing serials', async (t) => {
  const first = await repoDaemon(t)
  const { alice, jail } = await publisher(t, first)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A') }] })
  const before = await waitRrdp(first.url, (v) => v.objects.size === 1)
  await first.stop()
  const backup = tempDir(t)
  const dbFiles = readdirSync(first.dataDir).filter((f) => /\.db(-wal|-shm)?$/.test(f))
  t.ok(dbFiles.length > 0, `the database: ${dbFiles.join(', ')}`)
  for (const f of dbFiles) copyFileSync(join(first.dataDir, f), join(backup, f))

  const second = await repoDaemon(t, '', first.dataDir, { port: first.port, rsync: first.rsyncPort })
  alice.response = { ...alice.response!, serviceUri: `${second.url}rfc8181/alice/` }
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'b.cer', content: bytes('B') }] })
  const later = await waitRrdp(second.url, (v) => v.objects.size === 2)
  t.equal(later.notification.sessionId, before.notification.sessionId)
  t.ok(Number(later.notification.serial) > Number(before.notification.serial))
  await second.stop()

  for (const f of readdirSync(first.dataDir).filter((f) => /\.db(-wal|-shm)?$/.test(f))) if (!dbFiles.includes(f)) writeFileSync(join(first.dataDir, f), '')
  for (const f of dbFiles) copyFileSync(join(backup, f), join(first.dataDir, f))
  const third = await repoDaemon(t, '', first.dataDir, { port: first.port, rsync: first.rsyncPort })
  const v = await readRrdp(third.url)
  t.not(v.notification.sessionId, before.notification.sessionId, 'a new session: serials already served are not reused')
  t.equal(Number(v.notification.serial), 1)
  t.same([...v.objects.keys()], [jail + 'a.cer'], 'the snapshot holds what the restored database holds')
  t.match(third.output(), /RRDP session started/)
})

t.test('kill -9 between writing a delta and the notification: the delta served for that serial is byte-identical', async (t) => {
  const first = await repoDaemon(t)
  const { alice, jail } = await publisher(t, first)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A') }] })
  await waitRrdp(first.url, (v) => v.objects.size === 1)
  const rrdp = join(first.dataDir, 'repo', 'rrdp')
  const oldNotification = [readFileSync(join(rrdp, 'notification.xml')), readFileSync(join(rrdp, 'notification.xml.gz'))]
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'b.cer', content: bytes('B') }] })
  const v = await waitRrdp(first.url, (v) => v.objects.size === 2)
  const last = v.notification.deltas.find((x) => x.serial === Number(v.notification.serial))!
  const deltaBytes = (await httpsRequest(last.uri, { binary: true })).raw
  await first.stop('SIGKILL')
  // The state of a crash after the delta and the serial were written, before the notification's rename.
  writeFileSync(join(rrdp, 'notification.xml'), oldNotification[0])
  writeFileSync(join(rrdp, 'notification.xml.gz'), oldNotification[1])

  const again = await repoDaemon(t, '', first.dataDir, { port: first.port, rsync: first.rsyncPort })
  const after = await readRrdp(again.url)
  if (after.notification.sessionId === v.notification.sessionId) {
    const same = after.notification.deltas.find((x) => x.serial === last.serial)
    t.ok(same, `serial ${last.serial} is listed again`)
    t.same((await httpsRequest(same!.uri, { binary: true })).raw, deltaBytes, 'byte-identical')
    t.equal(same!.hash, last.hash)
  } else t.pass('a new session started')
  t.ok(existsSync(join(rrdp, 'notification.xml.gz')))
})

t.test('the safety floor holds a cycle that removes too much, until an operator releases it', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, 'safety_max_shrink_percent = 50\n')
  const { alice, jail } = await publisher(t, d)
  const names = ['a', 'b', 'c', 'd']
  await alice.send({ type: 'delta', pdus: names.map((n) => ({ type: 'publish' as const, uri: `${jail}${n}.cer`, content: bytes(n) })) })
  const before = await waitRrdp(d.url, (v) => v.objects.size === 4)
  // The rsync tree follows once the changes have paused (a second): it holds the four before the withdrawal.
  await waitFor('d.cer in the rsync tree', async () => (spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/d.cer`]).status === 0 ? true : undefined))
  t.equal((await httpsRequest(d.url + 'ready')).status, 200)
  await alice.send({ type: 'delta', pdus: names.slice(1).map((n) => ({ type: 'withdraw' as const, uri: `${jail}${n}.cer`, hash: sha(n) })) })
  const ready = await waitFor('/ready 503', async () => {
    const r = await httpsRequest(d.url + 'ready')
    return r.status === 503 ? r : undefined
  })
  const body = JSON.parse(ready.body)
  t.match(body.problems, [{ label: 'sys-publication-held', args: { output: 'rrdp' } }], '/ready says why, without a token')
  t.equal((await readRrdp(d.url)).notification.serial, before.notification.serial, 'no new serial')
  t.equal(spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/d.cer`]).status, 0, 'the rsync tree keeps the objects too')
  const stats = await svcc(['publishers', 'stats'], { env: d.env })
  t.match(stats.stdout, /sys-publication-held: The safety floor holds back the rrdp output/)
  const issues = await httpsRequest(d.url + 'api/v1/bulk/cas/issues', { headers: { Authorization: `Bearer ${d.token}` } })
  if (issues.status === 200) t.match(issues.body, /sys-publication-held/, 'the CA issues show it')

  t.equal((await svcc(['publishers', 'release'], { env: d.env })).code, 0)
  const v = await waitRrdp(d.url, (v) => v.objects.size === 1)
  t.same([...v.objects.keys()], [jail + 'a.cer'])
  await waitFor('d.cer gone from the rsync tree', () => (spawnSync('rsync', ['--list-only', `${d.rsyncBase}alice/d.cer`]).status !== 0 ? true : undefined))
  await waitFor('/ready 200', async () => ((await httpsRequest(d.url + 'ready')).status === 200 ? true : undefined))
  t.pass('ready again once released')
})

t.test('rrdp_delta_interval_min_seconds batches the changes of all publishers into one serial per interval', async (t) => {
  const d = await repoDaemon(t, 'rrdp_delta_interval_min_seconds = 3\n')
  const { alice, jail } = await publisher(t, d)
  const bob = new TestPublisher('bob')
  const file = join(tempDir(t), 'bob.xml')
  writeFileSync(file, bob.requestXml())
  bob.useResponse((await svcc(['publishers', 'add', '--request', file], { env: d.env })).stdout)
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A') }] })
  const first = await waitRrdp(d.url, (v) => v.objects.size === 1)
  const start = Date.now()
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'b.cer', content: bytes('B') }] })
  await bob.send({ type: 'delta', pdus: [{ type: 'publish', uri: bob.response!.siaBase + 'c.cer', content: bytes('C') }] })
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'd.cer', content: bytes('D') }] })
  const v = await waitRrdp(d.url, (v) => v.objects.size === 4)
  t.equal(Number(v.notification.serial), Number(first.notification.serial) + 1, 'one serial for the three messages of two publishers')
  t.ok(Date.now() - start > 1500, 'written once the interval since the previous serial had passed')
})

t.test('kill -9 in a publish loop, three times: every delta served before is byte-identical after, or the session is new', async (t) => {
  let d = await repoDaemon(t)
  const { alice, jail } = await publisher(t, d)
  // A large object that never changes: the snapshot outweighs the deltas, so the size rule keeps them listed.
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'ballast.cer', content: bytes('Z'.repeat(100_000)) }] })
  // In a serial of its own: a delta holding it outweighs the rest, and the size rule drops it first.
  await waitRrdp(d.url, (v) => v.objects.size === 1)
  const seen = new Map<string, Buffer>()
  let n = 0
  for (let round = 0; round < 3; round++) {
    let stop = false
    const loop = (async () => {
      while (!stop) await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}o${n++}.roa`, content: bytes(`object ${n}`) }] }).catch(() => (stop = true))
    })()
    // Kill while the loop runs: once it has published a few more objects each round (a later point each time).
    const from = n
    await waitFor('the publish loop to get going', () => n >= from + 5 + 5 * round || stop, 60_000, 20)
    const v = await waitRrdp(d.url, (v) => v.objects.size > 1 && v.notification.deltas.some((x) => !seen.has(`${v.notification.sessionId}/${x.serial}`)))
    for (const x of v.notification.deltas) seen.set(`${v.notification.sessionId}/${x.serial}`, (await httpsRequest(x.uri, { binary: true })).raw)
    await d.stop('SIGKILL')
    stop = true
    await loop
    d = await repoDaemon(t, '', d.dataDir, { port: d.port, rsync: (d as { rsyncPort: number }).rsyncPort })
    alice.response = { ...alice.response!, serviceUri: `${d.url}rfc8181/alice/` }
    const after = await readRrdp(d.url)
    let compared = 0
    for (const x of after.notification.deltas) {
      const before = seen.get(`${after.notification.sessionId}/${x.serial}`)
      if (!before) continue
      t.same((await httpsRequest(x.uri, { binary: true })).raw, before, `round ${round}: delta ${x.serial} unchanged`)
      compared++
    }
    t.ok(compared > 0 || after.notification.sessionId !== v.notification.sessionId, `round ${round}: ${compared} deltas compared (session ${after.notification.sessionId === v.notification.sessionId ? 'kept' : 'new'}; before ${v.notification.serial}: ${v.notification.deltas.map((x) => x.serial).join(',')}; after ${after.notification.serial}: ${after.notification.deltas.map((x) => x.serial).join(',')})`)
  }
})
