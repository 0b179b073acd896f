/** CRLs (RFC 6487 §5): exact form, round trip, the empty-SEQUENCE note, BBN cases, verification, OpenSSL. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { buildCrl, decodeCrl, inspectCrl, isRevoked, verifyCrl } from '../../../src/objects/crl.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_FROM, GOLDEN_NEXT, GOLDEN_NOW } from '../../helpers/golden-objects.js'
import { openssl, pem } from '../../helpers/openssl-cli.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ta = testKey('rpki-ta'), ca = testKey('rpki-ca')
const CA_CRL = golden(`sample/repo/ca/${ca.keyId}.crl`)
const TA_CRL = golden(`sample/repo/ta/${ta.keyId}.crl`)
const taCert = verifyCert(decodeCert(golden('sample/ta/ta.cer')), 'self', GOLDEN_NOW)
const caCert = verifyCert(decodeCert(golden(`sample/repo/ta/${ca.keyId}.cer`)), taCert, GOLDEN_NOW)

t.test('our CRLs: v2, AKI and CRL number only, entries, and no list at all when empty', async (t) => {
  const c = decodeCrl(CA_CRL)
  t.equal(c.version, 2)
  t.equal(c.issuer.commonName, ca.keyId)
  t.same([c.thisUpdate, c.nextUpdate], [GOLDEN_FROM, GOLDEN_NEXT])
  t.same(c.revoked, [{ serial: 99n, revocationDate: GOLDEN_FROM, hasExtensions: false }])
  t.equal(c.revokedForm, 'entries')
  t.same(c.extensions.list.map((e) => e.oid), ['2.5.29.35', '2.5.29.20'])
  t.equal(c.extensions.crlNumber?.value, 1n)
  t.same(inspectCrl(c), [])
  t.ok(isRevoked(c, 99n))
  t.notOk(isRevoked(c, 98n))
  const empty = decodeCrl(TA_CRL)
  t.equal(empty.revokedForm, 'absent', 'RFC 5280 §5.1.2.6: absent when empty')
  t.same(inspectCrl(empty), [])
  // TBSCertList: version INTEGER 1, then the AlgorithmIdentifier with NULL.
  t.match(toHex(TA_CRL), /^3082....3081..020101300d06092a864886f70d01010b0500/)
})

t.test('round trip: decode, build from the decoded fields, same bytes', async (t) => {
  const c = decodeCrl(CA_CRL)
  const again = buildCrl({
    issuerName: c.issuer.der, thisUpdate: c.thisUpdate, nextUpdate: c.nextUpdate!, crlNumber: c.extensions.crlNumber!.value,
    revoked: c.revoked.map((r) => ({ serial: r.serial, revocationDate: r.revocationDate })),
  }, ca)
  t.same(again, CA_CRL)
})

t.test('verify against the issuing CA, in time', async (t) => {
  verifyCrl(decodeCrl(CA_CRL), caCert, GOLDEN_NOW)
  verifyCrl(decodeCrl(TA_CRL), taCert, GOLDEN_NOW)
  throwsRule(t, () => verifyCrl(decodeCrl(CA_CRL), taCert, GOLDEN_NOW), 'RFC 5280 §6.3.3', { name: 'VerificationError', message: /issuer/ })
  throwsRule(t, () => verifyCrl(decodeCrl(CA_CRL), caCert, new Date('2026-01-03T00:00:00Z')), 'RFC 5280 §6.3.3', { message: /expired/ })
  const bad = Uint8Array.from(CA_CRL)
  bad[bad.length - 3] ^= 0x40
  throwsRule(t, () => verifyCrl(decodeCrl(bad), caCert, GOLDEN_NOW), 'RFC 5280 §6.3.3', { message: /signature/ })
})

t.test('buildCrl checks its spec; 4,000 entries build and decode', async (t) => {
  const spec = { issuerName: ca.keyId, thisUpdate: GOLDEN_FROM, nextUpdate: GOLDEN_NEXT, crlNumber: 2n, revoked: [] }
  throwsRule(t, () => buildCrl({ ...spec, crlNumber: -1n }, ca), 'RFC 5280 §5.2.3')
  throwsRule(t, () => buildCrl({ ...spec, crlNumber: 1n << 159n }, ca), 'RFC 5280 §5.2.3')
  throwsRule(t, () => buildCrl({ ...spec, nextUpdate: new Date(0) }, ca), 'RFC 6487 §5')
  const revoked = Array.from({ length: 4000 }, (_, i) => ({ serial: BigInt(i + 1) << 100n, revocationDate: GOLDEN_FROM }))
  const big = decodeCrl(buildCrl({ ...spec, revoked }, ca))
  t.equal(big.revoked.length, 4000)
  t.equal(big.revoked[3999].serial, 4000n << 100n)
  t.same(inspectCrl(big), [])
})

t.test('openssl crl reads our CRLs and verifies their signatures', async (t) => {
  for (const [name, der, issuer] of [['ca', CA_CRL, golden(`sample/repo/ta/${ca.keyId}.cer`)], ['ta', TA_CRL, golden('sample/ta/ta.cer')]] as const) {
    const r = await openssl(['crl', '-inform', 'DER', '-in', '{dir}/x.crl', '-noout', '-text', '-CAfile', '{dir}/ca.pem'], { 'x.crl': der, 'ca.pem': pem(issuer) })
    t.equal(r.code, 0, `${name}: ${r.stderr}`)
    t.match(r.stderr + r.stdout, /verify OK/, `${name}: verify OK`)
    t.match(r.stdout, /X509v3 CRL Number:\s+1/, `${name}: CRL number`)
  }
})

t.test('real CRLs: Krill and LACNIC write an empty SEQUENCE (a note), BBN bad cases are errors', { skip: NO_SHARED }, async (t) => {
  const krill = decodeCrl(new Uint8Array(readFileSync(sharedFixture('objects/krill-localhost-chain/localhost/repo/CF62EDAA511CA98C086B0A9B46521D9D663D08B4.crl')!)))
  t.equal(krill.revokedForm, 'empty-sequence')
  t.same(inspectCrl(krill), [{ rule: 'RFC 5280 §5.1.2.6', message: 'empty revokedCertificates written as an empty SEQUENCE', severity: 'note' }])
  const ripe = decodeCrl(new Uint8Array(readFileSync(sharedFixture('objects/ripencc-ta-chain-2019/rpki.ripe.net/repository/aca/Kn3R14fXk-TIr1bhl9Tu2Sr2uhM.crl')!)))
  t.equal(ripe.revoked.length, 163)
  t.same(inspectCrl(ripe), [])
  const bbn = (p: string) => inspectCrl(decodeCrl(new Uint8Array(readFileSync(sharedFixture(`objects/conformance-bbn/root/${p}`)!))))
  t.same(bbn('CRLNumberZero/goodCRLNumberZero.crl'), [])
  t.same(bbn('CRLNoAKI/badCRLNoAKI.crl').map((p) => [p.rule, p.message]), [['RFC 6487 §5', 'authorityKeyIdentifier is missing']])
  t.same(bbn('CRLEntryHasExtension/badCRLEntryHasExtension.crl').map((p) => [p.rule, p.message]), [['RFC 6487 §5', 'CRL entry extensions are not allowed']])
})
