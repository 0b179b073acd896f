/** DER writer: exact bytes for every primitive, long lengths, SET OF order, times; asn1js and openssl as oracles. */
import { execFileSync } from 'node:child_process'
import * as asn1js from 'asn1js'
import t from 'tap'
import {
  bitString, bool, EncodeError, explicit, generalizedTime, ia5String, implicit, int, lengthOctets, namedBitString,
  nul, octetString, oid, printableString, retag, seq, seqOf, set, setOf, tlv, uintFromBytes, utcTime, utf8String, x509Time,
} from '../../../src/asn1/der.js'
import { fromHex, toHex } from '../../../src/util/hex.js'

const hex = (b: Uint8Array) => toHex(b).replace(/(..)(?!$)/g, '$1 ')
const h = (s: string) => fromHex(s.replace(/ /g, ''))

t.test('INTEGER: minimal two\'s complement with the sign octet', async (t) => {
  const cases: [number | bigint, string][] = [
    [0, '02 01 00'], [127, '02 01 7f'], [128, '02 02 00 80'], [255, '02 02 00 ff'], [256, '02 02 01 00'],
    [-1, '02 01 ff'], [-128, '02 01 80'], [-129, '02 02 ff 7f'], [65000, '02 03 00 fd e8'],
    [4294967295, '02 05 00 ff ff ff ff'], [-32768, '02 02 80 00'], [-32769, '02 03 ff 7f ff'],
    [Number.MAX_SAFE_INTEGER, '02 07 1f ff ff ff ff ff ff'],
    [2n ** 159n, '02 15 00 80' + ' 00'.repeat(19)], [2n ** 159n - 1n, '02 14 7f' + ' ff'.repeat(19)],
    [-(2n ** 64n), '02 09 ff 00 00 00 00 00 00 00 00'],
  ]
  for (const [v, want] of cases) t.equal(hex(int(v)), want, `int(${v})`)
  t.equal(hex(int(65000n)), '02 03 00 fd e8')
  t.throws(() => int(1.5), EncodeError)
  t.throws(() => int(2 ** 53), EncodeError)
  t.throws(() => int(NaN), EncodeError)
})

t.test('uintFromBytes: leading zeros dropped, sign octet added', async (t) => {
  t.equal(hex(uintFromBytes(h('00 00 01'))), '02 01 01')
  t.equal(hex(uintFromBytes(h('80'))), '02 02 00 80')
  t.equal(hex(uintFromBytes(h('00 00'))), '02 01 00')
  t.equal(hex(uintFromBytes(new Uint8Array(0))), '02 01 00')
  t.equal(hex(uintFromBytes(h('7f ff'))), '02 02 7f ff')
  t.equal(hex(uintFromBytes(h('00 ff ff'))), '02 03 00 ff ff')
})

t.test('lengths: short, long, minimal, up to and beyond 2^32', async (t) => {
  t.equal(hex(lengthOctets(0)), '00')
  t.equal(hex(lengthOctets(127)), '7f')
  t.equal(hex(lengthOctets(128)), '81 80')
  t.equal(hex(lengthOctets(255)), '81 ff')
  t.equal(hex(lengthOctets(256)), '82 01 00')
  t.equal(hex(lengthOctets(65536)), '83 01 00 00')
  t.equal(hex(lengthOctets(2 ** 32 - 1)), '84 ff ff ff ff')
  t.equal(hex(lengthOctets(2 ** 32)), '85 01 00 00 00 00')
  t.equal(hex(lengthOctets(2 ** 40 + 5)), '86 01 00 00 00 00 05')
  t.throws(() => lengthOctets(-1), EncodeError)
  const big = octetString(new Uint8Array(70000))
  t.equal(hex(big.subarray(0, 5)), '04 83 01 11 70')
  t.equal(big.length, 70005)
  t.equal(hex(octetString(new Uint8Array(128)).subarray(0, 3)), '04 81 80')
  t.equal(hex(octetString(new Uint8Array(127)).subarray(0, 2)), '04 7f')
})

t.test('TLV, SEQUENCE, SET, tags', async (t) => {
  t.equal(hex(seq(int(1), nul())), '30 05 02 01 01 05 00')
  t.equal(hex(seq()), '30 00')
  t.equal(hex(seqOf([int(1), nul()])), '30 05 02 01 01 05 00')
  t.equal(hex(set(int(2), int(1))), '31 06 02 01 02 02 01 01')
  t.equal(hex(tlv(0x04, [h('01'), h('02 03')])), '04 03 01 02 03')
  t.equal(hex(explicit(0, int(2))), 'a0 03 02 01 02')
  t.equal(hex(explicit(3, [int(1), int(2)])), 'a3 06 02 01 01 02 01 02')
  t.equal(hex(implicit(0, h('aa bb'))), '80 02 aa bb')
  t.equal(hex(implicit(1, int(5), true)), 'a1 03 02 01 05')
  const s = setOf([int(1)])
  const r = retag(s, 0xa0)
  t.equal(hex(r), 'a0 03 02 01 01')
  t.equal(s[0], 0x31, 'retag copies')
  t.throws(() => tlv(0x1f, new Uint8Array(0)), EncodeError)
  t.throws(() => tlv(256, new Uint8Array(0)), EncodeError)
  t.throws(() => explicit(31, int(1)), EncodeError)
})

