import t from 'tap'
import { failsParse } from '../../helpers/throws-rule.js'
import { AsBlocks, ASN_MAX, parseAsn } from '../../../src/resources/asn.js'
import { ParseError } from '../../../src/util/errors.js'
import { noHang } from '../../helpers/no-hang.js'

const fails = failsParse

const as = (text: string): AsBlocks => AsBlocks.parse(text)

t.test('parseAsn takes AS65000, as65000 and 65000', async (t) => {
  t.equal(parseAsn('AS65000'), 65000)
  t.equal(parseAsn('as65000'), 65000)
  t.equal(parseAsn('65000'), 65000)
  t.equal(parseAsn(' AS0 '), 0)
  t.equal(parseAsn('AS4294967295'), 4294967295)
  t.equal(parseAsn('4294967295'), ASN_MAX)
})

t.test('parseAsn errors say what is wrong', async (t) => {
  fails(t, () => parseAsn('AS4294967296'), 'AS number "AS4294967296" is out of range (the largest is 4294967295)')
  fails(t, () => parseAsn('99999999999999999999999'), 'AS number "99999999999999999999999" is out of range (the largest is 4294967295)')
  fails(t, () => parseAsn('AS'), `"AS" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('AS 1'), `"AS 1" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('-1'), `"-1" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('+1'), `"+1" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('1e3'), `"1e3" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('0x10'), `"0x10" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn(''), `"" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => parseAsn('AS١'), `"AS١" is not an AS number (expected e.g. 'AS65000' or '65000')`)
})

t.test('spec and RFC 6492 text forms round trip exactly', async (t) => {
  for (const text of ['', 'AS1', 'AS1, AS3-AS4', 'AS0-AS4294967295', 'AS0, AS4294967295', 'AS64496-AS64511, AS65000']) {
    t.equal(as(text).toString(), text, text)
  }
  for (const text of ['', '1', '1,3-4', '0-4294967295', '64512-65534,4200000000-4294967294', '64534-64540']) {
    t.equal(as(text).toRfc6492(), text, text)
  }
  t.equal(as('AS1, AS3-4').toRfc6492(), '1,3-4')
  t.equal(as('1,3-4').toString(), 'AS1, AS3-AS4')
  t.equal(JSON.stringify({ asn: as('AS1') }), '{"asn":"AS1"}')
})

t.test('parse accepts the variants and canonicalises', async (t) => {
  t.equal(as('AS3-AS4').toString(), 'AS3-AS4', 'both ends with AS, as Krill and rpki-rs print it')
  t.equal(as('3-4').toString(), 'AS3-AS4')
  t.equal(as('AS3 - AS4').toString(), 'AS3-AS4')
  t.equal(as('AS3-4').toString(), 'AS3-AS4', 'the short form is accepted on input')
  t.equal(as('64496-64511,65000').toString(), 'AS64496-AS64511, AS65000')
  t.equal(as('  64496-64511 ,  65000 ').toString(), 'AS64496-AS64511, AS65000')
  t.equal(as('AS1, AS2, AS3').toString(), 'AS1-AS3', 'adjacent singles merge')
  t.equal(as('AS5-10, AS1-4').toString(), 'AS1-AS10', 'adjacent ranges merge, order does not matter')
  t.equal(as('AS1-10, AS5-20, AS7').toString(), 'AS1-AS20', 'overlaps merge')
  t.equal(as('AS1, AS1').toString(), 'AS1', 'duplicates merge')
  t.equal(as('AS5-5').toString(), 'AS5', 'a one-number range prints as one AS')
  t.equal(as('   ').toString(), '')
  t.ok(as('').isEmpty())
})

t.test('parse errors say what is wrong', async (t) => {
  fails(t, () => as('AS5-3'), 'AS range "AS5-3" is reversed: 5 is above 3')
  fails(t, () => as('AS1,,AS2'), 'AS resources: empty item between commas (item 2)')
  fails(t, () => as(',AS1'), 'AS resources: empty item before the first comma')
  fails(t, () => as('AS1,'), 'AS resources: empty item after the last comma')
  fails(t, () => as(','), 'AS resources: empty item before the first comma')
  fails(t, () => as('AS1-2-3'), `AS "AS1-2-3" has more than one '-'`)
  fails(t, () => as('AS1-'), 'AS range "AS1-" is missing its end')
  fails(t, () => as('-AS1'), 'AS range "-AS1" is missing its start')
  fails(t, () => as('AS1 AS2'), `"AS1 AS2" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => as('AS1; AS2'), `"AS1; AS2" is not an AS number (expected e.g. 'AS65000' or '65000')`)
  fails(t, () => as('AS1-4294967296'), 'AS number "4294967296" is out of range (the largest is 4294967295)')
  fails(t, () => AsBlocks.parse(7 as unknown as string), 'AS resources: expected text, got number')
})

