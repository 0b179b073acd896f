/**
 * The publication server under faults (issue 10, "Security first"), end to end over real RFC 8181 (CMS over HTTPS):
 *
 *   TestPublisher alice ─┐
 *                        ├─RFC 8181─► svcd /rfc8181/{alice,bob} ──► RRDP (/rrdp/) + rsync tree <data>/repo/rsync/current
 *   TestPublisher bob ───┘
 *
 * - defect 2: alice sends every URI shape the rsync tree or relying parties cannot hold; each message is refused
 *   with a report_error and changes nothing, and bob's later change reaches RRDP and the rsync tree.
 * - defect 6: a captured "publish x" replayed after a "withdraw x" signed in the same second is refused.
 * - defect 3: the data dir on a small tmpfs filled up and freed: refusals are labelled (JSON API) or signed
 *   report_errors (RFC 8181), never HTTP 500; /ready reports the problem while full; after the disk is freed every
 *   acknowledged object reaches RRDP and the rsync tree within 60 s without any further change, and /ready is 200.
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PublicationReply, PublishPdu, WithdrawPdu } from '../../src/protocol/publication.js'
import { encodePublicationQuery } from '../../src/protocol/publication.js'
import { freePort, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { TestPublisher } from '../helpers/publisher.js'
import { readDeltas, readRrdp, sha, waitRrdp } from '../helpers/repo.js'

const bytes = (s: string) => new TextEncoder().encode(s)
const codes = (r: PublicationReply) => (r.type === 'error_reply' ? r.errors.map((e) => e.code) : [r.type])

async function repoDaemon(t: Test, dataDir?: string): Promise<Daemon> {
  const port = await freePort()
  const toml = `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:3873/repo/"\nrsync_daemon = "off"\n# the 2 MiB ballast object below is over the default quota of 1 MiB an object\nquota_object_bytes = 4194304\n`
  return startDaemon(t, { port, toml, ...(dataDir ? { dataDir } : {}) })
}

async function addPublisher(t: Test, d: Daemon, pub: TestPublisher): Promise<void> {
  const file = join(tempDir(t), `${pub.handle}.xml`)
  writeFileSync(file, pub.requestXml())
  const r = await svcc(['publishers', 'add', '--request', file], { env: d.env })
  if (r.code !== 0) throw new Error(r.stderr)
  pub.useResponse(r.stdout)
}

/** The files of the current rsync tree on disk (what rsyncd serves): relative path → hex SHA-256. */
function rsyncTree(d: Daemon): Map<string, string> {
  const root = join(d.dataDir, 'repo', 'rsync', 'current')
  const files = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e)
      if (statSync(p).isDirectory()) walk(p, `${rel}${e}/`)
      else files.set(rel + e, sha(readFileSync(p)))
    }
  }
  if (existsSync(root)) walk(root, '')
  return files
}

const pub = (uri: string, c: string): PublishPdu => ({ type: 'publish', uri, content: bytes(c) })

