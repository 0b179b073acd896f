/**
 * Issue 12 item 2, the object side of the audit against current RFCs: one test per rule, named after its section,
 * pinning the exact bytes svc writes (fixed keys, fixed times) and the profile checks that guard them.
 */
import t from 'tap'
import { explicit, int, seq, seqOf } from '../../../src/asn1/der.js'
import * as oids from '../../../src/asn1/oids.js'
import { buildAspa, canonicalProviders, decodeAspa, encodeAspaContent, inspectAspa } from '../../../src/objects/aspa.js'
import { buildCert } from '../../../src/objects/cert.js'
import { buildCrl, decodeCrl, inspectCrl } from '../../../src/objects/crl.js'
import { buildRoa, canonicalRoaPayloads, decodeRoa, encodeRoaContent, inspectRoa } from '../../../src/objects/roa.js'
import { encodeSignedAttrs } from '../../../src/objects/signed-attributes.js'
import { encodeSignedData, type ObjectIssuer } from '../../../src/objects/signed-object.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { parsePrefix } from '../../../src/resources/ip.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'

const hex = (b: Uint8Array): string => toHex(b)
const ca = testKey('rpki-ca')
const T = new Date('2026-01-01T00:00:00Z')
const issuer: ObjectIssuer = { key: ca, name: ca.keyId, crlUri: 'rsync://localhost/repo/ca/ca.crl', certUri: 'rsync://localhost/repo/ta/ca.cer' }
const ee = (uri: string) => ({ serial: 5n, uri, notBefore: T, notAfter: new Date('2027-01-01T00:00:00Z'), signingTime: T })

t.test('RFC 9589 §4: signed attributes are exactly content-type, signing-time (UTCTime) and message-digest, DER order', async (t) => {
  const digest = new Uint8Array(32).fill(0xab)
  const want =
    '316b' +
    '301a' + '06092a864886f70d010903' + '310d' + '060b2a864886f70d0109100118' +
    '301c' + '06092a864886f70d010905' + '310f' + '170d3236303130313030303030305a' +
    '302f' + '06092a864886f70d010904' + '3122' + '0420' + 'ab'.repeat(32)
  t.equal(hex(encodeSignedAttrs(oids.idCtRouteOriginAuthz, digest, T)), want)
  const roa = decodeRoa(buildRoa({ asn: 65001, prefixes: [{ prefix: parsePrefix('10.1.0.0/24') }] }, testKey('rpki-ee-1'), issuer, ee('rsync://localhost/repo/ca/a.roa')))
  const attrs = roa.signedObject.signerInfos[0]!.signedAttrs!
  t.same(attrs.attributes.map((a) => a.type), [oids.contentType, oids.signingTime, oids.messageDigest], 'exactly the three, in DER order')
  t.ok(attrs.attributes.every((a) => a.values.length === 1), 'one value each')
  t.equal(roa.signedObject.attributes.signingTimeTag, 0x17, 'UTCTime')
  t.same(inspectRoa(roa), [])
})

t.test('RFC 5652 §11.3 (RFC 9589 §4): a signing-time from 2050 on is a GeneralizedTime', async (t) => {
  const attrs = encodeSignedAttrs(oids.idCtRouteOriginAuthz, new Uint8Array(32), new Date('2050-01-01T00:00:00Z'))
  t.match(hex(attrs), /06092a864886f70d0109053111180f32303530303130313030303030305a/)
})

t.test('RFC 9829 §2, RFC 6487 §5: a CRL has exactly AKI and a non-critical CRL number of at most 20 octets', async (t) => {
  const der = buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: new Date('2026-01-02T00:00:00Z'), crlNumber: 42n, revoked: [] }, ca)
  const exts = 'a02f302d' + '301f0603551d23041830168014' + hex(ca.ski) + '300a0603551d140403' + '02012a'
  t.match(hex(der), new RegExp(`${exts}300d06092a864886f70d01010b0500`), 'crlExtensions: AKI [0] keyIdentifier, then CRL number 42, neither critical')
  const crl = decodeCrl(der)
  t.same(crl.extensions.list.map((e) => [e.oid, e.critical]), [[oids.authorityKeyIdentifier, false], [oids.cRLNumber, false]])
  t.same(inspectCrl(crl), [])
  const max = decodeCrl(buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: T, crlNumber: (1n << 159n) - 1n, revoked: [] }, ca))
  t.equal(max.extensions.crlNumber?.octets, 20, '2^159-1 is the largest CRL number: 20 octets')
  t.same(inspectCrl(max), [])
  t.throws(() => buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: T, crlNumber: 1n << 159n, revoked: [] }, ca), /RFC 5280 §5\.2\.3/)
  t.throws(() => buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: T, crlNumber: -1n, revoked: [] }, ca), /RFC 5280 §5\.2\.3/)
})

