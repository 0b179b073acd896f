/** ROAs (RFC 9582): exact eContent, canonical form, the EE's resources, inspection rules, verification. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { bitString, explicit, int, octetString, seq, seqOf } from '../../../src/asn1/der.js'
import { idCtRouteOriginAuthz } from '../../../src/asn1/oids.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks, parsePrefix } from '../../../src/resources/ip.js'
import { formatRoaPayload } from '../../../src/resources/roa-payload.js'
import { decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { errorsOf } from '../../../src/objects/problem.js'
import { buildRoa, canonicalRoaPayloads, decodeRoa, encodeRoaContent, inspectRoa, verifyRoa } from '../../../src/objects/roa.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_NOW, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { handMadeObject } from '../../helpers/signed-objects.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ca = testKey('rpki-ca')
const issuerCert = verifyCert(decodeCert(golden(`sample/repo/ta/${ca.keyId}.cer`)), verifyCert(decodeCert(golden('sample/ta/ta.cer')), 'self', GOLDEN_NOW), GOLDEN_NOW)
const issuer = { key: ca, name: ca.keyId, crlUri: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, certUri: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer` }
const ee = { serial: 5n, uri: `${GOLDEN_BASE}repo/ca/x.roa`, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM }
const p = (s: string) => parsePrefix(s)
const errorRules = (bytes: Uint8Array): string[] => [...new Set(errorsOf(inspectRoa(decodeRoa(bytes))).map((x) => x.rule))]

t.test('AS65001: exact eContent (version omitted, maxLength only where longer), EE with exactly the prefixes', async (t) => {
  const roa = decodeRoa(golden('sample/repo/ca/AS65001.roa'))
  t.equal(toHex(roa.signedObject.eContent), '3022020300fde9301b3019040200013013300603040 00a01003009030400 0a010102011a'.replace(/ /g, ''))
  t.equal(roa.asn, 65001)
  t.same(roa.payloads.map(formatRoaPayload), ['10.1.0.0/24 => 65001', '10.1.1.0/24-26 => 65001'])
  t.same(roa.families.map((f) => f.addresses.map((a) => a.maxLength)), [[undefined, 26]])
  t.equal(roa.ee.extensions.ip?.ipv4?.toString(), '10.1.0.0/23', 'EE: exactly the ROA prefixes, merged')
  t.equal(roa.ee.extensions.ip?.ipv6, undefined, 'no IPv6 family')
  t.equal(roa.ee.extensions.as, undefined, 'no AS resources')
  t.same(inspectRoa(roa), [])
  t.equal(verifyRoa(roa, issuerCert, GOLDEN_NOW).resources.ipv4.toString(), '10.1.0.0/23')
})

t.test('IPv4 before IPv6; IPv6 prefixes with max length; IPv6-only ROAs', async (t) => {
  const mixed = decodeRoa(golden('sample/repo/ca/AS65002.roa'))
  t.same(mixed.families.map((f) => f.afi), [1, 2])
  t.same(mixed.payloads.map(formatRoaPayload), ['10.2.0.0/22 => 65002', '2001:db8:1::/48-56 => 65002'])
  t.same(inspectRoa(mixed), [])
  const v6 = decodeRoa(golden('sample/repo/ca/AS65003.roa'))
  t.same(v6.families.map((f) => f.afi), [2])
  t.equal(v6.ee.extensions.ip?.ipv4, undefined)
  t.same(inspectRoa(v6), [])
})

t.test('the canonical form: sorted, deduplicated, maxLength omitted when equal to the prefix length', async (t) => {
  const messy = { asn: 65001, prefixes: [
    { prefix: p('2001:db8::/32'), maxLength: 48 }, { prefix: p('10.1.1.0/24'), maxLength: 24 }, { prefix: p('10.1.0.0/24') },
    { prefix: p('10.1.0.0/24'), maxLength: 24 }, { prefix: p('10.0.0.0/16'), maxLength: 20 }, { prefix: p('10.0.0.0/16'), maxLength: 18 },
  ] }
  const payloads = canonicalRoaPayloads(messy)
  t.same(payloads.map(formatRoaPayload), ['10.0.0.0/16-18 => 65001', '10.0.0.0/16-20 => 65001', '10.1.0.0/24 => 65001', '10.1.1.0/24 => 65001', '2001:db8::/32-48 => 65001'])
  const roa = decodeRoa(buildRoa(messy, testKey('rpki-ee-1'), issuer, ee))
  t.same(roa.families[0].addresses.map((a) => a.maxLength), [18, 20, undefined, undefined])
  t.same(roa.signedObject.eContent, encodeRoaContent(payloads))
  t.same(inspectRoa(roa).filter((x) => x.rule !== 'RFC 9582 §5'), [], 'no canonical-form note')
})

t.test('buildRoa refuses what RFC 9582 forbids', async (t) => {
  const k = testKey('rpki-ee-1')
  throwsRule(t, () => buildRoa({ asn: 1, prefixes: [{ prefix: p('10.0.0.0/24'), maxLength: 23 }] }, k, issuer, ee), 'RFC 9582 §4.3.2.2', { message: /shorter/ })
  throwsRule(t, () => buildRoa({ asn: 1, prefixes: [{ prefix: p('10.0.0.0/24'), maxLength: 33 }] }, k, issuer, ee), 'RFC 9582 §4.3.2.2', { message: /longer than 32/ })
  throwsRule(t, () => buildRoa({ asn: 1, prefixes: [{ prefix: p('2001:db8::/32'), maxLength: 129 }] }, k, issuer, ee), 'RFC 9582 §4.3.2.2')
  throwsRule(t, () => buildRoa({ asn: 1, prefixes: [] }, k, issuer, ee), 'RFC 9582 §4.3')
  throwsRule(t, () => buildRoa({ asn: 2 ** 32, prefixes: [{ prefix: p('10.0.0.0/8') }] }, k, issuer, ee), 'RFC 9582 §4.2')
})

/** A ROA eContent written by hand: asID and families of [afi octets, addresses]. */
function content(asn: number, families: [Uint8Array, Uint8Array[]][], version?: number): Uint8Array {
  const v = version === undefined ? [] : [explicit(0, int(version))]
  return seq(...v, int(asn), seqOf(families.map(([afi, addrs]) => seq(octetString(afi), seqOf(addrs)))))
}
const V4 = Uint8Array.of(0, 1), V6 = Uint8Array.of(0, 2)
const a24 = (b: number, max?: number) => seq(bitString(Uint8Array.of(10, 1, b)), ...(max === undefined ? [] : [int(max)]))
const EE_V4 = { ipv4: IpBlocks.parse('10.1.0.0/16', 4) }