t.test('a publisher\'s URIs the rsync tree cannot hold are refused, and never hold up another publisher (defect 2)', async (t) => {
  const d = await repoDaemon(t)
  const alice = new TestPublisher('alice')
  const bob = new TestPublisher('bob')
  await addPublisher(t, d, alice)
  await addPublisher(t, d, bob)
  const a = alice.response!.siaBase
  const b = bob.response!.siaBase
  t.same(await alice.send({ type: 'delta', pdus: [pub(a + 'ok.roa', 'OK'), pub(a + 'held.roa', 'H'), pub(a + 'dir/y.roa', 'Y')] }), { type: 'success' })
  t.same(await bob.send({ type: 'delta', pdus: [pub(b + 'b1.roa', 'B1')] }), { type: 'success' })
  await waitFor('the first objects in rsync', () => (rsyncTree(d).size === 4 ? true : undefined))

  const fill = (n: number) => a + 'd/'.repeat(900) + 'x'.repeat(n - a.length - 1800)
  const refused: [string, (PublishPdu | WithdrawPdu)[], string[]][] = [
    ['a path no file system takes (40 segments of 255)', [pub(a + Array.from({ length: 40 }, (_, i) => String(i % 10).repeat(255)).join('/') + '/x.roa', 'L')], ['permission_failure']],
    ['a segment over 255 bytes', [pub(a + 'x'.repeat(256) + '.roa', 'S')], ['permission_failure']],
    ['a URI over 2048 bytes', [pub(fill(2049), 'U')], ['permission_failure']],
    ['a.roa and a.roa/x.roa in one message', [pub(a + 'a.roa', 'A'), pub(a + 'a.roa/x.roa', 'X')], ['consistency_problem', 'consistency_problem']],
    ['d/x.roa and d in one message', [pub(a + 'd/x.roa', 'DX'), pub(a + 'd', 'D')], ['consistency_problem', 'consistency_problem']],
    ['below an object held', [pub(a + 'held.roa/x.roa', 'X')], ['consistency_problem']],
    ['an object where a held one needs a directory', [pub(a + 'dir', 'D')], ['consistency_problem']],
    ['a good object with a bad one', [pub(a + 'good.roa', 'G'), pub(a + 'held.roa/y/z.roa', 'Z')], ['consistency_problem']],
    ['a .. segment', [pub(a + 'dir/../b.roa', 'B')], ['permission_failure']],
    ['a . segment', [pub(a + './b.roa', 'B')], ['permission_failure']],
    ['an empty segment', [pub(a + 'dir//b.roa', 'B')], ['permission_failure']],
  ]
  for (const [what, pdus, expected] of refused) {
    const r = await alice.send({ type: 'delta', pdus })
    t.same(codes(r), expected, `${what}: report_error ${expected.join(', ')}`)
  }
  t.equal(fill(2048).length, 2048)
  t.same(codes(await alice.send({ type: 'delta', pdus: [pub(fill(2048), 'U')] })), ['success'], 'a URI of exactly 2048 bytes is taken')
  const list = await alice.send({ type: 'list' })
  t.same(list.type === 'list_reply' && list.elements.map((e) => e.uri.slice(a.length)).sort(), ['dir/y.roa', fill(2048).slice(a.length), 'held.roa', 'ok.roa'].sort(), 'the refused messages changed nothing')

  t.same(await bob.send({ type: 'delta', pdus: [pub(b + 'b2.roa', 'B2')] }), { type: 'success' }, 'bob publishes later')
  await waitRrdp(d.url, (v) => v.objects.get(b + 'b2.roa') === sha('B2'))
  t.pass("bob's change is in RRDP")
  await waitFor("bob's change in the rsync tree", () => (rsyncTree(d).get('bob/b2.roa') === sha('B2') ? true : undefined))
  t.pass("bob's change is in the rsync tree on disk")
  t.equal(rsyncTree(d).get(fill(2048).slice(a.length - 'alice/'.length)), sha('U'), 'and so is the 2048-byte URI')
  const ready = await httpsRequest(d.url + 'ready')
  t.same([ready.status, JSON.parse(ready.body)], [200, { ready: true }], 'ready, no problems')
})

t.test('a captured publish replayed after a withdraw signed in the same second is refused (defect 6)', async (t) => {
  const d = await repoDaemon(t)
  const alice = new TestPublisher('alice')
  await addPublisher(t, d, alice)
  const x = alice.response!.siaBase + 'x.roa'
  // Both messages carry the same signing-time (one-second resolution): T, pinned.
  const T = new Date(Math.floor(Date.now() / 1000) * 1000)
  const publishX = await alice.signer.sign(encodePublicationQuery({ type: 'delta', pdus: [pub(x, 'X')] }), T)
  const withdrawX = await alice.signer.sign(encodePublicationQuery({ type: 'delta', pdus: [{ type: 'withdraw', uri: x, hash: sha('X') }] }), T)
  t.same(codes(alice.reply(await alice.post(publishX))), ['success'], 'publish x')
  await waitRrdp(d.url, (v) => v.objects.has(x))
  t.same(codes(alice.reply(await alice.post(withdrawX))), ['success'], 'withdraw x, signed in the same second')
  const serial = Number((await waitRrdp(d.url, (v) => !v.objects.has(x))).notification.serial)
  const replay = alice.reply(await alice.post(publishX))
  t.same(codes(replay), ['bad_cms_signature'], 'the captured publish, replayed: refused with a signed report_error')
  t.match(replay.type === 'error_reply' && replay.errors[0].text, /RFC 6492 §3\.1\.2: .*replay/)
  const list = await alice.send({ type: 'list' })
  t.same(list.type === 'list_reply' && list.elements, [], 'x did not come back')
  // A later publish is a fence: once it is in RRDP, whatever the replay had changed would be there too.
  const y = alice.response!.siaBase + 'y.roa'
  t.same(codes(await alice.send({ type: 'delta', pdus: [pub(y, 'Y')] })), ['success'], 'a later publish of y')
  const after = await waitRrdp(d.url, (v) => v.objects.has(y))
  t.notOk(after.objects.has(x), 'x not in RRDP')
  const later = (await readDeltas(after.notification)).filter((x) => x.serial > serial)
  t.same([later.reduce((n, x) => n + x.elements, 0), later.every((x) => x.xml.includes(y))], [1, true], 'the serials since hold y alone: the replay changed nothing')
})

