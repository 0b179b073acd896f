/**
 * svcd as an RFC 6492 parent facing hostile or broken children (issue 10, defects 7 and 8a): input that is not CMS
 * gets a labelled 4xx, a message whose content is bad gets a signed error_response with the RFC 6492 §3.6 code,
 * never a 500 or a stack trace in the log, and nothing changes; and a child holds at most two keys per resource
 * class (current and, during a key roll, new: RFC 6489 §2), so fresh keys cannot grow the parent's publication.
 *
 *   ta ── testbed ── kid (test child: 10.0.0.0/16, AS65000)
 */
import t, { type Test } from 'tap'
import { buildCsr, type CsrSia } from '../../src/objects/csr.js'
import { keyIdentifier } from '../../src/crypto/key-id.js'
import { decodeProvisioning, type ProvisioningPayload } from '../../src/protocol/provisioning.js'
import { unwrapMessage } from '../../src/protocol/signed-message.js'
import { toBase64, toBase64Url } from '../../src/util/base64.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { httpsRequest } from '../helpers/daemon.js'
import { testKey } from '../helpers/keys.js'
import { readRrdp } from '../helpers/repo.js'

const NS = 'http://www.apnic.net/specs/rescerts/up-down/'

async function setup(t: Test): Promise<{ d: RepoDaemon; kid: TestChild; cls: string }> {
  const d = await repoDaemon(t)
  await waitFor('testbed to be certified', async () => JSON.parse(await d.cli(['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active)
  const kid = new TestChild('kid')
  kid.useResponse(await d.cli(['children', 'add', '-c', 'testbed', '--child', 'kid', '--request', d.file('kid.xml', kid.requestXml()), '-4', '10.0.0.0/16', '-a', 'AS65000']))
  const list = await kid.send({ type: 'list' })
  if (list.type !== 'list_response') throw new Error(`list answered ${list.type}`)
  return { d, kid, cls: list.classes[0].className }
}

/** POST raw bytes to /rfc6492/{ca}. */
function post(d: RepoDaemon, body: Uint8Array | string, type = 'application/rpki-updown', ca = 'testbed') {
  return httpsRequest(`${d.url}rfc6492/${ca}`, { method: 'POST', headers: { 'Content-Type': type }, body: Buffer.from(body) })
}

/** Sign arbitrary XML as the child, post it, and decode a 200 answer as the parent's signed reply. */
async function sendXml(d: RepoDaemon, kid: TestChild, xml: string): Promise<{ status: number; body: string; reply?: ProvisioningPayload }> {
  const res = await post(d, await kid.signer.sign(xml, new Date()))
  if (res.status !== 200) return { status: res.status, body: res.body }
  const m = unwrapMessage(new Uint8Array(res.raw), { idCert: kid.response!.idCert, now: new Date() })
  return { status: 200, body: '', reply: decodeProvisioning(m.xml).payload }
}

const code = (p: ProvisioningPayload | undefined) => (p?.type === 'error_response' ? p.status : p?.type)
const sia = { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/x.mft' }

t.test('unparseable and bad RFC 6492 input: labelled 4xx or error_response, never a 500, nothing changes', async (t) => {
  const { d, kid } = await setup(t)
  const before = await d.cli(['show', '-c', 'testbed', '-f', 'json'])
  const kidBefore = await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json'])
  const label = (r: { status: number; body: string }) => (r.body ? JSON.parse(r.body).label : undefined)
  const logBefore = d.output().length

  for (const [what, body] of [['hello', 'hello'], ['an empty body', ''], ['a truncated CMS message', (await kid.signer.sign(`<message xmlns="${NS}" version="1" sender="kid" recipient="testbed" type="list"/>`, new Date())).slice(0, 200)]] as const) {
    const r = await post(d, body)
    t.equal(r.status, 400, `${what}: 400`)
    t.equal(label(r), 'rfc6492-cms', `${what}: labelled rfc6492-cms`)
  }
  const doctype = await sendXml(d, kid, `<?xml version="1.0"?><!DOCTYPE message [<!ENTITY x "y">]><message xmlns="${NS}" version="1" sender="kid" recipient="testbed" type="list"/>`)
  t.equal(doctype.status, 400, 'a signed message whose XML has a DOCTYPE: 400')
  t.equal(label(doctype), 'rfc6492-xml')
  const notUpdown = await sendXml(d, kid, '<hello/>')
  t.equal(label(notUpdown), 'rfc6492-xml', 'signed XML that is not an up-down message: 400 rfc6492-xml')

  const message = (type: string, inner = '', version = '1') => `<message xmlns="${NS}" version="${version}" sender="kid" recipient="testbed" type="${type}">${inner}</message>`
  t.equal(code((await sendXml(d, kid, message('list', '', '2'))).reply), 1102, 'version 2: error 1102')
  t.equal(code((await sendXml(d, kid, message('gimme'))).reply), 1103, 'an unknown message type: error 1103')
  t.equal(code((await sendXml(d, kid, message('list_response'))).reply), 1103, 'a response type sent to a parent: error 1103')
  const csr = toBase64(buildCsr(testKey(), sia))
  for (const limit of ['req_resource_set_ipv4="bogus!"', 'req_resource_set_ipv4="10.0.0.0/33"', 'req_resource_set_as="99999999999"']) {
    t.equal(code((await sendXml(d, kid, message('issue', `<request class_name="0" ${limit}>${csr}</request>`))).reply), 1203, `bad limit ${limit}: error 1203`)
  }
  t.equal(code((await sendXml(d, kid, message('revoke', '<key class_name="0" ski="!!not base64!!"/>'))).reply), 1302, 'a revoke with a bad ski: error 1302')
  t.equal(code((await sendXml(d, kid, message('revoke', '<key class_name="0" ski="AAAA"/>'))).reply), 1302, 'a revoke with a ski of the wrong length: error 1302')

  const wrongType = await post(d, await kid.signer.sign(message('list'), new Date()), 'text/plain')
  t.equal(wrongType.status, 415, 'wrong content type: 415')
  t.equal(label(wrongType), 'api-unsupported-media-type')
  const unknownCa = await post(d, await kid.signer.sign(message('list'), new Date()), 'application/rpki-updown', 'nope')
  t.equal(unknownCa.status, 404, 'an unknown CA in the URL: 404')
  t.equal(label(unknownCa), 'ca-unknown')

  const log = d.output().slice(logBefore)
  t.notMatch(log, /"status":500|sys-internal|unexpected error/, 'no 500 in the log')
  t.notMatch(log, /\bat [^\n]*\.js:\d+/, 'no stack trace in the log')
  t.equal(await d.cli(['show', '-c', 'testbed', '-f', 'json']), before, 'testbed unchanged')
  t.equal(await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json']), kidBefore, 'kid unchanged')
  t.equal(code(await kid.send({ type: 'list' })), 'list_response', 'the child is still served')
})

t.test('a child holds at most two keys per resource class; a revoke frees a slot', async (t) => {
  const { d, kid, cls } = await setup(t)
  const jail = `${d.rsyncBase}testbed/`
  const published = async () => [...(await readRrdp(d.url)).objects.keys()].filter((u) => u.startsWith(jail) && u.endsWith('.cer')).length
  const base = (await waitFor('testbed published', async () => ({ n: await published() }))).n
  const [k1, k2, k3] = [testKey(), testKey(), testKey()]
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(k1, sia) })), 'issue_response', 'first key certified')
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(k2, sia) })), 'issue_response', 'second key (a key roll) certified')
  await waitFor('two child certificates published', async () => (await published()) === base + 2)
  const refused = await kid.send({ type: 'issue', className: cls, csr: buildCsr(k3, sia) })
  t.equal(code(refused), 2001, 'a third distinct key is refused with 2001')
  t.match(refused.type === 'error_response' ? refused.description : '', /RFC 6489/, 'saying why')
  for (let i = 0; i < 3; i++) t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(testKey(), sia) })), 2001, 'and so is every further fresh key')
  const cers = async () => new Map([...(await readRrdp(d.url)).objects].filter(([u]) => u.startsWith(jail) && u.endsWith('.cer')))
  const beforeReissue = await cers()
  const reissued = await kid.send({ type: 'issue', className: cls, csr: buildCsr(k1, sia), limits: { ipv4: '10.0.1.0/24' } })
  t.equal(code(reissued), 'issue_response', 're-issue for a certified key replaces its certificate')
  const list = await kid.send({ type: 'list' })
  t.equal(list.type === 'list_response' && list.classes[0].certificates.length, 2, 'the child holds two certificates')
  // Published after the refusals: once the replaced certificate is in RRDP, anything they had issued would be too.
  const afterReissue = await waitFor('the re-issued certificate published', async () => {
    const now = await cers()
    return [...beforeReissue].some(([u, h]) => now.has(u) && now.get(u) !== h) ? now : undefined
  })
  t.equal(afterReissue.size, base + 2, "the parent's published objects did not grow")

  t.equal(code(await kid.send({ type: 'revoke', className: cls, ski: toBase64Url(keyIdentifier(k1.spki)) })), 'revoke_response', 'the old key is revoked')
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(k3, sia) })), 'issue_response', 'the freed slot takes the next key')
  await waitFor('still two child certificates published', async () => (await published()) === base + 2)
})

