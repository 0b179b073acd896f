/**
 * Several svcd instances on one PostgreSQL database (issue 14 items 4–6, design.md §7): three instances with one
 * configuration (apart from port and data dir) start together on an empty database; the testbed is created once;
 * one leads; API commands and RFC 8181 messages go to the others; every instance serves byte-identical RRDP; the
 * leader is killed with -9 during a burst of publications, another leads within the lease, no acknowledged publish
 * is lost, and the RRDP session continues with serials that never go back and deltas that never change.
 *
 *   svcd ×3 ── PostgreSQL (own cluster)      publisher bob ──RFC 8181──► a follower
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { ClusterJson } from '../../src/api/status.js'
import { decodeNotification } from '../../src/protocol/rrdp.js'
import { encodePublicationQuery } from '../../src/protocol/publication.js'
import { freePort, httpsGet, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { TestPublisher } from '../helpers/publisher.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js'
import { sha } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

const LEASE_SECONDS = 6
const pg = await startPostgres(t)
const uri = pg.createDatabase('svc_multi')
const kek = join(tempDir(t), 'kek')
writeFileSync(kek, '5a'.repeat(32) + '\n', { mode: 0o600 })

async function cli(d: Daemon, args: string[], stdin?: string): Promise<string> {
  const r = await svcc(args, { env: d.env, ...(stdin !== undefined ? { stdin } : {}) })
  if (r.code !== 0) throw new Error(`svcc ${args.join(' ')} at ${d.url} failed (${r.code}): ${r.stderr}`)
  return r.stdout
}
const clusterOf = async (d: Daemon) => JSON.parse(await cli(d, ['cluster', '--format', 'json'])) as ClusterJson
/** The raw notification an instance serves, and the snapshot it names fetched from that same instance. */
async function served(d: Daemon): Promise<{ xml: string; serial: number; session: string; snapshot: Buffer } | undefined> {
  const n = await httpsGet(d.url + 'rrdp/notification.xml')
  if (n.status !== 200) return undefined
  const parsed = decodeNotification(n.body)
  const snap = await httpsGet(d.url + parsed.snapshot.uri.replace(/^https:\/\/[^/]+\//, ''))
  if (snap.status !== 200 || sha(snap.raw) !== parsed.snapshot.hash) return undefined
  return { xml: n.body, serial: Number(parsed.serial), session: parsed.sessionId, snapshot: snap.raw }
}
/** Every instance in `ds` serves the same notification bytes, and `cond` holds for its snapshot; that notification. */
function sameEverywhere(ds: Daemon[], what: string, cond: (snapshot: string) => boolean) {
  return waitFor(what, async () => {
    const all = await Promise.all(ds.map(served))
    if (all.some((s) => !s || s.xml !== all[0]!.xml || !s.snapshot.equals(all[0]!.snapshot))) return undefined
    return cond(all[0]!.snapshot.toString('utf8')) ? all[0]! : undefined
  }, 60_000)
}

t.test('three instances, one leader, identical RRDP, failover without loss', async (t) => {
  const ports = await Promise.all([freePort(), freePort(), freePort()])
  const shared = [
    `storage_uri = "${uri}"`, `key_encryption_key_file = "${kek}"`, `cluster_lease_seconds = ${LEASE_SECONDS}`, 'cluster_poll_ms = 200',
    `service_uri = "https://localhost:${ports[0]}/"`,
    '[repository]', 'enabled = true', `rrdp_base_uri = "https://localhost:${ports[0]}/rrdp/"`, `rsync_base_uri = "rsync://localhost:${await freePort()}/repo/"`, 'rsync_daemon = "off"',
    '[testbed]', 'enabled = true',
  ].join('\n')
  // All three start at once on the empty database.
  const ds = await Promise.all(ports.map((port) => startDaemon(t, { port, toml: shared, logLevel: 'info', token: 'cluster-test-token' })))
  t.equal(pg.psql('svc_multi', 'SELECT string_agg(handle, \',\' ORDER BY handle) FROM ca_snapshots').trim(), 'ta,testbed', 'the configured CAs were created once')

  const first = await waitFor('every instance to report, with one leader', async () => {
    const views = await Promise.all(ds.map(clusterOf))
    const v = views[0]!
    const ok = views.every((x) => x.mode === 'cluster' && x.leader === v.leader && x.epoch === v.epoch && x.instances.length === 3) && v.instances.filter((i) => i.role === 'leader').length === 1
    return ok ? v : undefined
  })
  t.equal(first.epoch, 1, 'the first leader has epoch 1')
  const leaderIndex = ds.findIndex((d) => first.instances.find((i) => i.id === first.leader)!.url.endsWith(`:${d.port}/`))
  t.ok(leaderIndex >= 0, `the leader is ${first.leader}`)
  const leader = ds[leaderIndex]!
  const followers = ds.filter((d) => d !== leader)
  t.match(await cli(followers[0]!, ['cluster']), /Mode: cluster, leader: .*, epoch 1/, 'svcc cluster as text')

  // A CA made through one follower, its ROAs through the other: both read and write the same database.
  await cli(followers[0]!, ['add', '-c', 'alice'])
  const req = await cli(followers[0]!, ['parents', 'request', '-c', 'alice'])
  const reqFile = join(tempDir(t), 'req.xml')
  writeFileSync(reqFile, req)
  const resp = await cli(followers[1]!, ['children', 'add', '-c', 'testbed', '--child', 'alice', '--request', reqFile, '-a', 'AS65000', '-4', '10.0.0.0/8'])
  const respFile = join(tempDir(t), 'resp.xml')
  writeFileSync(respFile, resp)
  await cli(followers[0]!, ['parents', 'add', '-c', 'alice', '-p', 'testbed', '-r', respFile])
  await waitFor('alice certified', async () => /active/.test(await cli(followers[1]!, ['show', '-c', 'alice'])), 60_000)
  const delta = join(tempDir(t), 'delta.txt')
  writeFileSync(delta, 'A: 10.1.0.0/16 => 65000\n')
  await cli(followers[1]!, ['roas', 'update', '-c', 'alice', '--delta', delta])
  // Commands on one CA sent at once through two instances: the CA's lock among the instances runs them one after
  // another (without it, a save that lost the race would be refused).
  const many = Array.from({ length: 8 }, (_, i) => {
    const f = join(tempDir(t), `c${i}.txt`)
    writeFileSync(f, `A: 10.${100 + i}.0.0/16 => 65000\n`)
    return f
  })
  const results = await Promise.all(many.map((f, i) => svcc(['roas', 'update', '-c', 'alice', '--delta', f], { env: followers[i % 2]!.env })))
  t.same(results.map((r) => r.code), many.map(() => 0), `eight ROA updates of one CA at once through two instances all succeed ${results.map((r) => r.stderr).join('')}`)
  t.equal((await cli(leader, ['roas', 'list', '-c', 'alice'])).split('\n').filter((l) => /=> 65000/.test(l)).length, 9, 'and all nine ROAs are configured')
  const withRoa = await sameEverywhere(ds, "alice's ROA in identical RRDP at every instance", (s) => /\.roa"/.test(s))
  t.pass(`all three serve serial ${withRoa.serial} with identical notification and snapshot bytes`)

  // A publisher, added through a follower, publishes to a follower.
  const bob = new TestPublisher('bob')
  const bobReq = join(tempDir(t), 'bob.xml')
  writeFileSync(bobReq, bob.requestXml())
  bob.useResponse(await cli(followers[0]!, ['publishers', 'add', '--request', bobReq]))
  const jail = bob.response!.siaBase
  const target = followers[1]!
  const publish = async (name: string) => {
    const cms = await bob.signer.sign(encodePublicationQuery({ type: 'delta', pdus: [{ type: 'publish', uri: jail + name, content: new TextEncoder().encode(`object ${name}`) }] }), new Date())
    const reply = bob.reply(await bob.post(cms, 'application/rpki-publication', `${target.url}rfc8181/bob/`))
    if (reply.type !== 'success') throw new Error(`publish ${name}: ${JSON.stringify(reply)}`)
  }
  // The follower that acknowledges a publish measures the delay to the notification it serves (issue 14 item 7).
  const delays = async () => sampleValue(parsePrometheusText((await httpsGet(target.url + 'metrics', { Authorization: `Bearer ${target.token}` })).body), 'svc_repo_publish_delay_seconds_count', {}) ?? 0
  await sameEverywhere(ds, 'nothing pending', () => true)
  const delaysBefore = await delays()
  await publish('before.cer')
  const before = await sameEverywhere(ds, 'the first publication everywhere', (s) => s.includes(jail + 'before.cer'))
  const delaysAfter = await waitFor('the follower to observe the publish delay', async () => ((await delays()) > delaysBefore ? delays() : undefined))
  t.ok(delaysAfter > delaysBefore, `a follower observes the delay of the publish it acknowledged (count ${delaysBefore} → ${delaysAfter})`)

  // The burst, with the leader killed in the middle of it.
  const delta2 = join(tempDir(t), 'delta2.txt')
  writeFileSync(delta2, 'A: 10.2.0.0/16 => 65000\n')
  const roasBefore = (before.snapshot.toString('utf8').match(/\.roa"/g) ?? []).length
  const acked: string[] = []
  let killedAt = 0
  for (let i = 0; i < 40; i++) {
    if (i === 15) {
      leader.proc.kill('SIGKILL')
      killedAt = Date.now()
    }
    await publish(`o${i}.cer`)
    acked.push(`o${i}.cer`)
    // An API change acknowledged while no instance leads yet.
    if (i === 16) await cli(target, ['roas', 'update', '-c', 'alice', '--delta', delta2])
  }
  const next = await waitFor('another instance to lead', async () => {
    const v = await clusterOf(target)
    return v.leader !== first.leader && v.epoch > first.epoch ? v : undefined
  }, 30_000, 100)
  const failover = Date.now() - killedAt
  t.ok(failover <= LEASE_SECONDS * 1000, `a new leader (${next.leader}, epoch ${next.epoch}) within the lease: ${failover} ms after kill -9`)
  t.equal(next.epoch, first.epoch + 1, 'the epoch went up by one')

  const after = await sameEverywhere(followers, 'every acknowledged publish and the new ROA in identical RRDP at both survivors', (s) => acked.every((n) => s.includes(jail + n)) && (s.match(/\.roa"/g) ?? []).length > roasBefore)
  t.pass(`all ${acked.length} acknowledged publishes and the ROA change made during the failover are served, ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`)
  t.match(await cli(target, ['roas', 'list', '-c', 'alice']), /10\.2\.0\.0\/16/, 'the ROA change is kept')
  // Each instance builds its own rsync tree from the database.
  for (const d of followers) {
    const tree = join(d.dataDir, 'repo', 'rsync', 'current', 'bob')
    await waitFor(`bob's files in the rsync tree of ${d.url}`, () => acked.every((n) => existsSync(join(tree, n))), 30_000)
  }
  t.pass('both survivors built their rsync trees with every acknowledged file')
  t.equal(after.session, before.session, 'the RRDP session continues')
  t.ok(after.serial > before.serial, `its serial went on (${before.serial} → ${after.serial}), never back`)
  const deltasBefore = decodeNotification(before.xml).deltas
  const deltasAfter = new Map(decodeNotification(after.xml).deltas.map((d) => [d.serial, d.hash]))
  const common = deltasBefore.filter((d) => deltasAfter.has(d.serial))
  t.ok(common.length > 0, `${common.length} deltas named before and after`)
  t.ok(common.every((d) => deltasAfter.get(d.serial) === d.hash), 'a delta once published never changed')
  const survivors = (await clusterOf(target)).instances.filter((i) => i.id !== first.leader)
  t.ok(survivors.every((i) => i.heartbeat_age_seconds <= LEASE_SECONDS), 'the survivors keep beating')
  for (const d of followers) t.equal(await d.stop(), 0, 'a survivor stops cleanly')
})
