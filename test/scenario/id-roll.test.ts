/**
 * RFC 8183 identity key rolls (issue 25, beyond Krill) in one svcd: ca1 under testbed, publishing in the embedded
 * repository. `svcc id roll` gives testbed (the parent, in this svcd) and the embedded publication server the new id
 * certificate and switches ca1 at once; no RFC 6492 or RFC 8181 exchange fails before, during or after it, the ROAs
 * stay published and a change made after the roll is published, and the old identity key is destroyed.
 *
 *   ta ── testbed ── ca1 (ROAs)
 *
 * A second roll moves the identity key into a SoftHSM2 token (`--signer hsm`) and the exchanges go on.
 * And the refusals: an unknown signer (signer-unknown, nothing changed), a finish without a pending roll.
 * And the publication server's side for a publisher elsewhere: its new id certificate is accepted through
 * POST /api/v1/pubd/publishers/{publisher}/id_cert, refused when it is no certificate.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'
import { softHsm } from '../helpers/softhsm.js'

t.test('ca1 rolls its identity key under testbed with the embedded repository: no failed exchange', async (t) => {
  // Software keys by default, and a SoftHSM2 token to roll the identity into.
  const hsm = softHsm(t)
  const d = await repoDaemon(t, { env: hsm.env, toml: `default_signer = "OpenSSL"\n[[signers]]\ntype = "OpenSSL"\nname = "OpenSSL"\n${hsm.signerToml('hsm')}` })
  const api = async (path: string, method = 'GET', body?: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
  }
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d1.txt', 'A: 10.0.0.0/24 => 65000\n')])
  const ca1Roas = (u: string[]) => u.filter((x) => x.startsWith(`${d.rsyncBase}ca1/`) && x.endsWith('.roa'))
  await waitPublished(d, (u) => ca1Roas(u).length === 1)

  const keysDir = join(d.dataDir, 'keys')
  const keysBefore = new Set(readdirSync(keysDir))
  const before = (await api('cas/ca1/id')).json
  t.notOk(before.pending, 'no roll pending')
  t.equal(before.current.hash, (await api('cas/ca1')).json.id_cert.hash, 'the identity is the one `show` gives')

  // Refusals change nothing.
  const unknown = await api('cas/ca1/id/roll', 'POST', { signer: 'nope' })
  t.equal(unknown.status, 400)
  t.equal(unknown.json.label, 'signer-unknown', 'an unknown signer is refused')
  const notStarted = await api('cas/ca1/id/roll/finish', 'POST')
  t.equal(notStarted.status, 409)
  t.equal(notStarted.json.label, 'ca-id-roll-none', 'nothing to finish')
  t.same((await api('cas/ca1/id')).json, before, 'nothing changed')
  t.same(new Set(readdirSync(keysDir)), keysBefore, 'no key made')

  // The roll: parent and repository are in this svcd, so it finishes at once.
  const rolled = JSON.parse(await d.cli(['id', 'roll', '-c', 'ca1', '-f', 'json']))
  const rolledAt = Math.floor(Date.now() / 1000)
  t.notOk(rolled.pending, 'finished at once: nobody elsewhere to wait for')
  t.not(rolled.current.hash, before.current.hash, 'ca1 has a new identity')
  t.equal((await api('cas/ca1')).json.id_cert.hash, rolled.current.hash)
  const childInfo = (await api('cas/testbed/children/ca1')).json
  t.equal(childInfo.id_cert.hash, rolled.current.hash, 'testbed knows ca1 by its new identity')
  t.equal((await api('pubd/publishers/ca1')).json.id_cert.hash, rolled.current.hash, 'the embedded repository knows ca1 by its new identity')
  t.match(await d.cli(['parents', 'request', '-c', 'ca1']), new RegExp(childInfo.id_cert.base64.slice(0, 40).replace(/[+/]/g, '.')), 'the child request carries the new certificate')
  const keysAfter = new Set(readdirSync(keysDir))
  t.equal([...keysBefore].filter((k) => !keysAfter.has(k)).length, 1, 'the old identity key is destroyed')
  t.equal([...keysAfter].filter((k) => !keysBefore.has(k)).length, 1, 'the new identity key is kept')

  // The next parent exchange and publication, signed with the new identity: both succeed.
  await waitFor('a parent exchange after the roll', async () => {
    await d.cli(['bulk', 'refresh'])
    const st = (await api('cas/ca1/parents')).json.testbed
    return st?.last_exchange && st.last_exchange.timestamp > rolledAt ? st : undefined
  }, 120_000, 500).then((st) => {
    t.equal(st.last_exchange.result, 'Success', 'the parent exchange after the roll succeeded')
    t.equal(st.last_success, st.last_exchange.timestamp)
  })
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d2.txt', 'A: 10.1.0.0/24 => 65001\n')])
  await waitPublished(d, (u) => ca1Roas(u).length === 2)
  const repo = (await api('cas/ca1/repo/status')).json
  t.equal(repo.last_exchange?.result, 'Success', 'the publication after the roll succeeded')
  t.ok(repo.last_exchange.timestamp >= rolledAt)
  t.equal(await d.cli(['issues', '-c', 'ca1']), 'no issues\n', 'ca1 has no issue')
  t.notMatch(d.output(), /RFC 6492 request refused|RFC 8181 message refused|ca-child-unauthorized/, 'no exchange was refused')
  const history = await d.cli(['history', '-c', 'ca1'])
  t.match(history, /cmd-ca-id-roll-init|identity key roll/i, 'the roll is in the history')

  // A second roll, into the HSM: the software identity key is destroyed, the exchanges go on with the token's key.
  const again = JSON.parse(await d.cli(['id', 'roll', '-c', 'ca1', '--signer', 'hsm', '-f', 'json']))
  const againAt = Math.floor(Date.now() / 1000)
  t.not(again.current.hash, rolled.current.hash)
  t.notOk(again.pending)
  t.equal(again.current.signer, 'hsm', 'the new identity key is in the HSM')
  t.same(new Set(readdirSync(keysDir)), new Set([...keysAfter].filter((k) => keysBefore.has(k))), 'the software identity key is destroyed, no software key made')
  const st = await waitFor('a parent exchange after the roll into the HSM', async () => {
    await d.cli(['bulk', 'refresh'])
    const s = (await api('cas/ca1/parents')).json.testbed
    return s?.last_exchange && s.last_exchange.timestamp > againAt ? s : undefined
  }, 120_000, 500)
  t.equal(st.last_exchange.result, 'Success', 'signed in the HSM, accepted by the parent')
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('d3.txt', 'A: 10.2.0.0/24 => 65002\n')])
  await waitPublished(d, (u) => ca1Roas(u).length === 3)
  t.notMatch(d.output(), /RFC 6492 request refused|RFC 8181 message refused|ca-child-unauthorized/, 'still no exchange refused')
})

t.test("the publication server takes a publisher's new id certificate; refuses one that is no certificate", async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  await d.cli(['add', '-c', 'ca1'])
  const api = async (path: string, method = 'GET', body?: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
  }
  const before = (await api('pubd/publishers/ca1')).json.id_cert.hash
  const bad = await api('pubd/publishers/ca1/id_cert', 'POST', { id_cert: Buffer.from('not a certificate').toString('base64') })
  t.equal(bad.status, 400, 'no certificate: 400')
  t.equal((await api('pubd/publishers/ca1')).json.id_cert.hash, before, 'nothing changed')
  const other = (await api('cas/ca1/id')).json.current.hash
  t.equal(other, before)
  const missing = await api('pubd/publishers/nobody/id_cert', 'POST', { id_cert: (await api('pubd/publishers/ca1')).json.id_cert.base64 })
  t.equal(missing.status, 404, 'an unknown publisher: 404')

  // Hostile bodies on the new doors: labelled refusals, nothing made or changed.
  const raw = async (path: string, body: string) => {
    const r = await httpsRequest(`${d.url}api/v1/${path}`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body })
    return { status: r.status, label: r.body ? (JSON.parse(r.body) as { label?: string }).label : undefined }
  }
  const idBefore = (await api('cas/ca1/id')).json
  const huge = JSON.stringify({ signer: 'x'.repeat(300 * 1024) })
  for (const [path, body, status, label] of [
    ['cas/ca1/id/roll', '{"signer":', 400, 'api-json'],
    ['cas/ca1/id/roll', '{"signer":5}', 400, 'api-invalid-body'],
    ['cas/ca1/id/roll', '{"signer":"OpenSSL","extra":1}', 400, 'api-invalid-body'],
    ['cas/ca1/id/roll', huge, 413, 'api-post-body-exceeds-limit'],
    ['cas/ca1/id/roll/finish', '{"now":true}', 400, 'api-unexpected-body'],
    ['cas/nobody/id/roll', '{}', 404, 'ca-unknown'],
    ['pubd/publishers/ca1/id_cert', '{}', 400, 'api-invalid-body'],
    ['pubd/publishers/ca1/id_cert', JSON.stringify({ id_cert: 'A'.repeat(300 * 1024) }), 413, 'api-post-body-exceeds-limit'],
  ] as const) {
    const r = await raw(path, body)
    t.same(r, { status, label }, `POST ${path} ${body.slice(0, 40)}: ${status} ${label}`)
  }
  t.same((await api('cas/ca1/id')).json, idBefore, 'no roll started by any of them')
  t.equal((await api('pubd/publishers/ca1')).json.id_cert.hash, before, 'the publisher identity unchanged')

  // A publisher elsewhere (real RFC 8181 over HTTPS) rolls its identity: the previous one until it signs with the new.
  const before8181 = new TestPublisher('remote')
  const after8181 = new TestPublisher('remote')
  const response = await d.cli(['publishers', 'add', '--request', d.file('remote.xml', before8181.requestXml()), '-f', 'xml'])
  before8181.useResponse(response)
  after8181.useResponse(response)
  t.same(await before8181.send({ type: 'list' }), { type: 'list_reply', elements: [] }, 'the first identity publishes')
  await d.cli(['publishers', 'id-cert', '-p', 'remote', '-r', d.file('remote-new.xml', after8181.requestXml())])
  t.same(await before8181.send({ type: 'list' }), { type: 'list_reply', elements: [] }, 'the previous identity is still accepted')
  t.same(await after8181.send({ type: 'list' }), { type: 'list_reply', elements: [] }, 'the new identity is accepted')
  t.match(await before8181.send({ type: 'list' }), { type: 'error_reply' }, 'after a message signed with the new one, the previous identity is refused')
  t.same(await after8181.send({ type: 'list' }), { type: 'list_reply', elements: [] }, 'the new identity still is accepted')
})