t.test('inspect: every ipAddrBlocks rule of RFC 9582 §4.3 and the EE rules of §5', async (t) => {
  const roa = (c: Uint8Array, res: object = EE_V4) => handMadeObject(idCtRouteOriginAuthz, c, res)
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]]]))), [])
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]], [V4, [a24(1)]]]))), ['RFC 9582 §4.3.1'], 'IPv4 appears twice')
  t.match(inspectRoa(decodeRoa(roa(content(65001, [[V4, [a24(0)]], [V4, [a24(1)]]])))).map((x) => x.message), ['IPv4 appears twice'])
  t.same(errorRules(roa(content(65001, [[Uint8Array.of(0, 3), [a24(0)]]]))), ['RFC 9582 §4.3'], 'unknown AFI')
  t.same(errorRules(roa(content(65001, [[Uint8Array.of(0, 1, 1), [a24(0)]]]))), ['RFC 9582 §4.3'], 'a SAFI')
  t.same(errorRules(roa(content(65001, [[V4, []]]))), ['RFC 9582 §4.3.1'], 'empty family')
  t.same(errorRules(roa(content(65001, []))), ['RFC 9582 §4.3'], 'no family')
  t.same(errorRules(roa(content(65001, [[V4, [a24(0, 16)]]]))), ['RFC 9582 §4.3.2.2'], 'maxLength below the prefix length')
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]]], 1))), ['RFC 9582 §4.1'], 'version 1')
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]]], 0))), ['X.690 §11.5'], 'DEFAULT version written')
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]]]), { ipv4: 'inherit' })), ['RFC 9582 §5'], 'EE inherits')
  t.same(errorRules(roa(content(65001, [[V4, [a24(0)]]]), { ipv4: IpBlocks.parse('10.2.0.0/16', 4) })), ['RFC 9582 §5'], 'prefix not covered by the EE')
  const withAs = inspectRoa(decodeRoa(roa(content(65001, [[V4, [a24(0)]]]), { ...EE_V4, asn: AsBlocks.parse('AS65001') })))
  t.same(withAs.map((x) => [x.severity, x.message]), [['note', 'superfluous AS Resources extension present']], 'AS resources in the EE: a note (RFC 6482-era objects carry them)')
  const unsorted = inspectRoa(decodeRoa(roa(content(65001, [[V4, [a24(1), a24(0)]]]))))
  t.same(unsorted.map((x) => [x.severity, x.rule]), [['note', 'RFC 9582 §4.3.3']], 'unsorted: a note of the canonical form')
  const v6First = inspectRoa(decodeRoa(roa(content(65001, [[V6, [seq(bitString(Uint8Array.of(0x20, 0x01, 0x0d, 0xb8)))]], [V4, [a24(0)]]]), { ...EE_V4, ipv6: IpBlocks.parse('2001:db8::/32', 6) })))
  t.same(v6First.map((x) => x.message), ['IPv6 family before IPv4'])
})

