/** The RFC 6488 envelope: exact structure, BBN conformance cases, BER objects, pkijs and OpenSSL as oracles. */
import { createHash, createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import t from 'tap'
import { children, cursor, expectSequence, parseDer } from '../../../src/asn1/der-reader.js'
import { decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { errorsOf } from '../../../src/objects/problem.js'
import { decodeSignedObject, inspectSignedObject, verifySignedObject } from '../../../src/objects/signed-object.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_FROM, GOLDEN_NOW } from '../../helpers/golden-objects.js'
import { openssl, pem } from '../../helpers/openssl-cli.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const shared = (p: string): Uint8Array => new Uint8Array(readFileSync(sharedFixture('objects', p)!))
const ca = testKey('rpki-ca'), ee1 = testKey('rpki-ee-1')
const ROA = golden('sample/repo/ca/AS65001.roa')
const TA_CER = golden('sample/ta/ta.cer')
const CA_CER = golden(`sample/repo/ta/${ca.keyId}.cer`)
const hex = (b: Uint8Array): string => toHex(b)

t.test('our envelope is exactly rpki-encoding.md §8: SignedData v3, one EE, no crls, SignerInfo v3/SKI/sha256/rsaEncryption', async (t) => {
  const ci = expectSequence(parseDer(ROA), 'x')
  t.equal(hex(ci.next('x', 0x06).raw()), '06092a864886f70d010702', 'id-signedData')
  const sd = expectSequence(cursor(ci.next('x', 0xa0)).next('x', 0x30), 'x')
  t.equal(hex(sd.next('x', 0x02).raw()), '020103', 'SignedData v3')
  t.equal(hex(sd.next('x', 0x31).raw()), '310d300b0609608648016503040201', 'digestAlgorithms: sha256, parameters absent')
  const eci = cursor(sd.next('x', 0x30))
  t.equal(hex(eci.next('x', 0x06).raw()), '060b2a864886f70d0109100118', 'eContentType id-ct-routeOriginAuthz')
  const wrapper = eci.next('x', 0xa0)
  t.equal(children(wrapper)[0].tag, 0x04, 'eContent is a primitive OCTET STRING')
  const certs = sd.next('x', 0xa0)
  t.equal(children(certs).length, 1, 'exactly one certificate')
  const signerInfos = sd.next('x', 0x31)
  t.ok(sd.done(), 'no crls [1], nothing after signerInfos')
  const si = cursor(children(signerInfos)[0])
  t.equal(hex(si.next('x', 0x02).raw()), '020103', 'SignerInfo v3')
  t.equal(hex(si.next('x', 0x80).raw()), '8014' + hex(ee1.ski), 'sid [0] subjectKeyIdentifier')
  t.equal(hex(si.next('x', 0x30).raw()), '300b0609608648016503040201', 'digestAlgorithm sha256 without parameters')
  const attrs = children(si.next('x', 0xa0))
  t.same(attrs.map((a) => hex(children(a)[0].raw())), ['06092a864886f70d010903', '06092a864886f70d010905', '06092a864886f70d010904'], 'content-type, signing-time, message-digest (DER order)')
  t.same(attrs.map((a) => children(children(a)[1]).length), [1, 1, 1], 'one value each')
  t.equal(hex(children(children(attrs[1])[1])[0].raw()), '170d3236303130313030303030305a', 'signing-time UTCTime 260101000000Z')
  t.equal(hex(si.next('x', 0x30).raw()), '300d06092a864886f70d0101010500', 'signatureAlgorithm rsaEncryption with NULL')
  t.equal(si.next('x', 0x04).length, 256, 'RSA-2048 signature')
  t.ok(si.done(), 'no unsignedAttrs')
})

t.test('decode, inspect and verify our ROA envelope', async (t) => {
  const so = decodeSignedObject(ROA)
  t.equal(so.encoding, 'der')
  t.same(so.attributes.signingTime, GOLDEN_FROM)
  t.same(so.attributes.messageDigest, new Uint8Array(createHash('sha256').update(so.eContent).digest()))
  t.same(inspectSignedObject(so, '1.2.840.113549.1.9.16.1.24'), [])
  const issuer = verifyCert(decodeCert(CA_CER), verifyCert(decodeCert(TA_CER), 'self', GOLDEN_NOW), GOLDEN_NOW)
  const ee = verifySignedObject(so, issuer, GOLDEN_NOW)
  t.equal(ee.resources.ipv4.toString(), '10.1.0.0/23')
  // Tampering with the eContent breaks the message digest; with an attribute, the signature.
  const i = ROA.indexOf(0x04, ROA.findIndex((_, k) => ROA[k] === 0x06 && ROA[k + 1] === 0x0b) + 13)
  const badContent = Uint8Array.from(ROA)
  badContent[i + 4] ^= 1
  throwsRule(t, () => verifySignedObject(decodeSignedObject(badContent), issuer, GOLDEN_NOW), 'RFC 6488 §3', { message: /message digest/ })
  const st = Buffer.from(ROA).lastIndexOf(Buffer.from('260101000000Z')) // the signing-time (the EE validity comes first)
  const badTime = Uint8Array.from(ROA)
  badTime[st + 11] = 0x31
  throwsRule(t, () => verifySignedObject(decodeSignedObject(badTime), issuer, GOLDEN_NOW), 'RFC 6488 §3', { message: /signature/ })
  t.same(ROA.subarray(st, st + 13), Buffer.from('260101000000Z'), 'decoding never changes the input')
})

t.test('pkijs parses the envelope; its signedAttrs encoding verifies with the EE key', async (t) => {
  const asn = asn1js.fromBER(ROA.slice().buffer as ArrayBuffer, { maxNodes: 1e6, parseEmbedded: false } as never)
  const sd = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: asn.result }).content })
  t.equal(sd.version, 3)
  t.equal(sd.crls, undefined)
  const si = sd.signerInfos[0]
  t.equal(si.version, 3)
  const eeCert = sd.certificates![0] as pkijs.Certificate
  const key = createPublicKey({ key: Buffer.from(eeCert.subjectPublicKeyInfo.toSchema().toBER()), format: 'der', type: 'spki' })
  t.ok(verify('sha256', new Uint8Array(si.signedAttrs!.encodedValue), key, new Uint8Array(si.signature.valueBlock.valueHexView)))
})

