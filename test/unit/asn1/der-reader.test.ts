/** Strict DER reader: round trips with the writer, every strictness rule with its rule text, budgets, fixtures. */
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import {
  bitString, bool, explicit, generalizedTime, ia5String, int, nul, octetString, oid, printableString, seq, seqOf, setOf,
  utcTime, utf8String,
} from '../../../src/asn1/der.js'
import {
  checkDer, children, contentEquals, DerCursor, expectSequence, expectTag, firstChild, nextSibling, oidIs, parseDer,
  parseEmbedded, readBigInt, readBitString, readBool, readGeneralizedTime, readInt, readIntegerContent,
  readNamedBitString, readNull, readOctetString, readOid, readString, readStringOf, readTime, readUint32, readUtcTime,
  readX509Time, setOfChildren,
} from '../../../src/asn1/der-reader.js'
import { DecodeError } from '../../../src/util/errors.js'
import { fromHex } from '../../../src/util/hex.js'
import { noHang } from '../../helpers/no-hang.js'

const h = (s: string) => fromHex(s.replace(/ /g, ''))
const one = (s: string) => parseDer(h(s))
const FIXTURES = '/work/shared/fixtures'

/** Assert a DecodeError whose rule is `rule`. */
function rejects(t: Test, f: () => unknown, rule: string, msg?: string): void {
  try {
    f()
    t.fail(`expected DecodeError ${rule}${msg ? ` (${msg})` : ''}`)
  } catch (e) {
    t.ok(e instanceof DecodeError, `DecodeError ${msg ?? ''}`)
    t.equal((e as DecodeError).rule, rule, msg ?? rule)
  }
}

t.test('node shape and navigation', async (t) => {
  const der = seq(int(5), explicit(0, octetString(h('aa bb'))), nul())
  const root = parseDer(der)
  t.match(root, { tag: 0x30, cls: 0, constructed: true, number: 16, start: 0, headerLength: 2, length: 11, end: 13 })
  const a = firstChild(root)!
  t.equal(readInt(a), 5)
  const b = nextSibling(a)!
  t.match(b, { tag: 0xa0, cls: 2, constructed: true, number: 0, start: 5, depth: 1 })
  t.same([...readOctetString(firstChild(b)!)], [0xaa, 0xbb])
  const c = nextSibling(b)!
  t.equal(readNull(c), null)
  t.equal(nextSibling(c), undefined)
  t.equal(children(root).length, 3)
  t.same([...c.raw()], [5, 0])
  t.equal(firstChild(parseDer(seq())), undefined)
})

t.test('cursor: required, optional, end', async (t) => {
  const root = parseDer(seq(explicit(0, int(2)), int(7), oid('2.5.29.14'), bool(true)))
  const c = expectSequence(root, 'RFC 5280 §4.1')
  t.ok(c instanceof DerCursor)
  t.equal(readInt(firstChild(c.optional(0xa0)!)!), 2)
  t.equal(c.optional(0xa1), undefined)
  t.equal(readInt(c.next('RFC 5280 §4.1', 0x02)), 7)
  t.ok(oidIs(c.peek()!, '2.5.29.14'))
  t.notOk(oidIs(c.peek()!, '2.5.29.15'))
  t.equal(readOid(c.next('x')), '2.5.29.14')
  rejects(t, () => c.end('RFC 5280 §4.1'), 'RFC 5280 §4.1', 'left-over element')
  t.equal(c.rest().length, 1)
  t.ok(c.done())
  rejects(t, () => c.next('RFC 9582 §4', 0x02), 'RFC 9582 §4', 'missing element')
  rejects(t, () => expectSequence(parseDer(int(1)), 'RFC 6488 §2'), 'RFC 6488 §2', 'not a SEQUENCE')
  rejects(t, () => expectTag(undefined, 0x02, 'RFC 6488 §2'), 'RFC 6488 §2', 'missing')
  rejects(t, () => new DerCursor(parseDer(seq(int(1)))).next('R', 0x04), 'R', 'wrong tag')
})

