/**
 * The standing hostile suite, the testbed's public doors (issue 22, defects 1, 6 and 7): an anonymous client with
 * `[testbed] enabled` registers publishers and children without a token, publishes over RFC 8181 until its quota
 * refuses, and tries to remove what the operator added. Each refusal is labelled and changes nothing; what an
 * anonymous client can make svcd store is bounded by the self-service budget.
 *
 *   ta ── testbed ── ca1 (added by the operator: svcc children add)
 *                ├── opkid (a remote child the operator added with the token)
 *                └── anonymous children (POST /testbed/children), at most 3
 *   publication server: ta, testbed, ca1 (embedded), oppub (the operator's), anonymous publishers (at most 3)
 */
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { repositoryResponseFromJson, type RepoStats, type RepositoryResponseJson } from '../../src/api/pubd.js'
import type { PublicationReply } from '../../src/protocol/publication.js'
import { toBase64 } from '../../src/util/base64.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { httpsRequest } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { readRrdp } from '../helpers/repo.js'

const noRsync = spawnSync('rsync', ['--version']).error ? 'rsync is not installed' : false

// Small budgets, so that the test fills them in seconds: per self-service publisher 20 objects, 200,000 bytes, 64 KiB
// an object; all self-service publishers together 300,000 bytes.
const PER_PUBLISHER = 200_000
const TOGETHER = 300_000
const OBJECT = 60_000
const QUOTAS = `self_service_quota_objects = 20\nself_service_quota_bytes = ${PER_PUBLISHER}\nself_service_quota_object_bytes = 65536\nself_service_quota_total_bytes = ${TOGETHER}\n`
const TESTBED = 'self_service_per_minute = 10000\nself_service_total_per_minute = 100000\nself_service_children_max = 3\nself_service_publishers_max = 3\n'

type Answer = Awaited<ReturnType<typeof httpsRequest>>

/** A request as an anonymous client (no token), or with the operator's token. */
async function call(d: RepoDaemon, method: string, path: string, body?: unknown, token = false): Promise<Answer> {
  const headers: Record<string, string> = body !== undefined ? { 'Content-Type': 'application/json' } : {}
  if (token) headers.Authorization = `Bearer ${d.token}`
  return httpsRequest(d.url + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
}

function refused(t: Test, r: Answer, status: number, label: string, what: string): void {
  t.equal(r.status, status, `${what}: ${status} (${r.body.slice(0, 200)})`)
  t.equal(r.status >= 400 && (JSON.parse(r.body) as { label: string }).label, label, `${what}: ${label}`)
}

/** Register `p` anonymously through the self-service; its repository response is kept for RFC 8181. */
async function anonPublisher(t: Test, d: RepoDaemon, p: TestPublisher): Promise<void> {
  const r = await call(d, 'POST', 'testbed/publishers', { publisher_handle: p.handle, id_cert: toBase64(p.idCert), tag: null })
  t.equal(r.status, 200, `anonymous publisher ${p.handle} registered (${r.body.slice(0, 200)})`)
  p.response = repositoryResponseFromJson(JSON.parse(r.body) as RepositoryResponseJson)
}

/** The data dir's size in bytes as the disk holds it (du: hard links of the rsync trees counted once). */
function dataDirBytes(d: RepoDaemon): number {
  return Number(spawnSync('du', ['-sb', d.dataDir]).stdout.toString().split('\t')[0])
}

const blob = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * 31 + seed) & 255)
const isQuotaRefusal = (r: PublicationReply) => r.type === 'error_reply' && r.errors.every((e) => e.code === 'other_error' && /quota/.test(e.text ?? ''))

async function stats(d: RepoDaemon): Promise<RepoStats> {
  return JSON.parse(await d.cli(['publishers', 'stats', '--format', 'json'])) as RepoStats
}

