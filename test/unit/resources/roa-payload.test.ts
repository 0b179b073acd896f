import t from 'tap'
import { failsParse } from '../../helpers/throws-rule.js'
import { parsePrefix } from '../../../src/resources/ip.js'
import {
  checkMaxLength, compareRoaPayloads, formatRoaPayload, parseRoaDelta, parseRoaPayload, roaPayloadKey,
  type RoaPayload,
} from '../../../src/resources/roa-payload.js'
import { ParseError } from '../../../src/util/errors.js'
import { noHang } from '../../helpers/no-hang.js'

const fails = failsParse

const roa = (text: string): RoaPayload => parseRoaPayload(text)
const payload = (prefix: string, maxLength: number, asn: number): RoaPayload => ({ asn, prefix: parsePrefix(prefix), maxLength })

t.test('parse: both forms, optional AS, flexible spaces', async (t) => {
  t.same(roa('10.0.0.0/24 => 64496'), payload('10.0.0.0/24', 24, 64496))
  t.same(roa('10.0.0.0/24-28 => 64496'), payload('10.0.0.0/24', 28, 64496))
  t.same(roa('10.0.0.0/24-28 => AS64496'), payload('10.0.0.0/24', 28, 64496))
  t.same(roa('10.0.0.0/24-28=>64496'), payload('10.0.0.0/24', 28, 64496))
  t.same(roa('  10.0.0.0/24 - 28   =>   as64496  '), payload('10.0.0.0/24', 28, 64496))
  t.same(roa('2001:db8::/32-48 => 0'), payload('2001:db8::/32', 48, 0))
  t.same(roa('2001:DB8:0:0:0:0:0:0/32 => AS4294967295'), payload('2001:db8::/32', 32, 4294967295))
  t.ok(Object.isFrozen(roa('10.0.0.0/24 => 1')))
})

t.test('normalisation: an absent max length is the prefix length', async (t) => {
  t.equal(compareRoaPayloads(roa('10.0.0.0/24 => 1'), roa('10.0.0.0/24-24 => 1')), 0)
  t.equal(roaPayloadKey(roa('10.0.0.0/24 => 1')), roaPayloadKey(roa('10.0.0.0/24-24 => 1')))
  t.equal(roaPayloadKey(roa('10.0.0.0/24 => 1')), '10.0.0.0/24-24 => 1')
  t.equal(roaPayloadKey(roa('185.49.140.0/22 => AS65502')), '185.49.140.0/22-22 => 65502', 'the key behind Krill ROA file names')
  t.equal(roaPayloadKey(roa('2001:0db8::/32-48 => 1')), '2001:db8::/32-48 => 1')
  t.not(compareRoaPayloads(roa('10.0.0.0/24 => 1'), roa('10.0.0.0/24-25 => 1')), 0)
  t.not(compareRoaPayloads(roa('10.0.0.0/24 => 1'), roa('10.0.0.0/24 => 2')), 0)
})

t.test('format: the short form when max == len, and exact round trips', async (t) => {
  t.equal(formatRoaPayload(roa('10.0.0.0/24-24 => AS64496')), '10.0.0.0/24 => 64496')
  t.equal(formatRoaPayload(roa('10.0.0.0/24-28 => 64496')), '10.0.0.0/24-28 => 64496')
  for (const text of ['10.0.0.0/24 => 64496', '10.0.0.0/24-28 => 64496', '2001:db8::/32 => 0', '0.0.0.0/0-32 => 4294967295', '::/0-128 => 1']) {
    t.equal(formatRoaPayload(roa(text)), text, text)
    t.equal(roaPayloadKey(roa(roaPayloadKey(roa(text)))), roaPayloadKey(roa(text)))
  }
})