/** Write the filler file `name` until the file system has at most `leave` bytes free (0: until it is full). */
function fillDisk(dir: string, name: string, leave = 0): string {
  const path = join(dir, name)
  const fd = openSync(path, 'w')
  const free = () => { const st = statfsSync(dir); return st.bavail * st.bsize }
  try {
    for (let n = 256 * 1024; n >= 1; n = Math.floor(n / 2)) {
      const chunk = Buffer.alloc(n, 0x5a)
      try {
        while (free() - n >= leave) writeSync(fd, chunk)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e
      }
      if (leave > 0) break
    }
  } finally {
    closeSync(fd)
  }
  return path
}

t.test('a full disk heals by itself: refusals are labelled, readiness tells, everything acknowledged is published after (defect 3)', async (t) => {
  const mnt = join(tempDir(t), 'mnt')
  mkdirSync(mnt)
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mnt], { encoding: 'utf8' })
  if (mount.status !== 0) return t.plan(0, `skipped: cannot mount a tmpfs for the data dir (needs root): ${mount.stderr.trim() || mount.error?.message}`)
  let d: Daemon | undefined
  t.teardown(async () => {
    await d?.stop('SIGKILL')
    if (spawnSync('umount', [mnt]).status !== 0) spawnSync('umount', ['-l', mnt])
  })
  d = await repoDaemon(t, join(mnt, 'data'))
  const alice = new TestPublisher('alice')
  await addPublisher(t, d, alice)
  const jail = alice.response!.siaBase
  const acked = new Map<string, string>()
  const publish = async (name: string, content: string) => {
    const r = await alice.send({ type: 'delta', pdus: [pub(jail + name, content)] })
    if (r.type === 'success') acked.set(name, sha(content))
    return r
  }
  // A large object: every RRDP snapshot holds it (about 2.7 MB in base64), so once little space is left no
  // snapshot can be written, while SQLite can still take small changes.
  await publish('ballast.cer', 'B'.repeat(2 * 1024 * 1024))
  for (let i = 0; i < 3; i++) await publish(`before-${i}.roa`, `before ${i}`)
  await waitRrdp(d.url, (v) => v.objects.size === 4)
  await waitFor('the objects in the rsync tree', () => (rsyncTree(d!).size === 4 ? true : undefined))

  const nearlyFull = fillDisk(mnt, 'filler-1', 1024 * 1024)
  const fullAt = Date.now()
  // One message (a failing RRDP cycle takes the space left for a moment, until it removes what it wrote).
  const late = [0, 1, 2].map((i) => pub(jail + `acked-${i}.roa`, `acked while RRDP cannot write ${i}`))
  t.same(codes(await alice.send({ type: 'delta', pdus: late })), ['success'], 'acknowledged with 1 MB left')
  for (const p of late) acked.set(p.uri.slice(jail.length), sha(p.content))
  const notReady = await waitFor('/ready to report the problem', async () => {
    const r = await httpsRequest(d!.url + 'ready')
    return r.status === 503 ? (JSON.parse(r.body) as { ready: boolean; problems: { label: string; msg: string; args: Record<string, string> }[] }) : undefined
  })
  t.equal(notReady.ready, false)
  t.ok(notReady.problems.some((p) => p.label === 'sys-rrdp-behind'), `the problem is named: ${notReady.problems.map((p) => p.label).join(', ')}`)
  t.notMatch(JSON.stringify(notReady), new RegExp(mnt.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), 'no file system paths on the public endpoint')
  t.notOk((await readRrdp(d.url)).objects.has(jail + 'acked-0.roa'), 'the acknowledged objects are not in RRDP yet')
  t.equal((await httpsRequest(d.url + 'health')).status, 200, '/health: the process and the store are alive')
  const stats = JSON.parse((await svcc(['publishers', 'stats', '-f', 'json'], { env: d.env })).stdout)
  t.match(stats.problems, [{ label: 'sys-rrdp-behind', args: { reason: /ENOSPC|no space/i } }], 'the pubd stats give the reason')
  const issues = await svcc(['issues'], { env: d.env })
  t.match(issues.stdout, /^Publication server issue: .*\(sys-rrdp-behind\)$/m, 'svcc issues names it too')

  // Now completely full: RFC 8181 answers are signed replies (success while SQLite still has room, else other_error).
  const full = fillDisk(mnt, 'filler-2')
  let refusedRfc8181 = 0
  for (let i = 0; i < 200 && refusedRfc8181 < 3; i++) {
    const r = await publish(`while-full-${i}.roa`, `${i} `.padEnd(64 * 1024, String(i % 10)))
    if (r.type === 'error_reply') {
      refusedRfc8181++
      t.same(codes(r), ['other_error'], `refused while full: report_error other_error`)
      t.match(r.errors[0].text, /RFC 8181 §2\.5: No space is left in the data directory: nothing was changed/)
    }
  }
  t.ok(refusedRfc8181 > 0, `RFC 8181 messages were refused while the disk was full (${refusedRfc8181}), ${acked.size} acknowledged in all`)
  // The JSON API: a labelled 507, never a bare 500.
  const apiStatuses: number[] = []
  for (let i = 0; i < 20; i++) {
    const p = new TestPublisher(`full${i}`)
    const r = await httpsRequest(d.url + 'api/v1/pubd/publishers', { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/xml' }, body: p.requestXml() })
    apiStatuses.push(r.status)
    if (r.status !== 200) {
      t.same([r.status, JSON.parse(r.body)], [507, { label: 'sys-storage-full', msg: 'No space is left in the data directory: nothing was changed; retry when space has been freed', args: {} }], 'a labelled JSON error')
      break
    }
  }
  t.notOk(apiStatuses.includes(500), `no HTTP 500 from the API (statuses ${apiStatuses.join(', ')})`)
  // Keep the disk full for a while: the writers retry, with a back-off, and log the problem once, not per retry.
  await new Promise((r) => setTimeout(r, Math.max(0, 8000 - (Date.now() - fullAt))))

  rmSync(full)
  rmSync(nearlyFull)
  const freedAt = Date.now()
  const v = await waitRrdp(d.url, (v) => [...acked].every(([name, hash]) => v.objects.get(jail + name) === hash), 60_000)
  t.pass(`every acknowledged object (${acked.size}) is in the RRDP snapshot ${((Date.now() - freedAt) / 1000).toFixed(1)} s after the disk was freed, with no further change`)
  t.equal(v.objects.size, acked.size, 'and nothing else')
  await waitFor('every acknowledged object in the rsync tree', () => {
    const tree = rsyncTree(d!)
    return [...acked].every(([name, hash]) => tree.get(`alice/${name}`) === hash) ? tree : undefined
  }, 60_000 - (Date.now() - freedAt))
  t.pass(`every acknowledged object is in the rsync tree ${((Date.now() - freedAt) / 1000).toFixed(1)} s after the disk was freed`)
  const ready = await waitFor('/ready 200', async () => {
    const r = await httpsRequest(d!.url + 'ready')
    return r.status === 200 ? JSON.parse(r.body) : undefined
  })
  t.same(ready, { ready: true })
  t.equal((await svcc(['issues'], { env: d.env })).stdout.trim(), 'no issues', 'and svcc issues is clear again')
  const logged = d.output().split('\n').filter((l) => l.includes('publication output problem"') && l.includes('"problem":"rrdp"'))
  t.equal(logged.length, 1, 'the RRDP problem was logged once, not once per retry')
  t.ok(d.output().includes('publication output problem resolved'), 'and its end was logged')
})
