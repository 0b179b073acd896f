/** Resource and BPKI certificates: exact bytes, round trips, profile per role, verification, pkijs and OpenSSL. */
import { readFileSync } from 'node:fs'
import * as asn1js from 'asn1js'
import * as pkijs from 'pkijs'
import { createPublicKey, verify } from 'node:crypto'
import t from 'tap'
import { EncodeError } from '../../../src/asn1/der.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { buildCert, certRole, type Cert, type CertSpec, decodeCert, inspectCert, serialFromRandom, verifyCert } from '../../../src/objects/cert.js'
import { EXT_BASIC_CONSTRAINTS_CA, EXT_KEY_USAGE_CA, EXT_KEY_USAGE_EE, EXT_RPKI_POLICY } from '../../../src/objects/cert-extensions.js'
import { decodeRoa } from '../../../src/objects/roa.js'
import { DecodeError, VerificationError } from '../../../src/util/errors.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_FROM, GOLDEN_NOW, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'
import { openssl, pem } from '../../helpers/openssl-cli.js'
import { throwsRule } from '../../helpers/throws-rule.js'
import { fixture } from '../../helpers/paths.js'

const hex = (b: Uint8Array): string => toHex(b).replace(/(..)(?!$)/g, '$1 ')
const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ta = testKey('rpki-ta'), ca = testKey('rpki-ca')
const TA_CER = golden('sample/ta/ta.cer')
const CA_CER = golden(`sample/repo/ta/${ca.keyId}.cer`)
const ROA = golden('sample/repo/ca/AS65001.roa')

/** The spec that rebuilds a decoded certificate of the sample repository. */
function specOf(c: Cert, profile: 'rpki' | 'bpki' = 'rpki'): CertSpec {
  const x = c.extensions
  const sia = Object.fromEntries((x.sia ?? []).map((a) => [({ '1.3.6.1.5.5.7.48.5': 'caRepository', '1.3.6.1.5.5.7.48.10': 'rpkiManifest', '1.3.6.1.5.5.7.48.13': 'rpkiNotify', '1.3.6.1.5.5.7.48.11': 'signedObject' } as Record<string, string>)[a.method], a.uri]))
  return {
    profile, kind: x.basicConstraints?.ca ? 'ca' : 'ee', serial: c.serial, issuerName: c.issuer.der, subjectName: c.subject.der,
    subjectSpki: c.spki, notBefore: c.notBefore, notAfter: c.notAfter, crldp: x.crldp?.uris[0], aia: x.aia?.[0]?.uri,
    sia: profile === 'bpki' ? undefined : (sia as never), resources: profile === 'bpki' ? undefined : { ipv4: x.ip?.ipv4, ipv6: x.ip?.ipv6, asn: x.as?.asn },
  }
}

t.test('constant extensions have the exact DER of rpki-encoding.md §8', async (t) => {
  t.equal(hex(EXT_BASIC_CONSTRAINTS_CA), '30 0f 06 03 55 1d 13 01 01 ff 04 05 30 03 01 01 ff')
  t.equal(hex(EXT_KEY_USAGE_CA), '30 0e 06 03 55 1d 0f 01 01 ff 04 04 03 02 01 06')
  t.equal(hex(EXT_KEY_USAGE_EE), '30 0e 06 03 55 1d 0f 01 01 ff 04 04 03 02 07 80')
  t.equal(hex(EXT_RPKI_POLICY), '30 18 06 03 55 1d 20 01 01 ff 04 0e 30 0c 30 0a 06 08 2b 06 01 05 05 07 0e 02')
})