t.test('parse errors say what is wrong', async (t) => {
  const syntax = "expected '<prefix>/<length>[-<max_length>] => <asn>'"
  fails(t, () => roa('10.0.0.1/24 => 1'), '10.0.0.1/24 has host bits set (the prefix would be 10.0.0.0/24)')
  fails(t, () => roa('10.0.0.0/24 64496'), `"10.0.0.0/24 64496" has no '=>': ${syntax}`)
  fails(t, () => roa('10.0.0.0/24 => 1 => 2'), `"10.0.0.0/24 => 1 => 2" has more than one '=>': ${syntax}`)
  fails(t, () => roa(' => 1'), `"=> 1" has no prefix before '=>': ${syntax}`)
  fails(t, () => roa('10.0.0.0/24 =>'), `"10.0.0.0/24 =>" has no ASN after '=>': ${syntax}`)
  fails(t, () => roa('10.0.0.0/24 => AS4294967296'), 'AS number "AS4294967296" is out of range (the largest is 4294967295)')
  fails(t, () => roa('10.0.0.0/24-x => 1'), 'max length "x" in "10.0.0.0/24-x => 1" is not a number')
  fails(t, () => roa('10.0.0.0/24- => 1'), 'max length "" in "10.0.0.0/24- => 1" is not a number')
  fails(t, () => roa('10.0.0.0/24-256 => 1'), 'max length 256 in "10.0.0.0/24-256 => 1" is out of range')
  fails(t, () => roa('10.0.0.0/24-24-25 => 1'), 'max length "24-25" in "10.0.0.0/24-24-25 => 1" is not a number')
  fails(t, () => roa('10.0.0.0 => 1'), `"10.0.0.0" is not a prefix: '/<length>' is missing`)
  fails(t, () => roa('10.0.0.0/33 => 1'), 'prefix length 33 of 10.0.0.0/33 is longer than 32, the size of an IPv4 address')
  fails(t, () => roa('10.0.0.0/24 => ASx'), `"ASx" is not an AS number (expected e.g. 'AS65000' or '65000')`)
})

t.test('checkMaxLength (RFC 9582 §4.3.2)', async (t) => {
  t.equal(checkMaxLength(roa('10.0.0.0/24 => 1')), undefined)
  t.equal(checkMaxLength(roa('10.0.0.0/24-32 => 1')), undefined)
  t.equal(checkMaxLength(roa('2001:db8::/32-128 => 1')), undefined)
  t.equal(checkMaxLength(roa('0.0.0.0/0-0 => 1')), undefined)
  t.equal(checkMaxLength(roa('10.0.0.0/24-20 => 1')), 'max length 20 is shorter than the prefix length 24 of 10.0.0.0/24')
  t.equal(checkMaxLength(roa('10.0.0.0/24-33 => 1')), 'max length 33 of 10.0.0.0/24 is longer than 32, the size of an IPv4 address')
  t.equal(checkMaxLength(roa('2001:db8::/32-129 => 1')), 'max length 129 of 2001:db8::/32 is longer than 128, the size of an IPv6 address')
  t.equal(checkMaxLength(payload('10.0.0.0/24', 24.5, 1)), 'max length 24.5 of 10.0.0.0/24 is not a whole number')
})

t.test('compareRoaPayloads: IPv4 first, then address, length, max length, ASN', async (t) => {
  const texts = [
    '2001:db8::/32 => 1',
    '10.0.0.0/24-25 => 1',
    '10.0.0.0/24 => 2',
    '10.0.0.0/24 => 1',
    '10.0.0.0/16 => 9',
    '9.0.0.0/8 => 5',
    '::/0 => 1',
    '255.255.255.255/32 => 1',
  ]
  const sorted = texts.map(roa).sort(compareRoaPayloads).map(formatRoaPayload)
  t.same(sorted, [
    '9.0.0.0/8 => 5',
    '10.0.0.0/16 => 9',
    '10.0.0.0/24 => 1',
    '10.0.0.0/24 => 2',
    '10.0.0.0/24-25 => 1',
    '255.255.255.255/32 => 1',
    '::/0 => 1',
    '2001:db8::/32 => 1',
  ])
  t.equal(compareRoaPayloads(roa('10.0.0.0/24 => 1'), roa('10.0.0.0/24-24 => AS1')), 0)
  t.ok(compareRoaPayloads(roa('10.0.0.0/24 => 4294967295'), roa('10.0.0.0/24 => 0')) > 0, 'ASNs above 2^31 compare correctly')
})

