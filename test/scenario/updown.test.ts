/**
 * svcd as an RFC 6492 parent, driven by a test child with its own identity (issue 5): list, issue, revoke; error
 * responses with the RFC 6492 §3.6 codes; replies that validate against the RFC 6492 schema; and refusals of a
 * wrong identity, a CSR for a class it has no right to, a bad CSR, and a child that was removed.
 *
 *   ta ── testbed ── kid (test child: 10.0.0.0/16, AS65000)
 */
import t from 'tap'
import { buildCsr } from '../../src/objects/csr.js'
import { decodeCert } from '../../src/objects/cert.js'
import { keyIdentifier } from '../../src/crypto/key-id.js'
import { toBase64Url } from '../../src/util/base64.js'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { testKey } from '../helpers/keys.js'
import { validateWithSchema, xmllintMissing } from '../helpers/xmllint.js'
import { MessageSigner } from '../../src/protocol/signed-message.js'
import { createIdCert } from '../../src/protocol/id-cert.js'

t.test('list, issue, revoke and the RFC 6492 errors', async (t) => {
  const d = await repoDaemon(t)
  await waitFor('testbed to be certified', async () => JSON.parse(await d.cli(['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active)
  const kid = new TestChild('kid')
  kid.useResponse(await d.cli(['children', 'add', '-c', 'testbed', '--child', 'kid', '--request', d.file('kid.xml', kid.requestXml()), '-4', '10.0.0.0/16', '-a', 'AS65000']))
  const schema = (what: string) => {
    if (xmllintMissing()) return
    const v = validateWithSchema(kid.lastReplyXml, 'rfc6492')
    t.ok(v.ok, `${what} validates against the RFC 6492 schema ${v.output}`)
  }

  const list = await kid.send({ type: 'list' })
  schema('list_response')
  t.equal(list.type, 'list_response')
  if (list.type !== 'list_response') return
  t.equal(list.classes.length, 1)
  t.equal(list.classes[0].resourceSetIpv4, '10.0.0.0/16')
  t.equal(list.classes[0].resourceSetAs, '65000')
  const cls = list.classes[0].className

  const key = testKey()
  const sia = { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/x.mft' }
  const issued = await kid.send({ type: 'issue', className: cls, csr: buildCsr(key, sia) })
  schema('issue_response')
  t.equal(issued.type, 'issue_response')
  if (issued.type !== 'issue_response') return
  const cert = decodeCert(issued.cls.certificates[0].cert)
  t.same(Buffer.from(cert.spki), Buffer.from(key.spki), 'certifies the requested key')
  t.same(cert.extensions.sia?.find((a) => a.method === '1.3.6.1.5.5.7.48.5')?.uri, sia.caRepository, 'with the SIA from the CSR')

  const limited = await kid.send({ type: 'issue', className: cls, csr: buildCsr(key, sia), limits: { ipv4: '10.0.1.0/24' } })
  t.equal(limited.type === 'issue_response' && decodeCert(limited.cls.certificates[0].cert).extensions.ip?.ipv4?.toString(), '10.0.1.0/24', 'a limit narrows the certificate')

  const code = (p: Awaited<ReturnType<TestChild['send']>>) => (p.type === 'error_response' ? p.status : p.type)
  t.equal(code(await kid.send({ type: 'issue', className: 'nope', csr: buildCsr(key, sia) })), 1201, 'no such resource class')
  schema('error_response')
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(key, sia), limits: { ipv4: '192.168.0.0/16' } })), 1202, 'asking for more than entitled')
  const broken = buildCsr(key, sia)
  broken[broken.length - 3] ^= 0xff
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: broken })), 1203, 'badly formed request')
  t.equal(code(await kid.send({ type: 'issue', className: cls, csr: buildCsr(testKey(), { caRepository: 'https://x/', rpkiManifest: 'rsync://x/m.mft' }) })), 1203, 'SIA not usable')
  const ski = toBase64Url(keyIdentifier(key.spki))
  t.equal(code(await kid.send({ type: 'revoke', className: cls, ski: toBase64Url(keyIdentifier(testKey().spki)) })), 1302, 'no such key')
  t.equal(code(await kid.send({ type: 'revoke', className: 'nope', ski })), 1301, 'no such class')
  t.equal(code(await kid.send({ type: 'revoke', className: cls, ski })), 'revoke_response')
  schema('revoke_response')

  // A message signed by another identity, claiming to be kid.
  const mallory = testKey()
  const impostor = new MessageSigner({ idKey: mallory, idCert: createIdCert(mallory, new Date()) })
  impostor.useEeKey(testKey(), new Date())
  t.equal(code(await kid.send({ type: 'list' }, {}, impostor)), 2001, 'a wrong identity is refused')
  t.equal(code(await kid.send({ type: 'list' }, { sender: 'someone-else' })), 2001, 'an unknown sender is refused')

  await d.cli(['children', 'remove', '-c', 'testbed', '--child', 'kid'])
  t.equal(code(await kid.send({ type: 'list' })), 2001, 'a removed child can no longer connect')
})