t.test('SET OF is sorted by encoding (X.690 §11.6); inputs are not mutated', async (t) => {
  const items = [octetString(h('02')), int(1), octetString(h('01 00')), octetString(h('01'))]
  const before = items.map(hex)
  t.equal(hex(setOf(items)), '31 0d 02 01 01 04 01 01 04 01 02 04 02 01 00')
  t.same(items.map(hex), before)
  // The three CMS signed attributes always sort content-type, signing-time, message-digest (rpki-encoding.md §2.6).
  const ct = seq(oid('1.2.840.113549.1.9.3'), set(oid('1.2.840.113549.1.9.16.1.24')))
  const st = seq(oid('1.2.840.113549.1.9.5'), set(utcTime(new Date('2026-01-01T00:00:00Z'))))
  const md = seq(oid('1.2.840.113549.1.9.4'), set(octetString(new Uint8Array(32))))
  t.same(setOf([md, st, ct]), setOf([ct, st, md]))
  t.same([...setOf([md, st, ct]).subarray(2, 4)], [0x30, 0x1a])
})

t.test('OBJECT IDENTIFIER', async (t) => {
  t.equal(hex(oid('1.2.840.113549.1.1.11')), '06 09 2a 86 48 86 f7 0d 01 01 0b')
  t.equal(hex(oid('2.16.840.1.101.3.4.2.1')), '06 09 60 86 48 01 65 03 04 02 01')
  t.equal(hex(oid('1.2.840.113549.1.9.16.1.24')), '06 0b 2a 86 48 86 f7 0d 01 09 10 01 18')
  t.equal(hex(oid('1.3.6.1.5.5.7.1.7')), '06 08 2b 06 01 05 05 07 01 07')
  t.equal(hex(oid('2.5.29.14')), '06 03 55 1d 0e')
  t.equal(hex(oid('2.999.3')), '06 03 88 37 03')
  t.equal(hex(oid('0.0')), '06 01 00')
  t.equal(hex(oid('1.2.18446744073709551616')), '06 0b 2a 82 80 80 80 80 80 80 80 80 00')
  const a = oid('2.5.29.14')
  a[2] = 0
  t.equal(hex(oid('2.5.29.14')), '06 03 55 1d 0e', 'the cache is not exposed to mutation')
  for (const bad of ['1', '3.1', '1.40', '1.2.', '1..2', '01.2', 'a.b', '']) t.throws(() => oid(bad), EncodeError, bad)
})

t.test('BIT STRING: unused bits and zero pad bits', async (t) => {
  t.equal(hex(bitString(h('06'), 1)), '03 02 01 06')
  t.equal(hex(bitString(h('80'), 7)), '03 02 07 80')
  t.equal(hex(bitString(h('0a 00 00 7f'), 7)), '03 05 07 0a 00 00 00', 'pad bits written as zero (RFC 3779 max)')
  t.equal(hex(bitString(new Uint8Array(0))), '03 01 00')
  t.equal(hex(bitString(h('ab cd'))), '03 03 00 ab cd')
  t.throws(() => bitString(new Uint8Array(0), 1), EncodeError)
  t.throws(() => bitString(h('00'), 8), EncodeError)
  t.equal(hex(namedBitString(h('06'))), '03 02 01 06', 'keyUsage keyCertSign|cRLSign')
  t.equal(hex(namedBitString(h('80'))), '03 02 07 80', 'keyUsage digitalSignature')
  t.equal(hex(namedBitString(h('80 00'))), '03 02 07 80')
  t.equal(hex(namedBitString(h('00'))), '03 01 00')
})

t.test('BOOLEAN, NULL, OCTET STRING, strings', async (t) => {
  t.equal(hex(bool(true)), '01 01 ff')
  t.equal(hex(bool(false)), '01 01 00')
  t.equal(hex(nul()), '05 00')
  t.equal(hex(octetString(h('00 01'))), '04 02 00 01')
  t.equal(hex(printableString("AZaz09 '()+,-./:=?")), '13 12 41 5a 61 7a 30 39 20 27 28 29 2b 2c 2d 2e 2f 3a 3d 3f')
  for (const bad of ['a@b', 'a_b', 'é', 'a*', 'a\n', 'a;b', 'a&b', 'a!']) t.throws(() => printableString(bad), EncodeError, bad)
  t.equal(hex(ia5String('rsync://x/')), '16 0a 72 73 79 6e 63 3a 2f 2f 78 2f')
  t.throws(() => ia5String('é'), EncodeError)
  t.equal(hex(utf8String('é€')), '0c 05 c3 a9 e2 82 ac')
  t.equal(hex(utf8String('😀')), '0c 04 f0 9f 98 80')
  t.throws(() => utf8String('a\ud800b'), EncodeError)
})