t.test('RFC 5280 §5.1.2.6: revokedCertificates is left out when empty (never an empty SEQUENCE); entries keep their date', async (t) => {
  const next = new Date('2026-01-02T00:00:00Z')
  const empty = buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: next, crlNumber: 1n, revoked: [] }, ca)
  // nextUpdate, then directly the [0] crlExtensions: no 30 00 in between.
  t.match(hex(empty), /170d3236303130323030303030305aa02f/)
  t.equal(decodeCrl(empty).revokedForm, 'absent')
  const revokedAt = new Date('2026-01-01T13:14:15Z')
  const one = decodeCrl(buildCrl({ issuerName: ca.keyId, thisUpdate: T, nextUpdate: next, crlNumber: 2n, revoked: [{ serial: 99n, revocationDate: revokedAt }] }, ca))
  t.same(one.revoked.map((r) => [r.serial, r.revocationDate.toISOString()]), [[99n, revokedAt.toISOString()]])
  t.notOk(one.revoked[0]!.hasExtensions, 'no entry extensions (RFC 6487 §5)')
})

t.test('RFC 9582 §4: ROA eContent: version left out, IPv4 first, sorted and deduplicated, maxLength only when longer', async (t) => {
  const payloads = canonicalRoaPayloads({
    asn: 65001,
    prefixes: [
      { prefix: parsePrefix('2001:db8::/48'), maxLength: 48 }, { prefix: parsePrefix('10.1.1.0/24'), maxLength: 26 },
      { prefix: parsePrefix('10.1.0.0/24') }, { prefix: parsePrefix('10.1.0.0/24'), maxLength: 24 },
    ],
  })
  const want = '3035' + '020300fde9' + '302e' +
    '3019' + '04020001' + '3013' + '3006' + '0304000a0100' + '3009' + '0304000a0101' + '02011a' +
    '3011' + '04020002' + '300b' + '3009' + '03070020010db80000'
  t.equal(hex(encodeRoaContent(payloads)), want)
  t.throws(() => canonicalRoaPayloads({ asn: 65001, prefixes: [{ prefix: parsePrefix('10.1.0.0/24'), maxLength: 33 }] }), /RFC 9582 §4\.3\.2\.2/)
  t.throws(() => canonicalRoaPayloads({ asn: 65001, prefixes: [{ prefix: parsePrefix('10.1.0.0/24'), maxLength: 23 }] }), /RFC 9582 §4\.3\.2\.2/)
  const roa = decodeRoa(buildRoa({ asn: 65001, prefixes: [{ prefix: parsePrefix('10.1.0.0/24') }] }, testKey('rpki-ee-2'), issuer, ee('rsync://localhost/repo/ca/b.roa')))
  t.equal(roa.ee.extensions.as, undefined, 'RFC 9582 §4.2: no AS resources in the EE certificate')
  t.equal(roa.ee.extensions.ip?.ipv4?.toString(), '10.1.0.0/24', 'explicit IP resources, exactly the prefixes')
})

t.test('draft-ietf-sidrops-aspa-profile-22 §3: providers ascending and unique, customer not among them, AS0 only alone', async (t) => {
  t.equal(hex(encodeAspaContent({ customer: 65001, providers: [65003, 65002, 65003] })), '3016a003020101020300fde9300a020300fdea020300fdeb', 'version [0] 1, customer, providers sorted and unique')
  t.same(canonicalProviders({ customer: 65001, providers: [0] }), [0], 'AS0 alone: "no provider"')
  t.throws(() => canonicalProviders({ customer: 65001, providers: [0, 65002] }), /§3\.3: AS0 \(no provider\) can only be the sole provider/)
  t.throws(() => canonicalProviders({ customer: 65001, providers: [65001, 65002] }), /§3\.3: the customer AS65001 cannot be its own provider/)
  t.throws(() => canonicalProviders({ customer: 65001, providers: [] }), /§3\.3/)
  // What inspect says of an ASPA that breaks all three (written by hand: the builder refuses it).
  const eContent = seq(explicit(0, int(1)), int(65001), seqOf([int(65003), int(65002), int(65002), int(65001), int(0)]))
  const eeKey = testKey('rpki-ee-3')
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 9n, issuerName: ca.keyId, subjectName: eeKey.keyId, subjectSpki: eeKey.spki, notBefore: T, notAfter: new Date('2027-01-01T00:00:00Z'),
    crldp: issuer.crlUri, aia: issuer.certUri, sia: { signedObject: 'rsync://localhost/repo/ca/AS65001.asa' }, resources: { asn: AsBlocks.parse('AS65001') },
  }, ca)
  const bad = decodeAspa(encodeSignedData(oids.idCtAspa, eContent, eeCert, eeKey, T))
  const rules = inspectAspa(bad).map((p) => p.message)
  t.same(rules, ['providers are not in ascending order without duplicates', 'the customer AS65001 is listed as its own provider', 'AS0 is listed together with other providers'])
  const good = decodeAspa(buildAspa({ customer: 65001, providers: [0] }, testKey('rpki-ee-4'), issuer, ee('rsync://localhost/repo/ca/AS65001.asa')))
  t.same(inspectAspa(good), [])
})
