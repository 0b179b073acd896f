/**
 * Two svcd instances on one PostgreSQL database (design.md §7; issue 22 defects 3 and 4): RFC 8181 and RFC 6492 are
 * serialised per sender across instances, with the replay state read from the database under the sender's lock.
 * - defect 3: a message accepted by A and superseded (a later withdraw, a later revoke) is refused when replayed
 *   through B, even when B has seen the sender before (it used to trust what it remembered); one message sent
 *   through A and B at once is applied once and refused once as a replay (the sender's lock among the instances);
 * - defect 4: the same new URI published through A and B at once ("must not exist") is acknowledged once and
 *   refused once (object_already_present), and what is listed and served is the acknowledged object, round after round.
 *
 *   svcd A ─┐                         publisher bob ──RFC 8181──► A and B
 *           ├── PostgreSQL (own)      child kid ──RFC 6492──► testbed on A and B
 *   svcd B ─┘
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { buildCsr } from '../../src/objects/csr.js'
import { encodeProvisioning, decodeProvisioning, type ProvisioningPayload } from '../../src/protocol/provisioning.js'
import { encodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../src/protocol/publication.js'
import { decodeNotification } from '../../src/protocol/rrdp.js'
import { unwrapMessage } from '../../src/protocol/signed-message.js'
import { keyIdentifier } from '../../src/crypto/key-id.js'
import { toBase64Url } from '../../src/util/base64.js'
import { freePort, httpsGet, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { TestChild } from '../helpers/child.js'
import { testKey } from '../helpers/keys.js'
import { startPostgres } from '../helpers/postgres.js'
import { TestPublisher } from '../helpers/publisher.js'
import { sha } from '../helpers/repo.js'
import { waitFor } from '../helpers/wait.js'

const ROUNDS = 50
const pg = await startPostgres(t)
const uri = pg.createDatabase('svc_races')
const kek = join(tempDir(t), 'kek')
writeFileSync(kek, '5a'.repeat(32) + '\n', { mode: 0o600 })

const ports = await Promise.all([freePort(), freePort()])
const shared = [
  `storage_uri = "${uri}"`, `key_encryption_key_file = "${kek}"`, 'cluster_lease_seconds = 6', 'cluster_poll_ms = 200',
  `service_uri = "https://localhost:${ports[0]}/"`,
  '[repository]', 'enabled = true', `rrdp_base_uri = "https://localhost:${ports[0]}/rrdp/"`, `rsync_base_uri = "rsync://localhost:${await freePort()}/repo/"`, 'rsync_daemon = "off"',
  '[testbed]', 'enabled = true',
].join('\n')
const [A, B] = (await Promise.all(ports.map((port) => startDaemon(t, { port, toml: shared, logLevel: 'info', token: 'races-test-token' })))) as [Daemon, Daemon]

async function cli(d: Daemon, args: string[]): Promise<string> {
  const r = await svcc(args, { env: d.env })
  if (r.code !== 0) throw new Error(`svcc ${args.join(' ')} at ${d.url} failed (${r.code}): ${r.stderr}`)
  return r.stdout
}
const file = (name: string, content: string) => {
  const f = join(tempDir(t), name)
  writeFileSync(f, content)
  return f
}

// bob, a publisher registered through A; its messages go to A or B directly (no load balancer needed).
const bob = new TestPublisher('bob')
bob.useResponse(await cli(A, ['publishers', 'add', '--request', file('bob.xml', bob.requestXml())]))
const jail = bob.response!.siaBase
const signQuery = (q: PublicationQuery, at = new Date()) => bob.signer.sign(encodePublicationQuery(q), at)
const to = async (d: Daemon, cms: Uint8Array): Promise<PublicationReply> => bob.reply(await bob.post(cms, 'application/rpki-publication', `${d.url}rfc8181/bob/`))
const code = (r: PublicationReply) => (r.type === 'error_reply' ? r.errors.map((e) => e.code).join() : r.type)
const listed = async (d: Daemon) => {
  const r = await to(d, await signQuery({ type: 'list' }))
  if (r.type !== 'list_reply') throw new Error(`list: ${JSON.stringify(r)}`)
  return new Map(r.elements.map((e) => [e.uri, e.hash.toLowerCase()]))
}
const bytes = (s: string) => new TextEncoder().encode(s)

t.test('RFC 8181: a message accepted by A and superseded is refused when replayed through B (defect 3)', async (t) => {
  const x = jail + 'replayed.cer'
  // B has seen bob before (a list): it used to trust that memory over the database.
  t.equal(code(await to(B, await signQuery({ type: 'list' }))), 'list_reply', 'bob lists through B')
  const publishX = await signQuery({ type: 'delta', pdus: [{ type: 'publish', uri: x, content: bytes('X') }] })
  const withdrawX = await signQuery({ type: 'delta', pdus: [{ type: 'withdraw', uri: x, hash: sha(Buffer.from('X')) }] })
  t.equal(code(await to(A, publishX)), 'success', 'publish x through A')
  t.equal(code(await to(A, withdrawX)), 'success', 'withdraw x through A')
  const replay = await to(B, publishX)
  t.equal(code(replay), 'bad_cms_signature', 'the captured publish x, replayed through B: refused')
  t.match(replay.type === 'error_reply' && replay.errors[0]!.text, /RFC 6492 §3\.1\.2: .*replay/)
  t.notOk((await listed(B)).has(x), 'x did not come back')
  t.equal(code(await to(A, publishX)), 'bad_cms_signature', 'and through A')
  t.equal(code(await to(B, withdrawX)), 'bad_cms_signature', 'the withdraw replayed through B: refused')

  // One message sent through A and B at once: the replay check of one instance sees what the other saved.
  const twice: string[] = []
  for (let i = 0; i < 10; i++) {
    const m = await signQuery({ type: 'delta', pdus: [{ type: 'publish', uri: `${jail}twice-${i}.cer`, content: bytes(`twice ${i}`) }] })
    const codes = (await Promise.all([to(A, m), to(B, m)])).map(code).sort()
    if (codes.join() !== 'bad_cms_signature,success') twice.push(`round ${i}: ${codes.join(' / ')}`)
  }
  t.same(twice, [], 'one message through A and B at once, 10 rounds: applied once, refused once as a replay')
})

t.test('RFC 6492: an issue accepted by A is refused when replayed through B after a revoke (defect 3)', async (t) => {
  await waitFor('testbed to be certified', async () => JSON.parse(await cli(A, ['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active, 60_000)
  const kid = new TestChild('kid')
  kid.useResponse(await cli(A, ['children', 'add', '-c', 'testbed', '--child', 'kid', '--request', file('kid.xml', kid.requestXml()), '-4', '10.0.0.0/16', '-a', 'AS65000']))
  const r = kid.response!
  const sign = (payload: ProvisioningPayload) => kid.signer.sign(encodeProvisioning({ sender: r.childHandle, recipient: r.parentHandle, payload }), new Date())
  const updown = async (d: Daemon, cms: Uint8Array): Promise<ProvisioningPayload> => {
    const res = await httpsRequest(`${d.url}rfc6492/testbed`, { method: 'POST', headers: { 'Content-Type': 'application/rpki-updown' }, body: Buffer.from(cms) })
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body}`)
    return decodeProvisioning(unwrapMessage(new Uint8Array(res.raw), { idCert: r.idCert, now: new Date() }).xml).payload
  }
  const list = await updown(B, await sign({ type: 'list' }))
  t.equal(list.type, 'list_response', 'kid lists through B (B has seen kid before)')
  const className = list.type === 'list_response' ? list.classes[0]!.className : ''
  const key = testKey()
  const issue = await sign({ type: 'issue', className, csr: buildCsr(key, { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/kid.mft' }) })
  const revoke = await sign({ type: 'revoke', className, ski: toBase64Url(keyIdentifier(key.spki)) })
  t.equal((await updown(A, issue)).type, 'issue_response', 'issue through A')
  t.equal((await updown(A, revoke)).type, 'revoke_response', 'revoke through A')
  const replayed = await updown(B, issue)
  t.match(replayed, { type: 'error_response', description: /RFC 6492 §3\.1\.2: .*replay/ }, 'the captured issue, replayed through B: refused')
  t.match(await updown(A, issue), { type: 'error_response' }, 'and through A')
  const after = await updown(B, await sign({ type: 'list' }))
  t.same(after.type === 'list_response' && after.classes[0]!.certificates.length, 0, 'the revoked key was not certified again')

  // One issue request sent through A and B at once: answered once, refused once as a replay (the child's lock).
  const twice: string[] = []
  const next = testKey() // one key, certified again in each round (a child holds at most two keys per class), each time
  // with another limit (the same request again in the same second would be a replay)
  for (let i = 0; i < 5; i++) {
    const m = await sign({ type: 'issue', className, csr: buildCsr(next, { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/kid.mft' }), limits: { ipv4: `10.0.${i}.0/24` } })
    const replies = await Promise.all([updown(A, m), updown(B, m)])
    const types = replies.map((p) => p.type).sort()
    if (types.join() !== 'error_response,issue_response') twice.push(`round ${i}: ${JSON.stringify(replies.map((p) => (p.type === 'error_response' ? p.description : p.type)))}`)
  }
  t.same(twice, [], 'one issue request through A and B at once, 5 rounds: answered once, refused once as a replay')
})

t.test(`RFC 8181: the same new URI published through A and B at once, ${ROUNDS} rounds: one success, one refusal, nothing lost (defect 4)`, async (t) => {
  const acked = new Map<string, string>()
  const bad: string[] = []
  /** Every acknowledged write, also of rounds where both were acknowledged (one of them is then lost). */
  const successes: [string, string][] = []
  for (let i = 0; i < ROUNDS; i++) {
    const u = `${jail}race-${i}.cer`
    const at = new Date()
    const [ma, mb] = await Promise.all(['A', 'B'].map((who) => signQuery({ type: 'delta', pdus: [{ type: 'publish', uri: u, content: bytes(`${who} ${i}`) }] }, at)))
    const [ra, rb] = await Promise.all([to(A, ma!), to(B, mb!)])
    const codes = [code(ra), code(rb)]
    codes.forEach((c, k) => c === 'success' && successes.push([u, sha(Buffer.from(`${k === 0 ? 'A' : 'B'} ${i}`))]))
    const won = codes.indexOf('success')
    if (codes.filter((c) => c === 'success').length !== 1 || !codes.includes('object_already_present')) {
      bad.push(`round ${i}: ${codes.join(' / ')}`)
      continue
    }
    acked.set(u, sha(Buffer.from(`${won === 0 ? 'A' : 'B'} ${i}`)))
  }
  t.same(bad, [], `every round: exactly one success and one object_already_present (${bad.length} of ${ROUNDS} rounds failed)`)
  const held = await listed(A)
  const lost = successes.filter(([u, h]) => held.get(u) !== h).map(([u]) => u)
  t.same(lost, [], `no acknowledged write lost: the list holds every acknowledged object (${lost.length} of ${successes.length} acknowledged writes lost)`)
  // What A serves over RRDP (the leader's serial, copied to every instance) holds the acknowledged objects too.
  const served = await waitFor('the acknowledged objects in the RRDP snapshot A serves', async () => {
    const n = await httpsGet(A.url + 'rrdp/notification.xml')
    if (n.status !== 200) return undefined
    const note = decodeNotification(n.body)
    const snap = await httpsGet(A.url + note.snapshot.uri.replace(/^https:\/\/[^/]+\//, ''))
    const text = snap.body
    return [...acked].every(([u]) => text.includes(`uri="${u}"`)) ? { text } : undefined
  }, 60_000)
  const wrong = [...acked].filter(([u, h]) => {
    const m = new RegExp(`<publish uri="${u.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"[^>]*>([^<]*)</publish>`).exec(served.text)
    return !m || sha(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')) !== h
  }).map(([u]) => u)
  t.same(wrong, [], 'the served object of every round is the acknowledged one')
})