t.test('fromRanges canonicalises and checks', async (t) => {
  const b = AsBlocks.fromRanges([{ min: 10, max: 20 }, { min: 1, max: 9 }, { min: 30, max: 30 }])
  t.same(b.ranges, [{ min: 1, max: 20 }, { min: 30, max: 30 }])
  t.ok(Object.isFrozen(b.ranges))
  t.ok(Object.isFrozen(b.ranges[0]))
  t.ok(Object.isFrozen(b))
  fails(t, () => AsBlocks.fromRanges([{ min: 5, max: 4 }]), 'AS range 5-4 is reversed: 5 is above 4')
  fails(t, () => AsBlocks.fromRanges([{ min: 0, max: 4294967296 }]), 'AS range 0-4294967296 is not within 0-4294967295')
  fails(t, () => AsBlocks.fromRanges([{ min: -1, max: 3 }]), 'AS range -1-3 is not within 0-4294967295')
  fails(t, () => AsBlocks.fromRanges([{ min: 1.5, max: 3 }]), 'AS range 1.5-3 is not within 0-4294967295')
  t.ok(AsBlocks.fromRanges([]).isEmpty())
})

t.test('membership and containment, including ASNs above 2^31', async (t) => {
  const b = as('AS1, AS3-4, AS4200000000-4294967295')
  t.ok(b.containsAsn(1))
  t.notOk(b.containsAsn(2))
  t.ok(b.containsAsn(4))
  t.ok(b.containsAsn(4294967295))
  t.ok(b.containsAsn(2 ** 31 + 4200000000 - 2 ** 31))
  t.notOk(b.containsAsn(4294967296))
  t.notOk(b.containsAsn(-1))
  t.notOk(b.containsAsn(1.5))
  t.ok(b.contains(as('AS3, AS4294967295')))
  t.notOk(b.contains(as('AS2-3')))
  t.ok(b.contains(AsBlocks.empty()))
  t.ok(AsBlocks.all().contains(b))
  t.notOk(AsBlocks.empty().contains(b))
  t.ok(AsBlocks.empty().contains(AsBlocks.empty()))
})

t.test('union, intersection, difference, equals', async (t) => {
  const a = as('AS1-10, AS20-30')
  const b = as('AS5-25')
  t.equal(a.union(b).toString(), 'AS1-AS30')
  t.equal(a.intersection(b).toString(), 'AS5-AS10, AS20-AS25')
  t.equal(a.difference(b).toString(), 'AS1-AS4, AS26-AS30')
  t.equal(b.difference(a).toString(), 'AS11-AS19')
  t.equal(as('AS1-10').union(as('AS11')).toString(), 'AS1-AS11', 'adjacent union merges')
  t.ok(a.union(AsBlocks.empty()).equals(a))
  t.ok(a.intersection(AsBlocks.empty()).isEmpty())
  t.ok(a.difference(a).isEmpty())
  t.ok(a.equals(as('AS1-10,20-30')))
  t.notOk(a.equals(b))
})

t.test('edges at 0 and 4294967295', async (t) => {
  const all = AsBlocks.all()
  t.equal(all.toString(), 'AS0-AS4294967295')
  t.equal(all.difference(as('AS0')).toString(), 'AS1-AS4294967295')
  t.equal(all.difference(as('AS4294967295')).toString(), 'AS0-AS4294967294')
  t.equal(all.difference(as('AS1-4294967294')).toString(), 'AS0, AS4294967295')
  t.equal(as('AS0').union(as('AS1-4294967295')).toString(), 'AS0-AS4294967295')
  t.ok(as('AS0, AS4294967295').union(as('AS1-4294967294')).equals(all))
  t.equal(all.intersection(as('AS4294967295')).toString(), 'AS4294967295')
  t.ok(all.difference(all).isEmpty())
  t.equal(AsBlocks.empty().toString(), '')
  t.equal(AsBlocks.empty().toRfc6492(), '')
})

t.test('20,000 items parse fast and hostile input does not hang', async (t) => {
  const items: string[] = []
  for (let i = 0; i < 20000; i++) items.push(`AS${i * 3}`)
  const start = performance.now()
  const b = as(items.join(', '))
  t.equal(b.ranges.length, 20000)
  noHang(t, start, '20,000 items parsed')
  const long = 'AS' + '1'.repeat(1_000_000)
  fails(t, () => as(long), `AS number ${JSON.stringify(long.slice(0, 80) + '…')} is out of range (the largest is 4294967295)`)
  const t0 = performance.now()
  t.throws(() => as('AS1-'.repeat(200_000)), ParseError)
  t.throws(() => as('A'.repeat(1_000_000) + ','), ParseError)
  noHang(t, t0, 'hostile input refused')
})