t.test('an anonymous publisher fills its quota and no more: refusals change nothing; the data dir stays bounded', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, { repositoryExtra: QUOTAS, extra: TESTBED, logLevel: 'info' })
  const oppub = new TestPublisher('oppub')
  oppub.useResponse(await d.cli(['publishers', 'add', '--request', d.file('oppub.xml', oppub.requestXml())]))
  const before = dataDirBytes(d)

  const anon = [new TestPublisher('anon1'), new TestPublisher('anon2'), new TestPublisher('anon3')]
  for (const p of anon) await anonPublisher(t, d, p)
  refused(t, await call(d, 'POST', 'testbed/publishers', { publisher_handle: 'anon4', id_cert: toBase64(new TestPublisher('anon4').idCert), tag: null }), 403, 'testbed-registrations-full', 'a fourth self-service publisher')

  // Each publishes 60,000-byte objects until refused.
  const accepted: string[] = []
  for (const p of anon) {
    for (let i = 0; i < 10; i++) {
      const uri = `${p.response!.siaBase}o${i}.cer`
      const r = await p.send({ type: 'delta', pdus: [{ type: 'publish', uri, content: blob(OBJECT, i) }] })
      if (r.type === 'success') {
        accepted.push(uri)
        continue
      }
      t.ok(isQuotaRefusal(r), `${p.handle}'s object ${i} refused with report_error other_error naming the quota: ${JSON.stringify(r).slice(0, 300)}`)
      break
    }
  }
  const held = (h: string) => accepted.filter((u) => u.includes(`/${h}/`)).length
  t.same(anon.map((p) => held(p.handle)), [3, 2, 0], 'anon1 stops at its own 200,000 bytes (3 objects), anon2 and anon3 at the 300,000 bytes of all self-service publishers')
  const big = await anon[2]!.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${anon[2]!.response!.siaBase}big.cer`, content: blob(65_537, 1) }] })
  t.ok(isQuotaRefusal(big) && big.type === 'error_reply' && big.errors[0]!.failedPdu !== undefined, 'an object over 64 KiB: refused, the PDU named')

  // A refused message changes nothing: the publisher's list, and what RRDP serves once a later change is out.
  const listBefore = await anon[0]!.send({ type: 'list' })
  const over = await anon[0]!.send({ type: 'delta', pdus: [{ type: 'withdraw', uri: accepted[0]!, hash: listBefore.type === 'list_reply' ? listBefore.elements.find((e) => e.uri === accepted[0])!.hash : '' }, { type: 'publish', uri: `${anon[0]!.response!.siaBase}x.cer`, content: blob(OBJECT, 7) }, { type: 'publish', uri: `${anon[0]!.response!.siaBase}y.cer`, content: blob(OBJECT, 8) }] })
  t.ok(isQuotaRefusal(over), 'a withdrawal with two publishes that grow the total: refused as a whole')
  t.same(await anon[0]!.send({ type: 'list' }), listBefore, "the publisher's objects are as before")
  const marker = `${oppub.response!.siaBase}marker.cer`
  t.equal((await oppub.send({ type: 'delta', pdus: [{ type: 'publish', uri: marker, content: blob(100, 3) }] })).type, 'success', "the operator's publisher is not held to the self-service quota")
  const v = await waitFor('RRDP with the marker', async () => {
    const r = await readRrdp(d.url)
    return r.objects.has(marker) && r
  })
  t.ok(accepted.every((u) => v.objects.has(u)), 'RRDP serves every accepted object')
  t.notOk([...v.objects.keys()].some((u) => /\/(x|y|big)\.cer$/.test(u) || /\/anon3\//.test(u)), 'and none of the refused ones')
  t.ok(v.objects.has(accepted[0]!), 'the withdrawal of the refused message did not happen')

  // A message larger than the publisher's quota could accept is not even read (it was 32 MiB for everyone).
  const huge = await anon[1]!.post(new Uint8Array(1024 * 1024))
  t.equal(huge.status, 413, `a 1 MiB message from a self-service publisher: 413 (${huge.body.slice(0, 120)})`)
  const opHuge = await oppub.post(new Uint8Array(1024 * 1024))
  t.equal(opHuge.status, 200, "the same from the operator's publisher is read (and refused as no CMS, in a signed reply)")

  // Use against quota, in the stats (JSON and text) and in publishers show.
  const s = await stats(d)
  t.match(s.publishers.anon1, { objects: 3, size: 3 * OBJECT, self_service: true, quota: { objects: 20, bytes: PER_PUBLISHER, object_bytes: 65536 } })
  t.match(s.publishers.oppub, { self_service: false, quota: { objects: 10_000, bytes: 64 * 1024 * 1024 } })
  t.match(s.self_service_quota, { bytes: TOGETHER, used_objects: 5, used_bytes: 5 * OBJECT })
  t.ok(s.quota.used_bytes >= 5 * OBJECT, 'the server total counts everyone')
  const text = await d.cli(['publishers', 'stats'])
  t.match(text, /^anon1,3,180000,.*,20,200000,65536,yes$/m, 'the text stats: objects and bytes against the quota')
  t.match(text, /self-service publishers together: 5 of 2000 objects, 300000 of 300000 bytes/)
  t.match(await d.cli(['publishers', 'show', '-p', 'anon1']), /objects: 3 of at most 20\nsize: 180000 of at most 200000 bytes/)

  // Withdrawing is always allowed, and frees the budget.
  const l2 = await anon[1]!.send({ type: 'list' })
  const w = await anon[1]!.send({ type: 'delta', pdus: (l2.type === 'list_reply' ? l2.elements : []).map((e) => ({ type: 'withdraw' as const, uri: e.uri, hash: e.hash })) })
  t.equal(w.type, 'success', 'anon2 withdraws everything')
  t.equal((await anon[2]!.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${anon[2]!.response!.siaBase}o0.cer`, content: blob(OBJECT, 0) }] })).type, 'success', 'then anon3 may publish')

  const grown = dataDirBytes(d) - before
  t.comment(`data dir: ${before} bytes before, grew by ${grown} bytes for a self-service budget of ${TOGETHER} bytes`)
  t.ok(grown < 12 * 1024 * 1024, `the data dir grew by ${grown} bytes: bounded (the database, RRDP snapshot and deltas, rsync trees hold the budget a few times)`)
})

