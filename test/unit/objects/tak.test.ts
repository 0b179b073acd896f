/** Trust Anchor Keys (RFC 9691): exact eContent DER, the EE under the TA with inherit, inspection and verification rules. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { explicit, int, seq } from '../../../src/asn1/der.js'
import { idCtSignedTal } from '../../../src/asn1/oids.js'
import { keyIdentifier } from '../../../src/crypto/key-id.js'
import { buildCert, type CertResources, decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { detectObjectType } from '../../../src/objects/object-type.js'
import { errorsOf } from '../../../src/objects/problem.js'
import { encodeSignedData } from '../../../src/objects/signed-object.js'
import { buildTak, decodeTak, encodeTakContent, inspectTak, readTakContent, takeyTal, type TaKey, verifyTak } from '../../../src/objects/tak.js'
import { decodeTal } from '../../../src/objects/tal.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_NOW, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'
import { fixture } from '../../helpers/paths.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const RULE = 'RFC 9691 §3'
const taKey = testKey('rpki-ta')
const nextKey = testKey('rpki-ca')
const taCert = verifyCert(decodeCert(new Uint8Array(readFileSync(fixture('objects', 'sample/ta/ta.cer')))), 'self', GOLDEN_NOW)
const issuer = { key: taKey, name: taKey.keyId, crlUri: `${GOLDEN_BASE}repo/ta/${taKey.keyId}.crl`, certUri: `${GOLDEN_BASE}ta/ta.cer` }
const ee = { serial: 9n, uri: `${GOLDEN_BASE}repo/ta/${taKey.keyId}.tak`, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM }
const current: TaKey = { comments: ['svc test TA'], certificateURIs: ['https://rpki.example.net/ta/ta.cer', `${GOLDEN_BASE}ta/ta.cer`], spki: taKey.spki }
const successor: TaKey = { comments: [], certificateURIs: [`https://rpki.example.net/ta/ta-${nextKey.keyId}.cer`, `${GOLDEN_BASE}ta/ta-${nextKey.keyId}.cer`], spki: nextKey.spki }

/** An independent DER writer for the expected bytes: tag, definite length, content. */
function tl(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const content = Buffer.concat(parts)
  const n = content.length
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]
  return Buffer.concat([Buffer.from([tag, ...len]), content])
}
const ascii = (s: string) => Buffer.from(s, 'utf8')
const takeyDer = (k: TaKey) => tl(0x30, tl(0x30, ...k.comments.map((c) => tl(0x0c, ascii(c)))), tl(0x30, ...k.certificateURIs.map((u) => tl(0x16, ascii(u)))), k.spki)

/** A TAK with any eContent, its EE issued by the sample TA with `resources`. */
function handMadeTak(eContent: Uint8Array, resources: CertResources = { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' }): Uint8Array {
  const k = testKey('rpki-ee-5')
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 99n, issuerName: taKey.keyId, subjectName: k.keyId, subjectSpki: k.spki, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL,
    crldp: issuer.crlUri, aia: issuer.certUri, sia: { signedObject: ee.uri }, resources,
  }, taKey)
  return encodeSignedData(idCtSignedTal, eContent, eeCert, k, GOLDEN_FROM)
}

t.test('eContent DER: version left out (DEFAULT 0), current TAKey, [1] successor; comments UTF8String, URIs IA5String', async (t) => {
  const der = encodeTakContent({ current, successor })
  t.equal(toHex(der), toHex(tl(0x30, takeyDer(current), tl(0xa1, takeyDer(successor)))))
  t.equal(toHex(der.subarray(0, 1)), '30')
  const withPre = encodeTakContent({ current: successor, predecessor: current })
  t.equal(toHex(withPre), toHex(tl(0x30, takeyDer(successor), tl(0xa0, takeyDer(current)))), 'predecessor is [0] EXPLICIT')
  const both = readTakContent(encodeTakContent({ current, predecessor: successor, successor: { ...successor, spki: testKey('rpki-ee-1').spki } }))
  t.ok(both.predecessor && both.successor, 'both may be present, [0] before [1]')
  t.equal(both.version, 0)
  t.equal(both.versionExplicit, false)
})