t.test('decode rejects what is not a ROA', async (t) => {
  throwsRule(t, () => decodeRoa(golden(`sample/repo/ca/${ca.keyId}.mft`)), 'RFC 9582 §3', { name: 'DecodeError', message: /id-ct-rpkiManifest/ })
  throwsRule(t, () => decodeRoa(handMadeObject(idCtRouteOriginAuthz, content(65001, [[V4, [seq(bitString(new Uint8Array(5)))]]]), EE_V4)), 'RFC 9582 §4.3.2.1', { message: /40 bits/ })
  throwsRule(t, () => decodeRoa(handMadeObject(idCtRouteOriginAuthz, seq(int(-1), seqOf([])), EE_V4)), 'RFC 9582 §4.2')
})

t.test('verifyRoa: a prefix outside the EE resources fails', async (t) => {
  const bytes = handMadeObject(idCtRouteOriginAuthz, content(65001, [[V4, [a24(0)]]]), { ipv4: IpBlocks.parse('10.1.1.0/24', 4) })
  throwsRule(t, () => verifyRoa(decodeRoa(bytes), issuerCert, GOLDEN_NOW), 'RFC 9582 §5', { name: 'VerificationError', message: /10\.1\.0\.0\/24/ })
})

t.test('real ROAs: RIPE NCC unsorted, APNIC EE ranges and explicit maxLength, rpkid; notes only', { skip: NO_SHARED }, async (t) => {
  const read = (f: string) => decodeRoa(new Uint8Array(readFileSync(sharedFixture('objects', f)!)))
  const ripe = read('rir/ripencc/IGUhqMPsmuguPLDT3XZl_hGfvS0.roa')
  t.equal(ripe.asn, 56911)
  t.equal(ripe.payloads.length, 4)
  t.same(errorsOf(inspectRoa(ripe)), [])
  t.ok(inspectRoa(ripe).some((x) => x.message === 'IPv4 addresses are not sorted and unique'))
  const apnic = read('rir/apnic/557B4C46969B11E681906146C4F9AE02.roa')
  t.ok(apnic.payloads.length > 30)
  t.same(errorsOf(inspectRoa(apnic)), [])
  const rpkid = read('rgnet-rpkid-2019/ca.rg.net/rpki/RGnet-OU/Hf1ZR31W9DN5QSF6xJEO5qgH4ac.roa')
  t.equal(rpkid.asn, 3130)
  t.same(inspectRoa(rpkid), [])
  const ripeV6 = read('rir/ripencc/YYecYKU1I6R-hHpxDrOH7_zzyVw.roa')
  t.same(ripeV6.payloads.map(formatRoaPayload), ['2a0c:b642:fc0::/43 => 209870'])
})