t.test('the self-service removes only what it registered; reserved and squatted handles, both ways; a registration cap', { skip: noRsync }, async (t) => {
  const d = await repoDaemon(t, { repositoryExtra: QUOTAS, extra: TESTBED, logLevel: 'info' })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/16' })
  const oppub = new TestPublisher('oppub')
  await d.cli(['publishers', 'add', '--request', d.file('oppub.xml', oppub.requestXml())])
  const opkid = new TestChild('opkid')
  t.equal((await call(d, 'POST', 'api/v1/cas/testbed/children', { handle: 'opkid', resources: { ipv4: '10.1.0.0/16' }, id_cert: toBase64(opkid.idCert) }, true)).status, 200, 'the operator adds opkid with the token')

  // What the operator added, and local CAs, stay.
  refused(t, await call(d, 'DELETE', 'testbed/children/opkid'), 403, 'testbed-not-self-service', "a child the operator added")
  refused(t, await call(d, 'DELETE', 'testbed/children/ca1'), 403, 'testbed-not-self-service', 'a local CA')
  refused(t, await call(d, 'DELETE', 'testbed/publishers/oppub'), 403, 'testbed-not-self-service', 'a publisher the operator added')
  refused(t, await call(d, 'DELETE', 'testbed/publishers/ca1'), 403, 'testbed-not-self-service', "a local CA's publisher")
  refused(t, await call(d, 'DELETE', 'testbed/children/nobody'), 404, 'ca-child-unknown', 'an unknown child')
  refused(t, await call(d, 'DELETE', 'testbed/children/__proto__'), 404, 'ca-child-unknown', 'a child named like a property of every object')

  // Reserved handles: the testbed's own CAs and every CA of this svcd.
  const kid = new TestChild('x')
  for (const h of ['ta', 'testbed', 'TA', 'ca1']) {
    refused(t, await call(d, 'POST', 'testbed/children', { handle: h, resources: { asn: 'AS65500' }, id_cert: toBase64(kid.idCert) }), 400, 'testbed-handle-reserved', `a child named ${h}`)
    refused(t, await call(d, 'POST', 'testbed/publishers', { publisher_handle: h, id_cert: toBase64(kid.idCert), tag: null }), 400, 'testbed-handle-reserved', `a publisher named ${h}`)
  }

  // A local CA registered through the self-service (Krill's testbed page) is recognised by its identity certificate.
  await d.cli(['add', '-c', 'ca2'])
  const ca2Req = await call(d, 'GET', 'api/v1/cas/ca2/id/child_request.json', undefined, true)
  t.equal((await call(d, 'POST', 'testbed/children', { handle: 'ca2-remote', resources: { asn: 'AS65501' }, id_cert: (JSON.parse(ca2Req.body) as { id_cert: string }).id_cert })).status, 200, 'ca2 registered anonymously, under another handle')
  refused(t, await call(d, 'DELETE', 'testbed/children/ca2-remote'), 403, 'testbed-not-self-service', 'a self-service child that is a local CA by identity')

  // Squatting: anonymous registrations of 'ca9' do not block the operator's `svcc add -c ca9`, which takes the handle.
  const squat = new TestPublisher('ca9')
  await anonPublisher(t, d, squat)
  t.equal((await call(d, 'POST', 'testbed/children', { handle: 'ca9', resources: { asn: 'AS65502' }, id_cert: toBase64(new TestChild('ca9').idCert) })).status, 200, 'an anonymous child ca9')
  await d.cli(['add', '-c', 'ca9'])
  t.equal((await stats(d)).publishers.ca9?.self_service, false, "the operator's CA ca9 has the publisher ca9 now, not the anonymous client")
  refused(t, await call(d, 'DELETE', 'testbed/publishers/ca9'), 403, 'testbed-not-self-service', 'which the self-service cannot remove')
  const opCa9 = new TestChild('ca9b')
  t.equal((await call(d, 'POST', 'api/v1/cas/testbed/children', { handle: 'ca9', resources: { asn: 'AS65502' }, id_cert: toBase64(opCa9.idCert) }, true)).status, 200, "the operator's child ca9 of testbed takes over the anonymous one's handle")
  refused(t, await call(d, 'DELETE', 'testbed/children/ca9'), 403, 'testbed-not-self-service', 'and stays')

  // At most 3 self-service children (ca2-remote and the taken-over ca9 were two; ca9 is the operator's now).
  const kids = ['k1', 'k2'].map((h) => new TestChild(h))
  for (const k of kids) t.equal((await call(d, 'POST', 'testbed/children', { handle: k.handle, resources: { asn: 'AS65503' }, id_cert: toBase64(k.idCert) })).status, 200, `self-service child ${k.handle}`)
  refused(t, await call(d, 'POST', 'testbed/children', { handle: 'k3', resources: { asn: 'AS65503' }, id_cert: toBase64(new TestChild('k3').idCert) }), 403, 'testbed-registrations-full', 'a fourth self-service child')
  t.equal((await call(d, 'DELETE', 'testbed/children/k1')).status, 200, 'the self-service removes its own child')
  t.equal((await call(d, 'POST', 'testbed/children', { handle: 'k3', resources: { asn: 'AS65503' }, id_cert: toBase64(new TestChild('k3').idCert) })).status, 200, 'which frees a place')

  // Restarted with service_uri https://127.0.0.1:PORT/ instead of https://localhost:PORT/: local CAs still stay.
  await d.stop()
  const again = await repoDaemon(t, { dataDir: d.dataDir, ports: { port: d.port, rsync: d.rsyncPort }, toml: `service_uri = "https://127.0.0.1:${d.port}/"\n`, repositoryExtra: QUOTAS, extra: TESTBED, logLevel: 'info' })
  refused(t, await call(again, 'DELETE', 'testbed/children/ca1'), 403, 'testbed-not-self-service', 'a local CA, after the restart under another service URI')
  refused(t, await call(again, 'DELETE', 'testbed/children/ca2-remote'), 403, 'testbed-not-self-service', 'a local CA by identity, after the restart')
  refused(t, await call(again, 'DELETE', 'testbed/children/opkid'), 403, 'testbed-not-self-service', "the operator's child, after the restart")
  const children = JSON.parse((await call(again, 'GET', 'api/v1/cas/testbed', undefined, true)).body) as { children: string[] }
  t.same([...children.children].sort(), ['ca1', 'ca2-remote', 'ca9', 'k2', 'k3', 'opkid'], "testbed's children: nothing removed that the self-service did not register")
})