t.test('values round trip through the writer', async (t) => {
  for (const v of [0, 127, 128, 255, 256, -1, -128, -129, 65000, 4294967295, -(2 ** 40), Number.MAX_SAFE_INTEGER]) {
    t.equal(readInt(parseDer(int(v))), v, `int ${v}`)
  }
  for (const v of [0n, 2n ** 159n, -(2n ** 100n) - 7n, 2n ** 64n]) t.equal(readBigInt(parseDer(int(v))), v)
  rejects(t, () => readInt(parseDer(int(2n ** 60n))), 'X.690 §8.3', 'too large for a number')
  t.equal(readUint32(parseDer(int(4294967295))), 4294967295)
  rejects(t, () => readUint32(parseDer(int(4294967296)), 'RFC 3779 §3.2.3.1'), 'RFC 3779 §3.2.3.1')
  rejects(t, () => readUint32(parseDer(int(-1)), 'RFC 3779 §3.2.3.1'), 'RFC 3779 §3.2.3.1')
  t.same([...readIntegerContent(parseDer(int(128)))], [0, 128])
  t.equal(readBool(parseDer(bool(true))), true)
  t.equal(readBool(parseDer(bool(false))), false)
  for (const o of ['1.2.840.113549.1.9.16.1.24', '2.999.3', '0.0', '1.2.18446744073709551616', '2.5.29.14', '2.100000000000000000']) {
    t.equal(readOid(parseDer(oid(o))), o, o)
    t.equal(readOid(parseDer(oid(o))), o, `${o} (cached)`)
  }
  t.same(readBitString(parseDer(bitString(h('06'), 1))), { bytes: h('06'), unusedBits: 1 })
  t.same(readNamedBitString(parseDer(bitString(h('80'), 7))), { bytes: h('80'), unusedBits: 7 })
  t.equal(readString(parseDer(printableString('CA 1'))), 'CA 1')
  t.equal(readString(parseDer(ia5String('rsync://a/b'))), 'rsync://a/b')
  t.equal(readString(parseDer(utf8String('é😀'))), 'é😀')
  t.equal(readStringOf(parseDer(printableString('X')), 0x13, 'RFC 6487 §4.4'), 'X')
  rejects(t, () => readStringOf(parseDer(utf8String('X')), 0x13, 'RFC 6487 §4.4'), 'RFC 6487 §4.4')
  const d = new Date('2049-12-31T23:59:59Z'), g = new Date('2050-01-01T00:00:00Z')
  t.equal(readTime(parseDer(utcTime(d))).toISOString(), d.toISOString())
  t.equal(readX509Time(parseDer(generalizedTime(g))).toISOString(), g.toISOString())
  t.equal(readGeneralizedTime(parseDer(generalizedTime(d))).toISOString(), d.toISOString())
  t.equal(readUtcTime(parseDer(utcTime(new Date('1950-01-01T00:00:00Z')))).getUTCFullYear(), 1950)
  rejects(t, () => readX509Time(parseDer(generalizedTime(d))), 'RFC 5280 §4.1.2.5', 'GeneralizedTime before 2050')
  rejects(t, () => readGeneralizedTime(parseDer(utcTime(d)), 'RFC 9286 §4.2'), 'RFC 9286 §4.2')
  t.ok(contentEquals(parseDer(octetString(h('01 02'))), h('01 02')))
  t.notOk(contentEquals(parseDer(octetString(h('01 02'))), h('01 03')))
})

t.test('header strictness (X.690 §8.1, §10.1, §10.2)', async (t) => {
  rejects(t, () => one('30 80 02 01 01 00 00'), 'X.690 §10.1', 'indefinite length')
  rejects(t, () => one('04 81 05 01 02 03 04 05'), 'X.690 §10.1', 'long form for a short length')
  rejects(t, () => one('04 82 00 80' + ' 00'.repeat(128)), 'X.690 §10.1', 'leading zero length octet')
  rejects(t, () => one('04 ff'), 'X.690 §8.1.3.5', 'reserved 0xff')
  rejects(t, () => one('04 05 01 02'), 'X.690 §8.1.3', 'truncated contents')
  rejects(t, () => one('04'), 'X.690 §8.1.3', 'no length octets')
  rejects(t, () => one('04 82 01'), 'X.690 §8.1.3', 'truncated length octets')
  rejects(t, () => parseDer(new Uint8Array(0)), 'X.690 §8.1.2', 'empty input')
  rejects(t, () => one('02 01 01 00'), 'X.690 §8.1.1', 'trailing byte')
  rejects(t, () => one('24 03 04 01 01'), 'X.690 §10.2', 'constructed OCTET STRING')
  rejects(t, () => one('23 03 03 01 00'), 'X.690 §10.2', 'constructed BIT STRING')
  rejects(t, () => one('33 03 13 01 41'), 'X.690 §10.2', 'constructed PrintableString')
  rejects(t, () => one('22 03 02 01 01'), 'X.690 §8.1.2.5', 'constructed INTEGER')
  rejects(t, () => one('10 00'), 'X.690 §8.9.1', 'primitive SEQUENCE')
  rejects(t, () => one('11 00'), 'X.690 §8.9.1', 'primitive SET')
  rejects(t, () => one('00 00'), 'X.690 §8.1.5', 'end-of-contents')
  rejects(t, () => one('9f 1e 00'), 'X.690 §8.1.2.2', 'high tag form for a low number')
  rejects(t, () => one('9f 80 1f 00'), 'X.690 §8.1.2.4.2', 'high tag number not minimal')
  t.equal(one('9f 1f 00').number, 31)
  t.equal(one('bf 81 00 00').number, 128)
  rejects(t, () => children(one('30 03 02 02 01')), 'X.690 §8.1.3', 'child runs past its parent')
  rejects(t, () => children(one('30 04 02 01 01 05')), 'X.690 §8.1.3', 'truncated second child')
  rejects(t, () => firstChild(one('04 00')), 'X.690 §8.1.2.5', 'children of a primitive')
})