t.test('the trust anchor certificate: fields, profile, self-signature, round trip', async (t) => {
  const c = decodeCert(TA_CER)
  t.equal(c.version, 3)
  t.equal(c.serial, 1n)
  t.equal(c.issuer.commonName, ta.keyId)
  t.equal(c.subject.commonName, ta.keyId)
  t.same([c.notBefore, c.notAfter], [GOLDEN_FROM, GOLDEN_UNTIL])
  t.same(c.validityTags, [0x17, 0x17], 'UTCTime before 2050')
  t.same(c.extensions.ski, ta.ski)
  t.equal(c.extensions.aki, undefined, 'no AKI when self-signed')
  t.equal(c.extensions.crldp, undefined)
  t.equal(c.extensions.aia, undefined)
  t.same(c.extensions.sia?.map((a) => a.uri), [
    'rsync://rpki.example.net/rpki/repo/ta/', `rsync://rpki.example.net/rpki/repo/ta/${ta.keyId}.mft`, 'https://rpki.example.net/rrdp/notification.xml',
  ])
  t.equal(certRole(c), 'ta')
  t.same(inspectCert(c), [])
  const v = verifyCert(c, 'self', GOLDEN_NOW)
  t.equal(v.resources.toString(), 'asn: AS65000-AS65535, ipv4: 10.0.0.0/8, ipv6: 2001:db8::/32')
  t.same(buildCert(specOf(c), ta), TA_CER, 'decode → spec → build gives the same bytes')
  t.equal(hex(TA_CER.subarray(8, 13)), 'a0 03 02 01 02', 'v3 right after the two SEQUENCE headers')
})

t.test('the CA certificate: AKI, CRLDP, AIA, verification against the TA, round trip', async (t) => {
  const taCert = verifyCert(decodeCert(TA_CER), 'self', GOLDEN_NOW)
  const c = decodeCert(CA_CER)
  t.equal(certRole(c), 'ca')
  t.same(inspectCert(c), [])
  t.same(c.extensions.aki?.keyIdentifier, ta.ski)
  t.same(c.extensions.crldp?.uris, [`rsync://rpki.example.net/rpki/repo/ta/${ta.keyId}.crl`])
  t.same(c.extensions.aia?.map((a) => a.uri), ['rsync://rpki.example.net/rpki/ta/ta.cer'])
  const v = verifyCert(c, taCert, GOLDEN_NOW)
  t.equal(v.resources.ipv4.toString(), '10.1.0.0-10.2.3.255', 'adjacent blocks are one range (rpki-encoding.md §3)')
  t.same(buildCert(specOf(c), ta), CA_CER)
})

t.test('verification failures name their rule', async (t) => {
  const taCert = verifyCert(decodeCert(TA_CER), 'self', GOLDEN_NOW)
  const c = decodeCert(CA_CER)
  throwsRule(t, () => verifyCert(c, taCert, new Date('2040-01-01T00:00:00Z')), 'RFC 5280 §6.1.3', { name: 'VerificationError', message: /expired/ })
  throwsRule(t, () => verifyCert(c, taCert, new Date('2020-01-01T00:00:00Z')), 'RFC 5280 §6.1.3', { message: /not valid before/ })
  const bad = Uint8Array.from(CA_CER)
  bad[bad.length - 1] ^= 1
  throwsRule(t, () => verifyCert(decodeCert(bad), taCert, GOLDEN_NOW), 'RFC 5280 §6.1.3', { message: /signature/ })
  const caCert = verifyCert(c, taCert, GOLDEN_NOW)
  t.throws(() => verifyCert(decodeCert(TA_CER), caCert, GOLDEN_NOW), VerificationError, 'a TA is not issued by its child')
  // A child claiming more than its parent holds.
  const greedy = buildCert({ ...specOf(c), resources: { ipv4: IpBlocks.parse('10.0.0.0/7', 4) } }, ta)
  throwsRule(t, () => verifyCert(decodeCert(greedy), taCert, GOLDEN_NOW), 'RFC 6487 §7.2', { message: /11\.0\.0\.0\/8 are not held/ })
})

t.test('inherit resolves to the issuer’s resources; a TA cannot inherit', async (t) => {
  const taCert = verifyCert(decodeCert(TA_CER), 'self', GOLDEN_NOW)
  const spec = { ...specOf(decodeCert(CA_CER)), resources: { ipv4: IpBlocks.parse('10.1.0.0/16', 4), ipv6: 'inherit' as const, asn: 'inherit' as const } }
  const v = verifyCert(decodeCert(buildCert(spec, ta)), taCert, GOLDEN_NOW)
  t.equal(v.resources.toString(), 'asn: AS65000-AS65535, ipv4: 10.1.0.0/16, ipv6: 2001:db8::/32')
  throwsRule(t, () => buildCert({ ...specOf(decodeCert(TA_CER)), resources: { ipv4: 'inherit' } }, ta), 'RFC 8630 §2.3', { name: 'EncodeError' })
})