t.test('openssl cms -verify: the signature, and the chain TA → CA → EE', async (t) => {
  const noverify = await openssl(['cms', '-verify', '-inform', 'DER', '-in', '{dir}/x.roa', '-noverify', '-out', '{dir}/content'], { 'x.roa': ROA })
  t.equal(noverify.code, 0, noverify.stderr)
  // OpenSSL 3.0's cms has no -untrusted: the CA certificate goes into the CAfile next to the TA (the chain still ends there).
  const chain = await openssl(['cms', '-verify', '-inform', 'DER', '-in', '{dir}/x.roa', '-CAfile', '{dir}/chain.pem', '-purpose', 'any', '-x509_strict', '-attime', String(GOLDEN_NOW.getTime() / 1000), '-out', '{dir}/content'], {
    'x.roa': ROA, 'chain.pem': pem(TA_CER) + pem(CA_CER),
  })
  t.equal(chain.code, 0, chain.stderr)
  t.match(chain.stderr, /Verification successful/)
  const print = await openssl(['cms', '-cmsout', '-inform', 'DER', '-in', '{dir}/x.roa', '-print', '-noout'], { 'x.roa': ROA })
  t.match(print.stdout, /version: 3[\s\S]*d.subjectKeyIdentifier[\s\S]*algorithm: rsaEncryption/)
  t.notMatch(print.stdout, /crls:\s+<(?!ABSENT)/)
})

const BBN: Record<string, string[]> = {
  'badCMSHasCRL.roa': ['RFC 6488 §2.1.5'],
  'badCMSSigInfoAttrs2BinSigTime.roa': ['RFC 6488 §2.1.6.4', 'RFC 9589 §4'],
  'badCMSSigInfoAttrs2SigTime.roa': ['RFC 6488 §2.1.6.4'],
  'badCMSSigInfoAttrsNoContType.roa': ['RFC 6488 §2.1.6.4.1'],
  'badCMSSigInfoForbiddenAttr.roa': ['RFC 6488 §2.1.6.4'],
  'badCMSSigInfoNoAttrs.roa': ['RFC 6488 §2.1.6.4'],
  'badCMSSigInfoUnSigAttrs.roa': ['RFC 6488 §2.1.6.7'],
  'badCMSVersion4.roa': ['RFC 6488 §2.1.1'],
  'goodROANothingWrong.roa': [],
  'goodROAComplexResources.roa': [],
  'goodGBRNothingWrong.gbr': [],
}

t.test('BBN conformance: each badCMS* case gives the problem its name says, the good ones none', { skip: NO_SHARED }, async (t) => {
  for (const [file, rules] of Object.entries(BBN)) {
    const so = decodeSignedObject(shared(`conformance-bbn/root/${file}`))
    t.same([...new Set(errorsOf(inspectSignedObject(so)).map((p) => p.rule))], rules, file)
  }
})

t.test('BBN good objects verify against the conformance root', { skip: NO_SHARED }, async (t) => {
  const rootCert = decodeCert(shared('conformance-bbn/root.cer'))
  for (const file of ['goodROANothingWrong.roa', 'goodROAComplexResources.roa', 'goodGBRNothingWrong.gbr']) {
    const so = decodeSignedObject(shared(`conformance-bbn/root/${file}`))
    const now = new Date(so.ee.notBefore.getTime() + 1000)
    verifySignedObject(so, verifyCert(rootCert, 'self', now), now)
    t.pass(`${file} verifies`)
  }
})

t.test('BER objects (RIPE NCC, ARIN, LACNIC) decode, verify against their TA, and are reported as not DER', { skip: NO_SHARED }, async (t) => {
  const cases: [string, string][] = [
    ['ripencc-ta-chain-2019/rpki.ripe.net/repository/ripe-ncc-ta.mft', 'ripencc-ta-chain-2019/rpki.ripe.net/ta/ripe-ncc-ta.cer'],
    ['rir/arin/arin-rpki-ta.mft', 'rir/arin/arin-rpki-ta.cer'],
    ['rir/lacnic/rta-lacnic-rpki.mft', 'rir/lacnic/rta-lacnic-rpki.cer'],
  ]
  for (const [object, taFile] of cases) {
    const so = decodeSignedObject(shared(object))
    t.equal(so.encoding, 'ber', `${object}: BER`)
    t.same(errorsOf(inspectSignedObject(so)).map((p) => p.rule), ['RFC 6488 §3'], `${object}: only the DER rule is broken`)
    const now = new Date(so.ee.notBefore.getTime() + 1000)
    const ta = verifyCert(decodeCert(shared(taFile)), 'self', now)
    t.ok(verifySignedObject(so, ta, now), `${object}: signature and digest verify`)
  }
})