t.test('parseRoaDelta: adds, removes, comments, blank lines, CRLF', async (t) => {
  const text = [
    '# ROA changes for today',
    '',
    'A: 10.0.0.0/24 => 64496',
    'A: 10.1.0.0/16-20 => AS64496 # the comment',
    '   # an indented comment',
    '  R: 10.0.3.0/24 => 64496   ',
    'R: 2001:db8::/32-48 => 1 # removal comments are ignored',
    'A: 192.0.2.0/24 => 0 #',
    '',
  ].join('\r\n')
  const delta = parseRoaDelta(text)
  t.same(delta.added, [
    { payload: payload('10.0.0.0/24', 24, 64496) },
    { payload: payload('10.1.0.0/16', 20, 64496), comment: 'the comment' },
    { payload: payload('192.0.2.0/24', 24, 0) },
  ])
  t.notOk('comment' in delta.added[0], 'no comment key when there is no comment')
  t.same(delta.removed, [payload('10.0.3.0/24', 24, 64496), payload('2001:db8::/32', 48, 1)])
  t.same(parseRoaDelta(''), { added: [], removed: [] })
  t.same(parseRoaDelta('\n\n# only comments\n'), { added: [], removed: [] })
  t.same(parseRoaDelta('A:10.0.0.0/8=>1').added, [{ payload: payload('10.0.0.0/8', 8, 1) }])
  t.equal(parseRoaDelta('A: 10.0.0.0/8 => 1 # a # b').added[0].comment, 'a # b')
})

t.test('parseRoaDelta errors start with the line number and say what is wrong', async (t) => {
  fails(t, () => parseRoaDelta('A: 10.0.0.0/24 => 1\n\n# c\nR: 10.0.0.1/8 => 1'), 'line 4: 10.0.0.1/8 has host bits set (the prefix would be 10.0.0.0/8)')
  fails(t, () => parseRoaDelta('X: 10.0.0.0/24 => 1'), `line 1: expected 'A: <authorisation>' or 'R: <authorisation>', got "X: 10.0.0.0/24 => 1"`)
  fails(t, () => parseRoaDelta('a: 10.0.0.0/24 => 1'), `line 1: expected 'A: <authorisation>' or 'R: <authorisation>', got "a: 10.0.0.0/24 => 1"`)
  fails(t, () => parseRoaDelta('10.0.0.0/24 => 1'), `line 1: expected 'A: <authorisation>' or 'R: <authorisation>', got "10.0.0.0/24 => 1"`)
  fails(t, () => parseRoaDelta('A:\r\n'), `line 1: "" has no '=>': expected '<prefix>/<length>[-<max_length>] => <asn>'`)
  fails(t, () => parseRoaDelta('\r\n\r\nA: 10.0.0.0/24 => AS4294967296\r\n'), 'line 3: AS number "AS4294967296" is out of range (the largest is 4294967295)')
  fails(t, () => parseRoaDelta('A: 10.0.0.0/24-99999 => 1'), 'line 1: max length "99999" in "10.0.0.0/24-99999 => 1" is not a number')
  try {
    parseRoaDelta('R: nonsense')
  } catch (e) {
    t.type((e as Error).cause, ParseError, 'the original error is the cause')
  }
})

t.test('parseRoaDelta does not check max length bounds (checkMaxLength does, for all items at once)', async (t) => {
  const delta = parseRoaDelta('A: 10.0.0.0/24-20 => 1\nA: 10.0.0.0/24-33 => 1')
  t.same(delta.added.map((c) => checkMaxLength(c.payload) !== undefined), [true, true])
})

t.test('large and hostile deltas', async (t) => {
  const lines: string[] = []
  for (let i = 0; i < 20000; i++) lines.push(`A: 10.${i >> 8}.${i & 255}.0/24 => ${i} # roa ${i}`)
  const start = performance.now()
  t.equal(parseRoaDelta(lines.join('\n')).added.length, 20000)
  noHang(t, start, '20,000 lines')
  const t0 = performance.now()
  t.throws(() => parseRoaDelta('A: ' + '='.repeat(1_000_000)), ParseError)
  t.throws(() => parseRoaDelta('A: 10.0.0.0/24 => ' + '1'.repeat(1_000_000)), ParseError)
  t.same(parseRoaDelta('#'.repeat(1_000_000)), { added: [], removed: [] })
  noHang(t, t0, 'hostile input handled')
})