t.test('value strictness (X.690 §8, §11; RFC 5280 times)', async (t) => {
  rejects(t, () => readInt(one('02 00')), 'X.690 §8.3.1', 'empty INTEGER')
  rejects(t, () => readInt(one('02 02 00 7f')), 'X.690 §8.3.2', 'leading 00')
  rejects(t, () => readBigInt(one('02 02 ff 80')), 'X.690 §8.3.2', 'leading ff')
  rejects(t, () => readIntegerContent(one('02 03 00 00 80')), 'X.690 §8.3.2', 'two leading zeros')
  rejects(t, () => readInt(one('04 01 00'), 'RFC 9582 §4'), 'RFC 9582 §4', 'not an INTEGER')
  rejects(t, () => readBool(one('01 01 01')), 'X.690 §11.1', 'TRUE not 0xff')
  rejects(t, () => readBool(one('01 02 ff ff')), 'X.690 §8.2.1', 'long BOOLEAN')
  rejects(t, () => readNull(one('05 01 00')), 'X.690 §8.8.2', 'NULL with contents')
  rejects(t, () => readOid(one('06 00')), 'X.690 §8.19.1', 'empty OID')
  rejects(t, () => readOid(one('06 03 2a 80 01')), 'X.690 §8.19.2', 'subidentifier with 0x80')
  rejects(t, () => readOid(one('06 02 80 01')), 'X.690 §8.19.2', 'first subidentifier with 0x80')
  rejects(t, () => readOid(one('06 02 2a 86')), 'X.690 §8.19.2', 'OID ends mid-subidentifier')
  rejects(t, () => readBitString(one('03 00')), 'X.690 §8.6.2', 'no unused-bits octet')
  rejects(t, () => readBitString(one('03 02 08 00')), 'X.690 §8.6.2.2', '8 unused bits')
  rejects(t, () => readBitString(one('03 01 01')), 'X.690 §8.6.2.3', 'empty with unused bits')
  rejects(t, () => readBitString(one('03 02 01 07')), 'X.690 §11.2.1', 'pad bit set')
  rejects(t, () => readNamedBitString(one('03 02 00 06')), 'X.690 §11.2.2', 'trailing zero bit in named bits')
  rejects(t, () => readString(one('13 01 40')), 'X.680 §41.4', '@ in PrintableString')
  rejects(t, () => readString(one('16 01 80')), 'X.680 §41.4', 'high byte in IA5String')
  rejects(t, () => readString(one('0c 01 ff')), 'RFC 3629 §4', 'bad UTF-8')
  rejects(t, () => readString(one('1e 02 00 41')), 'X.680 §41', 'BMPString')
  const time = (tag: string, s: string) => one(`${tag} ${Buffer.from(s).length.toString(16).padStart(2, '0')} ${Buffer.from(s).toString('hex')}`)
  t.equal(readTime(time('17', '500101000000Z')).toISOString(), '1950-01-01T00:00:00.000Z')
  t.equal(readTime(time('17', '491231235959Z')).toISOString(), '2049-12-31T23:59:59.000Z')
  t.equal(readTime(time('18', '20000229120000Z')).toISOString(), '2000-02-29T12:00:00.000Z')
  for (const s of ['5001010000Z', '500101000000', '500101000000+0100', '501301000000Z', '500132000000Z',
    '500101240000Z', '500101006000Z', '500101000060Z', '5a0101000000Z', '500230000000Z', '010229000000Z']) {
    rejects(t, () => readTime(time('17', s)), 'RFC 5280 §4.1.2.5.1', `UTCTime ${s}`)
  }
  for (const s of ['20500101000000.5Z', '205001010000Z', '20500101000000', '21000229000000Z', '2050010100000Z']) {
    rejects(t, () => readTime(time('18', s)), 'RFC 5280 §4.1.2.5.2', `GeneralizedTime ${s}`)
  }
  rejects(t, () => readTime(one('02 01 00'), 'RFC 5280 §4.1.2.5'), 'RFC 5280 §4.1.2.5', 'not a time')
})