t.test('buildCert refuses specs that break the profile', async (t) => {
  const spec = specOf(decodeCert(CA_CER))
  throwsRule(t, () => buildCert({ ...spec, serial: 0n }, ta), 'RFC 6487 §4.2')
  throwsRule(t, () => buildCert({ ...spec, serial: 1n << 159n }, ta), 'RFC 5280 §4.1.2.2')
  const max = decodeCert(buildCert({ ...spec, serial: (1n << 159n) - 1n }, ta))
  t.equal(max.serialOctets, 20, '2^159 - 1 takes 20 octets, the most allowed')
  throwsRule(t, () => buildCert({ ...spec, sia: undefined }, ta), 'RFC 6487 §4.8.8.1')
  throwsRule(t, () => buildCert({ ...spec, kind: 'ee' }, ta), 'RFC 6487 §4.8.8.2')
  throwsRule(t, () => buildCert({ ...spec, crldp: undefined }, ta), 'RFC 6487 §4.8.6')
  throwsRule(t, () => buildCert({ ...spec, resources: {} }, ta), 'RFC 6487 §4.8.10')
  t.throws(() => buildCert({ ...spec, subjectName: 'not_printable!' }, ta), EncodeError)
  throwsRule(t, () => buildCert({ ...spec, notAfter: new Date(0) }, ta), 'RFC 5280 §4.1.2.5')
  throwsRule(t, () => buildCert({ ...spec, profile: 'bpki' }, ta), 'RFC 8183 §2')
  throwsRule(t, () => buildCert({ ...spec, aia: 'https://example.net/ta.cer' }, ta), 'RFC 5781')
})

t.test('serialFromRandom: positive, at most 159 bits', async (t) => {
  t.equal(serialFromRandom(new Uint8Array(20).fill(0xff)), (1n << 159n) - 1n)
  t.equal(serialFromRandom(new Uint8Array(20)), 1n)
  t.throws(() => serialFromRandom(new Uint8Array(19)), RangeError)
})

t.test('validity from 2050 is a GeneralizedTime, and inspect checks the time types', async (t) => {
  const late = decodeCert(buildCert({ ...specOf(decodeCert(CA_CER)), notAfter: new Date('2050-01-01T00:00:00Z') }, ta))
  t.same(late.validityTags, [0x17, 0x18])
  t.same(inspectCert(late), [])
})

t.test('BPKI identity certificates (RFC 8183): self-signed CA and an EE it issued', async (t) => {
  const id = decodeCert(golden('bpki/id-ta.cer'))
  const ee = decodeCert(golden('bpki/id-ee.cer'))
  t.equal(certRole(id), 'bpki-ca')
  t.equal(certRole(ee), 'bpki-ee')
  t.same(inspectCert(id), [])
  t.same(inspectCert(ee), [])
  t.equal(id.extensions.ip, undefined)
  t.equal(id.extensions.sia, undefined)
  t.equal(id.extensions.policies, undefined)
  t.equal(id.extensions.keyUsage?.bits, 96, 'keyCertSign | cRLSign')
  t.equal(ee.extensions.keyUsage?.bits, 1, 'digitalSignature')
  const v = verifyCert(id, 'self', GOLDEN_NOW)
  t.equal(v.profile, 'bpki')
  t.equal(verifyCert(ee, v, GOLDEN_NOW).resources.isEmpty(), true)
  t.same(buildCert(specOf(id, 'bpki'), testKey('objects-bpki-ta')), golden('bpki/id-ta.cer'))
  const r = await openssl(['verify', '-x509_strict', '-CAfile', '{dir}/ta.pem', '{dir}/ee.pem'], { 'ta.pem': pem(golden('bpki/id-ta.cer')), 'ee.pem': pem(golden('bpki/id-ee.cer')) })
  t.equal(r.code, 0, `openssl verify: ${r.stdout}${r.stderr}`)
})