// Issue 22 defect 11: keys the RPKI algorithm suite does not allow (RSA-1024, RSA-4096, exponent 3: RFC 7935 §3 wants
// RSA-2048 with 65537) and SIA URIs that relying parties refuse (10 KB long, the wrong scheme, dot segments, a manifest
// outside its repository). Each gets a signed error_response 1203 (RFC 6492 §3.6, badly formed certificate request)
// naming the rule, no certificate is issued or published, nothing of the parent changes, and a good request still works.
t.test('RFC 6492 issue with a key or SIA outside the profile: error 1203, nothing issued', async (t) => {
  const { d, kid, cls } = await setup(t)
  const jail = `${d.rsyncBase}testbed/`
  const published = async () => [...(await readRrdp(d.url)).objects.keys()].filter((u) => u.startsWith(jail) && u.endsWith('.cer')).length
  const base = (await waitFor('testbed published', async () => ({ n: await published() }))).n
  const before = await d.cli(['show', '-c', 'testbed', '-f', 'json'])
  const kidBefore = await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json'])
  const logBefore = d.output().length

  const repo = 'rsync://localhost/repo/kid/0/'
  const sia: CsrSia = { caRepository: repo, rpkiManifest: `${repo}kid.mft`, rpkiNotify: 'https://localhost/rrdp/notification.xml' }
  const long = 'a'.repeat(10 * 1024)
  const key = testKey()
  const cases: [string, Uint8Array, RegExp][] = [
    ['an RSA-1024 key', buildCsr(testKey(1024), sia), /RFC 7935 §3: RSA key of 1024 bits/],
    ['an RSA-4096 key', buildCsr(testKey(4096), sia), /RFC 7935 §3: RSA key of 4096 bits/],
    ['an RSA-2048 key with exponent 3', buildCsr(testKey(2048, 3), sia), /RFC 7935 §3: RSA key of 2048 bits, exponent 3/],
    ['a 10 KB caRepository', buildCsr(key, { ...sia, caRepository: `rsync://localhost/${long}/`, rpkiManifest: `rsync://localhost/${long}/kid.mft` }), /RFC 6487 §4\.8\.8\.1: the caRepository URI is \d+ characters long, more than 2048/],
    ['a 10 KB rpkiNotify', buildCsr(key, { ...sia, rpkiNotify: `https://localhost/${long}` }), /RFC 8182 §3\.2: the rpkiNotify URI is \d+ characters long/],
    ['an https caRepository', buildCsr(key, { ...sia, caRepository: 'https://localhost/repo/kid/0/' }), /RFC 6487 §4\.8\.8\.1: the caRepository URI .* is not an rsync URI/],
    ['an rsync rpkiNotify', buildCsr(key, { ...sia, rpkiNotify: 'rsync://localhost/notification.xml' }), /RFC 8182 §3\.2: the rpkiNotify URI .* is not an https URI/],
    ['a dot segment', buildCsr(key, { ...sia, rpkiManifest: `${repo}../../ca1/0/x.mft` }), /RFC 3986 §3\.3: the rpkiManifest URI .* has a dot segment/],
    ['a manifest outside its repository', buildCsr(key, { ...sia, rpkiManifest: 'rsync://localhost/repo/other/x.mft' }), /RFC 6487 §4\.8\.8\.1: the rpkiManifest URI is not inside the caRepository/],
  ]
  for (const [what, csr, reason] of cases) {
    const reply = await kid.send({ type: 'issue', className: cls, csr })
    t.equal(reply.type === 'error_response' ? reply.status : reply.type, 1203, `${what}: error 1203`)
    t.match(reply.type === 'error_response' ? reply.description : '', reason, `${what}: the description names the rule`)
  }

  const log = d.output().slice(logBefore)
  t.notMatch(log, /"status":500|sys-internal|unexpected error/, 'no 500 in the log')
  t.equal(await d.cli(['show', '-c', 'testbed', '-f', 'json']), before, 'testbed unchanged')
  t.equal(await d.cli(['children', 'info', '-c', 'testbed', '--child', 'kid', '-f', 'json']), kidBefore, 'kid unchanged: no certificate issued')
  t.equal(await published(), base, 'nothing more published')

  const ok = await kid.send({ type: 'issue', className: cls, csr: buildCsr(key, sia) })
  t.equal(ok.type, 'issue_response', 'a request in the profile is certified')
  await waitFor('the child certificate published', async () => (await published()) === base + 1)
})
