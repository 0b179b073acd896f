/**
 * The relying-party view's fetchers (issue 26 §1) against a real svcd: its RRDP over HTTPS and its rsync daemon, with a
 * TestPublisher publishing over RFC 8181. What each fetcher returns is what was published; the second RRDP fetch
 * reads the deltas, not the snapshot; and each failure is a one-line error, never a throw: a stopped rsync daemon, a
 * wrong hash in the notification, a notification over maxBytes, an HTTP 404, a refused connection, a bad source.
 *
 *   TestPublisher pub ──RFC 8181──► svcd ──► RRDP (HTTPS) ──► RrdpFetcher
 *                                        └─► rsync tree ──► rsyncd ──► RsyncFetcher (Debian's rsync)
 */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { LivenessFetcher } from '../../src/app/liveness/fetcher.js'
import { RrdpFetcher } from '../../src/app/liveness/rrdp-fetcher.js'
import { RsyncFetcher } from '../../src/app/liveness/rsync-fetcher.js'
import { systemClock } from '../../src/clock.js'
import { sha256Hex } from '../../src/crypto/digest.js'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { freePort, httpsGet, tempDir } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { rsyncFetch, waitRrdp } from '../helpers/repo.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const blob = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 7 + seed) & 255)

t.test('RRDP and rsync as a relying party fetches them: what was published, deltas the second time, each failure a one-line error', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, { testbed: false, logLevel: 'info' })
  const pub = new TestPublisher('pub')
  pub.useResponse(await d.cli(['publishers', 'add', '--request', d.file('pub.xml', pub.requestXml())]))
  const base = pub.response!.siaBase
  const published = new Map([0, 1, 2].map((i) => [`${base}o${i}.cer`, blob(20_000, i)]))
  t.equal((await pub.send({ type: 'delta', pdus: [...published].map(([uri, content]) => ({ type: 'publish' as const, uri, content })) })).type, 'success')
  await waitRrdp(d.url, (v) => [...published.keys()].every((u) => v.objects.has(u)), 30_000)
  const notification = `${d.url}rrdp/notification.xml`
  const rrdp = new RrdpFetcher({ timeoutMs: 10_000, maxBytes: 1 << 24, clock: systemClock })
  const rsyncDir = tempDir(t)
  const rsync = new RsyncFetcher({ rsyncCommand: 'rsync', mirrorDir: rsyncDir, timeoutMs: 10_000, maxBytes: 1 << 24, clock: systemClock })
  const fetcher = new LivenessFetcher({ rrdp, rsync, clock: systemClock })
  const mine = (files: ReadonlyMap<string, Uint8Array>) => new Map([...files].filter(([u]) => u.startsWith(base)).map(([u, b]) => [u, sha256Hex(b)]))
  const expected = new Map([...published].map(([u, b]) => [u, sha256Hex(b)]))

  const first = await fetcher.fetch('rrdp', notification)
  t.equal(first.error, undefined, `RRDP fetched (${first.error ?? ''})`)
  t.same(mine(first.files), expected, 'RRDP: exactly what was published')
  t.match(first, { transport: 'rrdp', source: notification, session: /^[0-9a-f-]{36}$/, serial: Number })
  t.same({ snapshots: rrdp.stats.snapshots, deltas: rrdp.stats.deltas }, { snapshots: 1, deltas: 0 }, 'the first fetch reads the snapshot')
  const snapshotBytes = rrdp.stats.bytes

  // One more object and a withdrawal: the second fetch reads the deltas.
  const added = `${base}o3.cer`
  const gone = `${base}o0.cer`
  t.equal((await pub.send({ type: 'delta', pdus: [{ type: 'publish', uri: added, content: blob(100, 3) }, { type: 'withdraw', uri: gone, hash: sha256Hex(published.get(gone)!) }] })).type, 'success')
  await waitRrdp(d.url, (v) => v.objects.has(added) && !v.objects.has(gone), 30_000)
  const before = { ...rrdp.stats }
  const second = await fetcher.fetch('rrdp', notification)
  t.equal(second.error, undefined, `RRDP fetched again (${second.error ?? ''})`)
  expected.delete(gone)
  expected.set(added, sha256Hex(blob(100, 3)))
  t.same(mine(second.files), expected, 'RRDP: the change is there')
  t.equal(rrdp.stats.snapshots, before.snapshots, 'no snapshot the second time')
  t.ok(rrdp.stats.deltas > before.deltas, `deltas read: ${rrdp.stats.deltas - before.deltas}`)
  const secondBytes = rrdp.stats.bytes - before.bytes
  t.ok(secondBytes < snapshotBytes / 2, `the second fetch read ${secondBytes} bytes in ${rrdp.stats.requests - before.requests} requests, the first ${snapshotBytes}`)

  // rsync: the module, once the tree has the change.
  await waitFor('the rsync tree to hold the change', async () => rsyncFetch(d.rsyncBase).has(added.slice(d.rsyncBase.length)), 90_000)
  const tree = await fetcher.fetch('rsync', d.rsyncBase)
  t.equal(tree.error, undefined, `rsync fetched (${tree.error ?? ''})`)
  t.same(mine(tree.files), expected, 'rsync: exactly what was published')
  t.equal((await fetcher.fetch('rsync', base)).files.size, expected.size, 'a directory below the module')
  // Only the mirrors of sources still checked stay on disk.
  const mirrors = () => readdirSync(rsyncDir).length
  t.equal(mirrors(), 2, 'a mirror for the module and one for the directory')
  fetcher.retain({ rrdp: new Set([notification]), rsync: new Set([d.rsyncBase]) })
  t.equal(mirrors(), 1, 'the directory no longer checked: its mirror removed')
  t.same(mine((await fetcher.fetch('rsync', d.rsyncBase)).files), expected, 'the module still fetched from its mirror')

  // Failures: each a one-line error and no files.
  const failed = (what: string, r: { error?: string; files: ReadonlyMap<string, Uint8Array> }, re: RegExp) => {
    t.match(r.error, re, `${what}: ${r.error}`)
    t.equal(r.files.size, 0, `${what}: no files`)
    t.notMatch(r.error ?? '', /\n/, `${what}: one line`)
  }
  failed('over maxBytes', await new RrdpFetcher({ timeoutMs: 10_000, maxBytes: 100, clock: systemClock }).fetch(notification), /more than 100 bytes/)
  failed('HTTP 404', await rrdp.fetch(`${d.url}rrdp/nope.xml`), /^HTTP 404/)
  failed('nobody listening', await rrdp.fetch(`https://localhost:${await freePort()}/rrdp/notification.xml`), /^unreachable: connection refused/)
  failed('not https', await rrdp.fetch(`http://localhost:${d.port}/rrdp/notification.xml`), /not an https URI/)
  failed('an rsync source outside a module', await rsync.fetch(`rsync://localhost:${d.rsyncPort}/repo/../x/`), /leaves its module/)
  failed('not rsync', await rsync.fetch(notification), /not an rsync URI/)
  failed('rsync disabled', await new LivenessFetcher({ rrdp, clock: systemClock }).fetch('rsync', d.rsyncBase), /rsync = false/)

  // A notification whose snapshot hash is wrong, served by a loopback server with svcd's certificate.
  const n = (await httpsGet(notification)).body
  const wrong = n.replace(/(<snapshot [^>]*hash=")([0-9a-f]{64})/, (_, a: string, h: string) => a + (h[0] === '0' ? '1' : '0') + h.slice(1))
  const server = https.createServer({ cert: readFileSync(join(d.dataDir, 'ssl', 'cert.pem')), key: readFileSync(join(d.dataDir, 'ssl', 'key.pem')) }, (_req, res) => res.end(wrong))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const snapshotUri = /<snapshot [^>]*uri="([^"]+)"/.exec(n)![1]!
  const bad = wrong.replace(snapshotUri, snapshotUri.replace(/^https:\/\/[^/]+/, `https://127.0.0.1:${(server.address() as AddressInfo).port}`))
  server.removeAllListeners('request')
  const snapshot = (await httpsGet(snapshotUri)).raw
  server.on('request', (req, res) => res.end(req.url === '/notification.xml' ? bad : snapshot))
  failed('a wrong snapshot hash', await rrdp.fetch(`https://127.0.0.1:${(server.address() as AddressInfo).port}/notification.xml`), /^hash mismatch for snapshot$/)

  // The rsync daemon stopped (SIGSTOP: it accepts nothing more): an rsync error within the timeout, and back after SIGCONT.
  const pid = Number(readFileSync(join(d.dataDir, 'repo', 'rsyncd.pid'), 'utf8').trim())
  process.kill(pid, 'SIGSTOP')
  try {
    const quick = new RsyncFetcher({ rsyncCommand: 'rsync', mirrorDir: tempDir(t), timeoutMs: 3_000, maxBytes: 1 << 24, clock: systemClock })
    const started = Date.now()
    failed('a stopped rsync daemon', await quick.fetch(d.rsyncBase), /^rsync (exit \d+: .+|did not finish within \d+ s)$/)
    t.ok(Date.now() - started < 15_000, `gave up after ${Date.now() - started} ms`)
  } finally {
    process.kill(pid, 'SIGCONT')
  }
  const again = await rsync.fetch(d.rsyncBase)
  t.equal(again.error, undefined, 'rsync again once the daemon runs')
  t.same(mine(again.files), expected, 'the same files')
})