t.test('SET OF order (X.690 §11.6) and embedded DER', async (t) => {
  t.equal(setOfChildren(parseDer(setOf([int(3), int(1), int(2)])), 'RFC 5652 §5.3').length, 3)
  rejects(t, () => setOfChildren(one('31 06 02 01 02 02 01 01'), 'RFC 5652 §5.3'), 'X.690 §11.6', 'unsorted')
  rejects(t, () => setOfChildren(one('30 00'), 'RFC 5652 §5.3'), 'RFC 5652 §5.3', 'not a SET')
  t.equal(setOfChildren(one('31 06 02 01 01 02 01 01'), 'R').length, 2, 'duplicates are in order')
  const ext = parseDer(seq(oid('2.5.29.15'), bool(true), octetString(bitString(h('06'), 1))))
  const os = children(ext)[2]
  const inner = parseEmbedded(os)
  t.same(readBitString(inner), { bytes: h('06'), unusedBits: 1 })
  t.equal(inner.depth, 2)
  t.equal(inner.bytes, ext.bytes, 'offsets stay in the original buffer')
  rejects(t, () => parseEmbedded(parseDer(octetString(h('02 01 01 00')))), 'X.690 §8.1.1', 'trailing byte inside')
  const bs = parseDer(bitString(int(9)))
  t.equal(readInt(parseEmbedded(bs, 1)), 9, 'BIT STRING holding DER, after the unused-bits octet')
})

t.test('budgets: depth, huge lengths, many nodes', async (t) => {
  // 10,000 nested SEQUENCEs: fails at the depth budget without recursion.
  let deep: Uint8Array = nul()
  for (let i = 0; i < 10_000; i++) deep = seq(deep)
  let n: ReturnType<typeof parseDer> | undefined = parseDer(deep)
  rejects(t, () => { while (n && n.constructed) n = firstChild(n) }, 'DER reader limit', 'depth 10,000')
  rejects(t, () => checkDer(parseDer(deep)), 'DER reader limit', 'checkDer on depth 10,000')
  let nn: ReturnType<typeof parseDer> | undefined = parseDer(deep, { maxDepth: 20_000 })
  let depth = 0
  while (nn && nn.constructed) { nn = firstChild(nn); depth++ }
  t.equal(depth, 10_000, 'a raised depth budget walks it iteratively')
  // A 100 MB length claimed in a 10-byte input fails on the header.
  const start = performance.now()
  rejects(t, () => parseDer(h('04 84 06 40 00 00 00 00 00 00')), 'X.690 §8.1.3', '100 MB claimed length')
  rejects(t, () => parseDer(h('30 86 ff ff ff ff ff ff 00 00')), 'X.690 §8.1.3', '2^48 claimed length')
  rejects(t, () => parseDer(h('30 88 ff ff ff ff ff ff ff ff')), 'X.690 §8.1.3', '2^64 claimed length')
  noHang(t, start, 'huge claimed lengths refused')
  // A million and one tiny nodes against the default budget of a million; fine with a bigger budget.
  const million = seqOf(Array.from({ length: 1_000_000 }, () => nul()))
  const t0 = performance.now()
  rejects(t, () => children(parseDer(million)), 'DER reader limit', 'one million nodes + root')
  t.equal(children(parseDer(million, { maxNodes: 1_000_001 })).length, 1_000_000)
  noHang(t, t0, 'two million headers')
  rejects(t, () => checkDer(parseDer(million, { maxNodes: 1000 })), 'DER reader limit', 'checkDer budget')
})

t.test('checkDer walks everything we write', async (t) => {
  const der = seq(int(-5), explicit(3, seq(bool(true), bitString(h('80'), 7))), setOf([octetString(h('00'))]),
    utcTime(new Date('2030-01-01T00:00:00Z')), printableString('A'))
  checkDer(parseDer(der))
  rejects(t, () => checkDer(one('30 05 a0 03 01 01 01')), 'X.690 §11.1', 'nested bad BOOLEAN')
  rejects(t, () => checkDer(one('30 04 02 02 00 01')), 'X.690 §8.3.2', 'nested non-minimal INTEGER')
})

function* derFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* derFiles(p)
    else if (/\.(cer|crl|mft|roa|asa|gbr|der)$/.test(name)) yield p
  }
}

t.test('real-world DER fixtures walk cleanly; the BER ones are refused with X.690 §10.1', async (t) => {
  let dir: string[]
  try {
    dir = [...derFiles(join(FIXTURES, 'objects')), ...derFiles(join(FIXTURES, 'rfc6492/cms'))]
  } catch {
    t.comment(`${FIXTURES} is absent: skipped`)
    return
  }
  let ok = 0, ber = 0
  const other: string[] = []
  for (const f of dir) {
    try {
      checkDer(parseDer(new Uint8Array(readFileSync(f))))
      ok++
    } catch (e) {
      if (e instanceof DecodeError && e.rule === 'X.690 §10.1') ber++
      else other.push(`${f}: ${(e as Error).message}`)
    }
  }
  t.ok(ok > 80, `${ok} strict DER files`)
  t.ok(ber >= 4, `${ber} BER files refused`)
  t.comment(other.join('\n'))
})
