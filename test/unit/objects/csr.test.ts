/** PKCS#10 requests for RPKI CA certificates (RFC 6487 §6): build, decode, inspect, verify; OpenSSL agrees. */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { buildCsr, csrSia, decodeCsr, inspectCsr, verifyCsr } from '../../../src/objects/csr.js'
import { testKey } from '../../helpers/keys.js'
import { sharedFixture } from '../../helpers/paths.js'
import { readFileSync, existsSync } from 'node:fs'

const sia = { caRepository: 'rsync://localhost:3873/repo/ca1/0/', rpkiManifest: 'rsync://localhost:3873/repo/ca1/0/ABC.mft', rpkiNotify: 'https://localhost:3000/rrdp/notification.xml' }

t.test('round trip and proof of possession', async (t) => {
  const key = testKey()
  const der = buildCsr(key, sia)
  const csr = decodeCsr(der)
  t.same(csrSia(csr), sia)
  t.same(inspectCsr(csr), [])
  t.same(Buffer.from(csr.spki), Buffer.from(key.spki))
  t.doesNotThrow(() => verifyCsr(csr))
  const tampered = new Uint8Array(der)
  tampered[tampered.length - 5] ^= 1
  t.throws(() => verifyCsr(decodeCsr(tampered)), /RFC 2986 §3/)
  const out = execFileSync('openssl', ['req', '-inform', 'DER', '-verify', '-noout', '-text'], { input: der, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] })
  t.match(out, /Subject Information Access/)
  t.match(out, /CA:TRUE/)
})

t.test('a request without SIA is a profile problem', async (t) => {
  const key = testKey()
  const der = buildCsr(key, { caRepository: 'https://x/', rpkiManifest: 'rsync://x/m.mft' })
  t.match(inspectCsr(decodeCsr(der)).map((p) => p.rule), ['RFC 6487 §6.1.1'])
})

const rpkid = sharedFixture('rfc6492', 'cms', 'rpkid-carol-issue-csr.der')
t.test('a real rpkid request decodes and verifies', { skip: !rpkid || !existsSync(rpkid) ? 'needs ../shared/fixtures' : false }, async (t) => {
  const csr = decodeCsr(new Uint8Array(readFileSync(rpkid!)))
  t.doesNotThrow(() => verifyCsr(csr))
  t.equal(typeof csrSia(csr), 'object')
})