t.test('buildTak: an id-ct-SignedTAL object whose EE inherits everything and names the TA key', async (t) => {
  const der = buildTak({ current, successor }, testKey('rpki-ee-4'), issuer, ee)
  t.equal(detectObjectType(der), 'tak')
  t.equal(detectObjectType(new Uint8Array(0), 'x.tak'), 'tak', 'by extension as a fallback')
  const tak = decodeTak(der)
  t.equal(tak.signedObject.eContentType, '1.2.840.113549.1.9.16.1.50')
  t.same(tak.current.comments, ['svc test TA'])
  t.same(tak.current.certificateURIs, current.certificateURIs)
  t.equal(toHex(tak.current.spki), toHex(taKey.spki))
  t.equal(toHex(tak.successor!.spki), toHex(nextKey.spki))
  t.equal(tak.predecessor, undefined)
  t.match(tak.ee.extensions.ip, { ipv4: 'inherit', ipv6: 'inherit' })
  t.equal(tak.ee.extensions.as?.asn, 'inherit')
  t.equal(toHex(tak.ee.extensions.aki!.keyIdentifier!), toHex(keyIdentifier(taKey.spki)), "EE AKI = the current TAKey's key identifier")
  t.same(inspectTak(tak), [])
  const v = verifyTak(tak, taCert, GOLDEN_NOW)
  t.ok(v.resources.ipv4.toString() !== '', 'EE resources resolved from the TA (inherit)')
  throwsRule(t, () => buildTak({ current: successor }, testKey('rpki-ee-4'), issuer, ee), RULE, { name: 'EncodeError', message: /key that signs/ })
  throwsRule(t, () => encodeTakContent({ current, successor: current }), RULE, { message: /equals the current key/ })
  throwsRule(t, () => encodeTakContent({ current: { ...current, certificateURIs: [] } }), RULE, { message: /at least one/ })
  throwsRule(t, () => encodeTakContent({ current: { ...current, certificateURIs: ['http://x.example/ta.cer'] } }), RULE, { message: /neither/ })
})

t.test('the TAL a TAKey stands for (RFC 8630): what an RP switches to', async (t) => {
  const tal = decodeTal(takeyTal(successor))
  t.same(tal.uris, successor.certificateURIs, 'https first, then rsync')
  t.equal(toHex(tal.spki), toHex(nextKey.spki))
})

t.test('decode and inspect: version rules, URIs, AKI, inherit, content type', async (t) => {
  const rules = (bytes: Uint8Array) => errorsOf(inspectTak(decodeTak(bytes))).map((p) => `${p.rule}: ${p.message}`)
  t.same(rules(handMadeTak(encodeTakContent({ current }))), [])
  t.same(rules(handMadeTak(seq(int(0), takeyDer(current)))), ['X.690 §11.5: version 0 is written although it is the DEFAULT'])
  t.same(rules(handMadeTak(seq(explicit(0, int(1)), takeyDer(current)))), [`${RULE}: version 1, expected 0`], 'a [0]-tagged version (as rpki-client reads it)')
  t.same(rules(handMadeTak(seq(takeyDer({ ...current, certificateURIs: ['http://x.example/ta.cer', 'http://x.example/ta.cer'] })))), [
    `${RULE}: the current TAKey has a URI that is neither rsync nor https: "http://x.example/ta.cer"`,
    `${RULE}: the current TAKey has a URI that is neither rsync nor https: "http://x.example/ta.cer"`,
    `${RULE}: the current TAKey lists a URI twice`,
  ])
  t.same(rules(handMadeTak(seq(takeyDer({ ...current, certificateURIs: [] })))), [`${RULE}: the current TAKey has no certificate URI`])
  t.same(rules(handMadeTak(seq(takeyDer(successor)))), [`${RULE}: the current TAKey's key identifier does not match the EE certificate's AKI`])
  t.same(rules(handMadeTak(encodeTakContent({ current }), { asn: 'inherit' })), [`${RULE}: the EE certificate must use inherit for IPv4, IPv6 and AS resources`])
  throwsRule(t, () => decodeTak(handMadeTak(seq(takeyDer(current), int(5)))), RULE, { name: 'DecodeError' })
  throwsRule(t, () => readTakContent(seq(tl(0x30, tl(0x30), tl(0x30, tl(0x16, ascii('rsync://x/ta.cer'))), tl(0x30)))), 'RFC 5280 §4.1.2.7', { name: 'DecodeError' }, 'a TAKey needs a real SubjectPublicKeyInfo')
  const wrongType = encodeSignedData('1.2.840.113549.1.9.16.1.49', encodeTakContent({ current }), decodeTak(handMadeTak(encodeTakContent({ current }))).signedObject.certificates[0]!, testKey('rpki-ee-5'), GOLDEN_FROM)
  throwsRule(t, () => decodeTak(wrongType), RULE, { name: 'DecodeError', message: /not id-ct-SignedTAL/ })
})

t.test('verify: issued by the trust anchor whose key is the current TAKey', async (t) => {
  const tak = decodeTak(buildTak({ current }, testKey('rpki-ee-4'), issuer, ee))
  t.ok(verifyTak(tak, taCert, GOLDEN_NOW))
  const caCert = verifyCert(decodeCert(new Uint8Array(readFileSync(fixture('objects', `sample/repo/ta/${nextKey.keyId}.cer`)))), taCert, GOLDEN_NOW)
  throwsRule(t, () => verifyTak(tak, caCert, GOLDEN_NOW), RULE, { name: 'VerificationError', message: /not the key of the issuing certificate/ })
  throwsRule(t, () => verifyTak(tak, taCert, new Date('2040-01-01T00:00:00Z')), 'RFC 5280 §6.1.3', { name: 'VerificationError' }, 'expired EE')
})
