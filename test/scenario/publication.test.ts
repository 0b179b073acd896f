/**
 * The publication server end to end (issue 4): a test publisher with its own identity speaks CMS-wrapped RFC 8181
 * over HTTPS to svcd; RRDP and the rsync tree follow every step; hostile messages are refused and change nothing.
 *
 *   TestPublisher ──RFC 8181 (CMS)──► svcd /rfc8181/alice ──► RRDP /rrdp/ + rsyncd rsync://localhost:<port>/repo/
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodePublicationQuery, type PublicationReply } from '../../src/protocol/publication.js'
import { freePort, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { TestPublisher, testKey } from '../helpers/publisher.js'
import { readDeltas, readRrdp, rsyncFetch, sha, waitRrdp } from '../helpers/repo.js'
import { validateWithSchema, xmllintMissing } from '../helpers/xmllint.js'
import { MessageSigner } from '../../src/protocol/signed-message.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false
const bytes = (s: string) => new TextEncoder().encode(s)

async function repoDaemon(t: Test, extra = '', dataDir?: string, ports?: { port: number; rsync: number }): Promise<Daemon & { rsyncPort: number; rsyncBase: string }> {
  const port = ports?.port ?? (await freePort())
  const rsync = ports?.rsync ?? (await freePort())
  const toml = `[repository]\nenabled = true\nrrdp_base_uri = "https://localhost:${port}/rrdp/"\nrsync_base_uri = "rsync://localhost:${rsync}/repo/"\nrsync_daemon = "auto"\n${extra}`
  const d = await startDaemon(t, { port, toml, ...(dataDir ? { dataDir } : {}) })
  return Object.assign(d, { rsyncPort: rsync, rsyncBase: `rsync://localhost:${rsync}/repo/` })
}

async function addPublisher(t: Test, d: Daemon, pub: TestPublisher): Promise<string> {
  const file = join(tempDir(t), 'req.xml')
  writeFileSync(file, pub.requestXml())
  const r = await svcc(['publishers', 'add', '--request', file], { env: d.env })
  if (r.code !== 0) throw new Error(r.stderr)
  pub.useResponse(r.stdout)
  return r.stdout
}

t.test('publish, replace, withdraw, list: RRDP, deltas and the rsync tree follow', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t)
  const alice = new TestPublisher('alice')
  const responseXml = await addPublisher(t, d, alice)
  const jail = `${d.rsyncBase}alice/`
  t.equal(alice.response!.siaBase, jail)
  t.equal(alice.response!.serviceUri, `${d.url}rfc8181/alice/`)
  t.equal(alice.response!.rrdpNotificationUri, `${d.url}rrdp/notification.xml`)
  if (!xmllintMissing()) t.ok(validateWithSchema(responseXml, 'rfc8183').ok, 'repository response validates (RFC 8183 schema)')

  const ok: PublicationReply = { type: 'success' }
  // A large object that never changes: the snapshot outweighs the deltas, so the size rule keeps them listed.
  const ballast = bytes('Z'.repeat(30_000))
  t.same(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'ballast.cer', content: ballast }] }), ok)
  t.same(await alice.send({ type: 'delta', pdus: [
    { type: 'publish', uri: jail + 'a.cer', content: bytes('A') },
    { type: 'publish', uri: jail + '0/b.roa', content: bytes('B') },
    { type: 'publish', uri: jail + '0/c.mft', content: bytes('C') },
  ] }), ok, 'a signed success reply')
  let v = await waitRrdp(d.url, (v) => v.objects.size === 4)
  t.same([...v.objects.keys()].sort(), [jail + '0/b.roa', jail + '0/c.mft', jail + 'a.cer', jail + 'ballast.cer'])

  t.same(await alice.send({ type: 'delta', pdus: [
    { type: 'publish', uri: jail + 'a.cer', hash: sha('A'), content: bytes('A2') },
    { type: 'withdraw', uri: jail + '0/c.mft', hash: sha('C') },
  ] }), ok)
  v = await waitRrdp(d.url, (v) => v.objects.get(jail + 'a.cer') === sha('A2') && v.objects.size === 3)
  const list = await alice.send({ type: 'list' })
  t.same(list.type === 'list_reply' && list.elements.map((e) => [e.uri, e.hash]).sort(), [[jail + '0/b.roa', sha('B')], [jail + 'a.cer', sha('A2')], [jail + 'ballast.cer', sha(ballast)]])

  const deltas = await readDeltas(v.notification)
  t.ok(deltas.length >= 1, 'deltas are listed and their hashes match')
  if (!xmllintMissing()) {
    t.ok(validateWithSchema(v.notificationXml, 'rfc8182').ok, 'notification validates (RFC 8182 schema)')
    t.ok(validateWithSchema(v.snapshotXml, 'rfc8182').ok, 'snapshot validates')
    for (const x of deltas) t.ok(validateWithSchema(x.xml, 'rfc8182').ok, `delta ${x.serial} validates`)
  }
  const tree = await waitFor('the rsync tree to hold the changed set', () => {
    const files = rsyncFetch(d.rsyncBase)
    return files.get('alice/a.cer') === sha('A2') && files.size === 3 ? files : undefined
  })
  t.same([...tree.keys()].sort(), ['alice/0/b.roa', 'alice/a.cer', 'alice/ballast.cer'], 'rsync lists and fetches exactly the published set')

  const cache = await httpsRequest(v.notification.snapshot.uri, { headers: { 'If-None-Match': String((await httpsRequest(v.notification.snapshot.uri)).headers.etag) } })
  t.equal(cache.status, 304, 'ETag answered with 304')
  const n = await httpsRequest(d.url + 'rrdp/notification.xml')
  t.match(String(n.headers['cache-control']), /max-age=60/)
  t.match(String((await httpsRequest(v.notification.snapshot.uri)).headers['cache-control']), /max-age=86400/)
  t.equal((await httpsRequest(d.url + 'rrdp/../svcd.db')).status, 401, 'the URL resolves to /svcd.db, which is no public path (test/scenario/hostile.test.ts sends the dot segments raw: 400)')
  t.equal((await httpsRequest(d.url + 'rrdp/nothing.xml')).status, 404)
  t.equal((await httpsRequest(d.url + 'rrdp/')).status, 401, 'the RRDP directory itself is no public path')

  const show = await svcc(['publishers', 'show', '-p', 'alice'], { env: d.env })
  t.match(show.stdout, new RegExp(`handle: alice\\nid: [0-9a-f]{64}\\nbase uri: ${jail.replace(/[/.]/g, '\\$&')}`))
  const showJson = JSON.parse((await svcc(['publishers', 'show', '-p', 'alice', '-f', 'json'], { env: d.env })).stdout)
  t.equal(showJson.current_files.length, 3)
  t.match(showJson.id_cert, { public_key: String, base64: String, hash: String })
  t.equal((await svcc(['publishers', 'list'], { env: d.env })).stdout, 'alice\n')
  const stats = JSON.parse((await svcc(['publishers', 'stats', '-f', 'json'], { env: d.env })).stdout)
  t.match(stats, { session: v.notification.sessionId, publishers: { alice: { objects: 3, size: 30_003 } } })
  t.equal((await svcc(['publishers', 'stale', '--seconds', '3600'], { env: d.env })).stdout, '', 'alice published recently')
  // Stale once a second has passed since its last publication: wait for that, not for a second.
  t.equal(await waitFor('alice to be stale after a second', async () => {
    const stale = (await svcc(['publishers', 'stale', '--seconds', '1'], { env: d.env })).stdout
    return stale === '' ? undefined : stale
  }), 'alice\n')
  const resp = await svcc(['publishers', 'response', '-p', 'alice'], { env: d.env })
  t.equal(resp.stdout, responseXml)

  t.equal((await svcc(['publishers', 'remove', '-p', 'alice'], { env: d.env })).code, 0)
  await waitRrdp(d.url, (v) => v.objects.size === 0)
  // The rsync tree follows once the changes have paused for a second.
  t.same(await waitFor('the rsync tree to be empty', () => (rsyncFetch(d.rsyncBase).size === 0 ? 0 : undefined)), 0, 'removing a publisher withdraws all its content')
})

t.test('hostile publishing is refused with the right RFC 8181 error and changes nothing', async (t) => {
  const d = await repoDaemon(t, '', undefined)
  const alice = new TestPublisher('alice')
  await addPublisher(t, d, alice)
  const bob = new TestPublisher('bob')
  await addPublisher(t, d, bob)
  const jail = alice.response!.siaBase
  await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A') }] })
  const before = await waitRrdp(d.url, (v) => v.objects.size === 1)
  const code = (r: PublicationReply) => (r.type === 'error_reply' ? r.errors.map((e) => e.code) : [r.type])

  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: bob.response!.siaBase + 'x.cer', content: bytes('X') }] })), ['permission_failure'], 'outside the jail')
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + '../bob/x.cer', content: bytes('X') }] })), ['permission_failure'], '.. segment')
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + '%2e%2e/bob/x.cer', content: bytes('X') }] })), ['permission_failure'], 'encoded escape')
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail.toUpperCase() + 'x.cer', content: bytes('X') }] })), ['permission_failure'], 'case trick')
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', hash: sha('wrong'), content: bytes('A2') }] })), ['no_object_matching_hash'], 'wrong hash')
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'a.cer', content: bytes('A2') }] })), ['object_already_present'])
  t.same(code(await alice.send({ type: 'delta', pdus: [{ type: 'withdraw', uri: jail + 'nope.cer', hash: sha('A') }] })), ['no_object_present'])
  t.same(code(await alice.send({ type: 'delta', pdus: [
    { type: 'publish', uri: jail + 'good.cer', content: bytes('G') },
    { type: 'withdraw', uri: jail + 'a.cer', hash: sha('nope') },
  ] })), ['no_object_matching_hash'], 'one bad PDU: the whole message fails')

  // A message signed by someone else, to alice's endpoint.
  const mallory = new TestPublisher('alice')
  mallory.response = alice.response
  t.same(code(await mallory.send({ type: 'list' })), ['bad_cms_signature'], 'bad signature')
  // Unknown publisher.
  const eve = new TestPublisher('eve')
  eve.response = { ...alice.response!, serviceUri: `${d.url}rfc8181/eve/` }
  t.same(code(await eve.send({ type: 'list' })), ['permission_failure'], 'unknown publisher')
  // Replay: a message signed 20 minutes ago.
  const old = new Date(Date.now() - 20 * 60 * 1000)
  const stale = new MessageSigner({ idKey: alice.idKey, idCert: alice.idCert })
  stale.useEeKey(testKey(), old)
  const oldCms = await stale.sign(encodePublicationQuery({ type: 'delta', pdus: [{ type: 'publish', uri: jail + 'replay.cer', content: bytes('R') }] }), old)
  t.same(code(alice.reply(await alice.post(oldCms))), ['bad_cms_signature'], 'replayed old message')
  // XML with a DOCTYPE (billion laughs) inside a valid signature.
  const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]><msg xmlns="http://www.hactrn.net/uris/rpki/publication-spec/" version="4" type="query"><list/>&lol2;</msg>`
  t.same(code(alice.reply(await alice.post(await alice.signer.sign(lol, new Date())))), ['xml_error'], 'DTD/entities refused')
  // Transport-level refusals: wrong content type, oversized body.
  const wrongType = await alice.post(await alice.signer.sign(encodePublicationQuery({ type: 'list' }), new Date()), 'application/xml')
  t.equal(wrongType.status, 415)
  t.equal(JSON.parse(wrongType.body).label, 'api-unsupported-media-type')
  // The refusal reaches the client every time (svcd reads on and drops the rest rather than resetting the connection).
  for (let i = 0; i < 3; i++) t.equal((await alice.post(new Uint8Array(33 * 1024 * 1024 + 1))).status, 413, `oversized body ${i + 1}: 413`)

  const after = await readRrdp(d.url)
  t.equal(after.notification.serial, before.notification.serial, 'no new RRDP serial')
  t.same([...after.objects], [...before.objects], 'content unchanged')
  const list = await alice.send({ type: 'list' })
  t.same(list.type === 'list_reply' && list.elements.map((e) => e.uri), [jail + 'a.cer'])
})

t.test('kill -9 in a publish loop: serials never go back, acknowledged objects survive, RRDP is consistent', { skip: noRsync }, async (t) => {
  const first = await repoDaemon(t)
  const alice = new TestPublisher('alice')
  await addPublisher(t, first, alice)
  const jail = alice.response!.siaBase
  const acked: string[] = []
  let serialBefore = 0
  const loop = (async () => {
    for (let i = 0; i < 10_000; i++) {
      try {
        const r = await alice.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}o${i}.roa`, content: bytes(`object ${i}`) }] })
        if (r.type === 'success') acked.push(`${jail}o${i}.roa`)
      } catch {
        return
      }
    }
  })()
  await waitFor('15 acknowledged publications', async () => (acked.length >= 15 ? true : undefined))
  serialBefore = Number((await readRrdp(first.url)).notification.serial)
  await first.stop('SIGKILL')
  await loop
  const again = await repoDaemon(t, '', first.dataDir, { port: first.port, rsync: first.rsyncPort })
  alice.response = { ...alice.response!, serviceUri: `${again.url}rfc8181/alice/` }
  const v = await waitRrdp(again.url, (v) => acked.every((u) => v.objects.has(u)))
  t.ok(Number(v.notification.serial) >= serialBefore, 'the serial did not go back')
  for (const u of acked) t.ok(v.objects.has(u), `acknowledged ${u.slice(jail.length)} is present`)
  await readDeltas(v.notification)
  const list = await alice.send({ type: 'list' })
  const held = list.type === 'list_reply' ? list.elements : []
  t.ok(held.length >= acked.length, 'the publisher sees everything it was told was published')
  const settled = await waitRrdp(again.url, (v) => v.objects.size === held.length && held.every((e) => v.objects.get(e.uri) === e.hash))
  t.equal(settled.objects.size, held.length, 'RRDP holds exactly what the database holds: nothing half-applied')
})