t.test('inspect per role: an EE profile problem set for a CA certificate and the reverse', async (t) => {
  const caAsEe = inspectCert(decodeCert(CA_CER), 'ee').map((p) => p.rule)
  t.ok(caAsEe.includes('RFC 6487 §4.8.1'), 'basicConstraints in an EE')
  t.ok(caAsEe.includes('RFC 6487 §4.8.4'), 'key usage')
  t.ok(caAsEe.includes('RFC 6487 §4.8.8.2'), 'no signedObject')
  const ee = decodeRoa(ROA).ee
  t.same(inspectCert(ee), [])
  const eeAsCa = inspectCert(ee, 'ca').map((p) => p.message)
  t.match(eeAsCa.join('\n'), /cA TRUE[\s\S]*key usage violation[\s\S]*caRepository/)
})

t.test('BER input decodes (re-encoded as DER) and verifies over the received TBS; inspect reports it', async (t) => {
  // The same certificate with the outer SEQUENCE in the indefinite-length form (X.690 §8.1.3.6).
  const der = TA_CER
  const headerLength = der[1] & 0x80 ? 2 + (der[1] & 0x7f) : 2
  const ber = new Uint8Array([0x30, 0x80, ...der.subarray(headerLength), 0, 0])
  const c = decodeCert(ber)
  t.equal(c.encoding, 'ber')
  t.same(c.bytes, der, 'the DER re-encoding is the original DER')
  t.same(verifyCert(c, 'self', GOLDEN_NOW).resources.toString(), verifyCert(decodeCert(der), 'self', GOLDEN_NOW).resources.toString())
  t.match(inspectCert(c), [{ rule: 'RFC 6487 §4', message: 'certificate is not DER encoded' }])
  t.throws(() => decodeCert(der.subarray(0, der.length - 1)), DecodeError, 'truncated DER is not taken for BER')
})

t.test('pkijs parses our certificates and node:crypto verifies the signature over its TBS', async (t) => {
  for (const [name, der, issuer] of [['TA', TA_CER, TA_CER], ['CA', CA_CER, TA_CER]] as const) {
    const asn = asn1js.fromBER(der.slice().buffer as ArrayBuffer)
    t.not(asn.offset, -1, `${name}: BER parse`)
    const cert = new pkijs.Certificate({ schema: asn.result })
    t.equal(cert.version, 2, `${name}: v3`)
    t.equal(cert.extensions?.length, name === 'TA' ? 7 : 10, `${name}: extensions`)
    const key = createPublicKey({ key: Buffer.from(decodeCert(issuer).spki), format: 'der', type: 'spki' })
    t.ok(verify('sha256', new Uint8Array(cert.tbsView), key, new Uint8Array(cert.signatureValue.valueBlock.valueHexView)), `${name}: signature`)
  }
})

t.test('openssl: x509 -text reads them, verify -x509_strict accepts TA → CA → ROA EE (RFC 3779 checked)', async (t) => {
  const text = await openssl(['x509', '-inform', 'DER', '-in', '{dir}/ca.cer', '-noout', '-text'], { 'ca.cer': CA_CER })
  t.equal(text.code, 0)
  t.match(text.stdout, /sbgp-ipAddrBlock: critical\s+IPv4:\s+10\.1\.0\.0-10\.2\.3\.255/)
  t.match(text.stdout, /Certificate Policies: critical\s+Policy: ipAddr-asNumber/)
  const ee = decodeRoa(ROA).ee.bytes
  const r = await openssl(['verify', '-x509_strict', '-CAfile', '{dir}/ta.pem', '-untrusted', '{dir}/ca.pem', '{dir}/ee.pem'], {
    'ta.pem': pem(TA_CER), 'ca.pem': pem(CA_CER), 'ee.pem': pem(ee),
  })
  t.equal(r.code, 0, `openssl verify: ${r.stdout}${r.stderr}`)
  t.match(r.stdout, /ee\.pem: OK/)
})
