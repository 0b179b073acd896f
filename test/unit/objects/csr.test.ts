/** PKCS#10 requests for RPKI CA certificates (RFC 6487 §6): build, decode, inspect, verify; OpenSSL agrees. */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { buildCsr, csrSia, decodeCsr, inspectCsr, MAX_SIA_URI_LENGTH, verifyCsr } from '../../../src/objects/csr.js'
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
  t.match(inspectCsr(decodeCsr(der)).map((p) => p.rule), ['RFC 6487 §4.8.8.1'])
})

t.test('issue 22 defect 11: only RSA-2048 keys with exponent 65537 (RFC 7935 §3)', async (t) => {
  for (const [bits, e] of [[1024, 65537], [4096, 65537], [2048, 3]] as const) {
    const csr = decodeCsr(buildCsr(testKey(bits, e), sia))
    t.doesNotThrow(() => verifyCsr(csr), `RSA-${bits} e=${e}: a valid signature`)
    const problems = inspectCsr(csr)
    t.same(problems.map((p) => p.rule), ['RFC 7935 §3'], `RSA-${bits} e=${e}: refused`)
    t.match(problems[0]!.message, new RegExp(`RSA key of ${bits} bits, exponent ${e}`))
  }
})

t.test('issue 22 defect 11: SIA URIs are bounded, printable, of the right scheme, the manifest in the repository', async (t) => {
  const key = testKey()
  const problemsOf = (s: typeof sia) => inspectCsr(decodeCsr(buildCsr(key, s))).map((p) => `${p.rule}: ${p.message}`)
  const long = 'x'.repeat(10 * 1024)
  t.match(problemsOf({ ...sia, caRepository: `rsync://h/${long}/`, rpkiManifest: `rsync://h/${long}/m.mft` }), [/^RFC 6487 §4\.8\.8\.1: the caRepository URI is 10\d{3} characters long, more than 2048$/, /rpkiManifest URI is 10\d{3} characters/], '10 KB URIs')
  t.match(problemsOf({ ...sia, rpkiNotify: `https://h/${long}` }), [/^RFC 8182 §3\.2: the rpkiNotify URI is \d+ characters long/], 'a 10 KB rpkiNotify')
  t.same(problemsOf({ ...sia, caRepository: 'rsync://h/r/', rpkiManifest: `rsync://h/r/${'m'.repeat(MAX_SIA_URI_LENGTH - 16)}.mft` }), [], 'a URI of exactly 2048 characters passes')
  t.match(problemsOf({ ...sia, caRepository: 'rsync://h/r/', rpkiManifest: `rsync://h/r/${'m'.repeat(MAX_SIA_URI_LENGTH - 15)}.mft` }), [/rpkiManifest URI is 2049 characters long/], 'one of 2049 does not')
  t.match(problemsOf({ ...sia, caRepository: 'https://h/r/' }), ['RFC 6487 §4.8.8.1: the caRepository URI "https://h/r/" is not an rsync URI with a host'])
  t.match(problemsOf({ ...sia, rpkiManifest: 'http://h/r/m.mft' }), [/^RFC 6487 §4\.8\.8\.1: the rpkiManifest URI "http:\/\/h\/r\/m\.mft" is not an rsync URI/])
  t.match(problemsOf({ ...sia, rpkiNotify: 'rsync://h/notification.xml' }), [/^RFC 8182 §3\.2: the rpkiNotify URI .* is not an https URI/])
  t.match(problemsOf({ ...sia, caRepository: 'rsync:///r/', rpkiManifest: 'rsync:///r/m.mft' }), [/not an rsync URI with a host/, /not an rsync URI with a host/])
  // A space decodes (IA5String) but is no URI character; the builder refuses it, so it is patched into the DER.
  const spaced = buildCsr(key, { ...sia, rpkiNotify: 'https://h/aQQQb' })
  const at = Buffer.from(spaced).indexOf('aQQQb')
  spaced[at + 2] = 0x20
  t.match(inspectCsr(decodeCsr(spaced)).map((p) => `${p.rule}: ${p.message}`), ['RFC 3986 §2: the rpkiNotify URI "https://h/aQ Qb" has a character that is not printable ASCII'])
  t.match(problemsOf({ ...sia, rpkiManifest: 'rsync://localhost:3873/repo/ca1/0/../../ca2/0/m.mft' }), [/^RFC 3986 §3\.3: .* has a dot segment$/])
  t.match(problemsOf({ ...sia, rpkiManifest: 'rsync://localhost:3873/repo/ca2/0/m.mft' }), ['RFC 6487 §4.8.8.1: the rpkiManifest URI is not inside the caRepository publication point'])
  t.same(problemsOf(sia), [], 'what a CA of svcd asks for passes')
  t.match(csrSia(decodeCsr(buildCsr(key, { ...sia, caRepository: 'https://h/r/' }))), /^RFC 6487 §4\.8\.8\.1: /, 'csrSia names the first problem')
})

const rpkid = sharedFixture('rfc6492', 'cms', 'rpkid-carol-issue-csr.der')
t.test('a real rpkid request decodes and verifies', { skip: !rpkid || !existsSync(rpkid) ? 'needs ../shared/fixtures' : false }, async (t) => {
  const csr = decodeCsr(new Uint8Array(readFileSync(rpkid!)))
  t.doesNotThrow(() => verifyCsr(csr))
  t.equal(typeof csrSia(csr), 'object')
})