t.test('times: whole seconds, Z, UTCTime through 2049, GeneralizedTime from 2050', async (t) => {
  const d2049 = new Date('2049-12-31T23:59:59.999Z')
  t.equal(Buffer.from(utcTime(d2049).subarray(2)).toString('latin1'), '491231235959Z')
  t.equal(hex(utcTime(d2049)), '17 0d 34 39 31 32 33 31 32 33 35 39 35 39 5a')
  t.equal(Buffer.from(x509Time(d2049)).toString('latin1').slice(2), '491231235959Z')
  const d2050 = new Date('2050-01-01T00:00:00Z')
  t.equal(hex(x509Time(d2050)), '18 0f 32 30 35 30 30 31 30 31 30 30 30 30 30 30 5a')
  t.throws(() => utcTime(d2050), EncodeError)
  t.throws(() => utcTime(new Date('1949-12-31T23:59:59Z')), EncodeError)
  t.equal(Buffer.from(utcTime(new Date('1950-01-01T00:00:00Z')).subarray(2)).toString(), '500101000000Z')
  t.equal(Buffer.from(generalizedTime(new Date('2026-03-04T05:06:07.890Z')).subarray(2)).toString(), '20260304050607Z')
  t.equal(Buffer.from(x509Time(new Date('1949-06-01T00:00:00Z')).subarray(2)).toString(), '19490601000000Z')
  t.throws(() => generalizedTime(new Date(NaN)), EncodeError)
  t.throws(() => x509Time(new Date(NaN)), EncodeError)
})

t.test('asn1js parses what the writer makes, with the same values', async (t) => {
  const der = seq(
    int(-129), int(2n ** 159n), uintFromBytes(h('ff ee')), bool(true), nul(), oid('1.2.840.113549.1.9.16.1.24'),
    bitString(h('06'), 1), octetString(new Uint8Array(300).fill(7)), printableString('CA 1'), ia5String('x'),
    utf8String('é'), utcTime(new Date('2030-01-02T03:04:05Z')), generalizedTime(new Date('2051-01-02T03:04:05Z')),
    explicit(0, int(2)), setOf([int(3), int(1)]),
  )
  const r = asn1js.fromBER(der.slice().buffer)
  t.equal(r.offset, der.length)
  const v = (r.result as asn1js.Sequence).valueBlock.value
  t.equal((v[0] as asn1js.Integer).valueBlock.valueDec, -129)
  t.equal((v[1] as asn1js.Integer).toBigInt(), 2n ** 159n)
  t.equal((v[2] as asn1js.Integer).toBigInt(), 0xffeen)
  t.equal((v[3] as asn1js.Boolean).getValue(), true)
  t.equal((v[5] as asn1js.ObjectIdentifier).getValue(), '1.2.840.113549.1.9.16.1.24')
  t.equal((v[6] as asn1js.BitString).valueBlock.unusedBits, 1)
  t.equal((v[7] as asn1js.OctetString).valueBlock.valueHexView.length, 300)
  t.equal((v[8] as asn1js.PrintableString).getValue(), 'CA 1')
  t.equal((v[10] as asn1js.Utf8String).getValue(), 'é')
  t.equal((v[11] as asn1js.UTCTime).toDate().toISOString(), '2030-01-02T03:04:05.000Z')
  t.equal((v[12] as asn1js.GeneralizedTime).toDate().toISOString(), '2051-01-02T03:04:05.000Z')
  // asn1js re-encodes it to the very same bytes.
  t.equal(toHex(new Uint8Array(r.result.toBER())), toHex(der))
})

t.test('openssl asn1parse reads what the writer makes', async (t) => {
  const der = seq(int(65000), oid('1.3.6.1.5.5.7.14.2'), bitString(h('0a 00 00 7f'), 7), octetString(new Uint8Array(200)),
    x509Time(new Date('2050-05-05T05:05:05Z')), utcTime(new Date('2049-05-05T05:05:05Z')), printableString('A'))
  let out: string
  try {
    out = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-i'], { input: der }).toString()
  } catch {
    t.comment('openssl not available: skipped')
    return
  }
  t.match(out, /INTEGER\s+:FDE8/)
  t.match(out, /OBJECT\s+:ipAddr-asNumber/)
  t.match(out, /hl=3 l= 200 prim:\s+OCTET STRING/)
  t.match(out, /GENERALIZEDTIME\s+:20500505050505Z/)
  t.match(out, /UTCTIME\s+:490505050505Z/)
  t.match(out, /PRINTABLESTRING\s+:A/)
  t.notMatch(out, /error/i)
})
