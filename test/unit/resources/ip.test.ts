import t from 'tap'
import { failsParse } from '../../helpers/throws-rule.js'
import {
  formatPrefix, IpBlocks, parsePrefix, prefixRange, rangePrefix, type IpFamily, type IpPrefix,
} from '../../../src/resources/ip.js'
import { ParseError } from '../../../src/util/errors.js'
import { noHang } from '../../helpers/no-hang.js'

const fails = failsParse

const v4 = (text: string): IpBlocks => IpBlocks.parse(text, 4)
const v6 = (text: string): IpBlocks => IpBlocks.parse(text, 6)
const ALL_ONES_6 = 2n ** 128n - 1n

t.test('parsePrefix and formatPrefix', async (t) => {
  t.same(parsePrefix('10.0.0.0/8'), { family: 4, addr: 0x0a000000n, len: 8 })
  t.same(parsePrefix('2001:db8::/32'), { family: 6, addr: 0x20010db8n << 96n, len: 32 })
  t.same(parsePrefix('0.0.0.0/0', 4), { family: 4, addr: 0n, len: 0 })
  t.same(parsePrefix('::/0', 6), { family: 6, addr: 0n, len: 0 })
  t.same(parsePrefix('255.255.255.255/32'), { family: 4, addr: 0xffffffffn, len: 32 })
  t.same(parsePrefix('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128'), { family: 6, addr: ALL_ONES_6, len: 128 })
  t.equal(formatPrefix(parsePrefix('2001:0DB8:0:0:0:0:0A00:0/120')), '2001:db8::a00:0/120')
  t.equal(formatPrefix(parsePrefix(' 10.0.0.0/8 ')), '10.0.0.0/8')
  t.ok(Object.isFrozen(parsePrefix('10.0.0.0/8')))
  for (const p of ['10.0.0.0/8', '0.0.0.0/0', '192.0.2.128/25', '2001:db8::/32', '::/0', '::1/128', '2001:db8::a00:0/120']) {
    t.equal(formatPrefix(parsePrefix(p)), p, `${p} round trips`)
  }
})

t.test('parsePrefix errors say what is wrong', async (t) => {
  fails(t, () => parsePrefix('10.0.0.1/8'), '10.0.0.1/8 has host bits set (the prefix would be 10.0.0.0/8)')
  fails(t, () => parsePrefix('2001:db8::1/32'), '2001:db8::1/32 has host bits set (the prefix would be 2001:db8::/32)')
  fails(t, () => parsePrefix('0.0.0.1/0'), '0.0.0.1/0 has host bits set (the prefix would be 0.0.0.0/0)')
  fails(t, () => parsePrefix('10.0.0.0/33'), 'prefix length 33 of 10.0.0.0/33 is longer than 32, the size of an IPv4 address')
  fails(t, () => parsePrefix('::/129'), 'prefix length 129 of ::/129 is longer than 128, the size of an IPv6 address')
  fails(t, () => parsePrefix('10.0.0.0/1000'), 'prefix length "1000" of "10.0.0.0/1000" is not a number')
  fails(t, () => parsePrefix('10.0.0.0/'), 'prefix length "" of "10.0.0.0/" is not a number')
  fails(t, () => parsePrefix('10.0.0.0/8/8'), 'prefix length "8/8" of "10.0.0.0/8/8" is not a number')
  fails(t, () => parsePrefix('10.0.0.0/-1'), 'prefix length "-1" of "10.0.0.0/-1" is not a number')
  fails(t, () => parsePrefix('10.0.0.0'), `"10.0.0.0" is not a prefix: '/<length>' is missing`)
  fails(t, () => parsePrefix('/8'), 'an IP address is missing (empty text)')
  fails(t, () => parsePrefix('10.0.0.0/8', 6), `"10.0.0.0" is not an IPv6 address (it has no ':', so it looks like IPv4)`)
  fails(t, () => parsePrefix('10.0.0.256/32'), '"10.0.0.256" is not an IPv4 address: octet 256 is out of range (0-255)')
})

t.test('prefixRange and rangePrefix', async (t) => {
  t.same(prefixRange(parsePrefix('10.0.0.0/8')), { min: 0x0a000000n, max: 0x0affffffn })
  t.same(prefixRange(parsePrefix('::/0')), { min: 0n, max: ALL_ONES_6 })
  t.same(prefixRange(parsePrefix('0.0.0.0/0')), { min: 0n, max: 0xffffffffn })
  t.same(rangePrefix(4, { min: 0n, max: 0xffffffffn }), { family: 4, addr: 0n, len: 0 })
  t.same(rangePrefix(6, { min: 0n, max: ALL_ONES_6 }), { family: 6, addr: 0n, len: 0 })
  t.same(rangePrefix(4, { min: 5n, max: 5n }), { family: 4, addr: 5n, len: 32 })
  t.equal(rangePrefix(4, { min: 0n, max: 2n }), undefined, 'size not a power of two')
  t.equal(rangePrefix(4, { min: 2n, max: 5n }), undefined, 'not aligned')
})

t.test('canonical merging', async (t) => {
  t.equal(v4('10.0.0.0/9, 10.128.0.0/9, 11.0.0.0/8').toString(), '10.0.0.0/7')
  t.equal(v4('10.1.0.0/16, 10.2.0.0-10.2.3.255').toString(), '10.1.0.0-10.2.3.255')
  t.equal(v4('10.0.0.0-10.0.0.2').toString(), '10.0.0.0-10.0.0.2', 'a run that is no prefix stays a range')
  t.equal(v4('10.0.0.0-10.255.255.255').toString(), '10.0.0.0/8', 'a range that is one prefix prints as a prefix')
  t.equal(v4('10.0.0.0/8, 10.1.0.0/16').toString(), '10.0.0.0/8', 'a contained prefix disappears')
  t.equal(v4('192.168.0.0/16, 10.0.0.0/8').toString(), '10.0.0.0/8, 192.168.0.0/16', 'sorted')
  t.equal(v4('10.0.0.1').toString(), '10.0.0.1/32', 'a single address is a /32')
  t.equal(v4('10.0.0.0 - 10.0.0.255').toString(), '10.0.0.0/24', 'blanks around -')
  t.equal(v6('2001:db8::/33, 2001:db8:8000::/33').toString(), '2001:db8::/32')
  t.equal(v6('2001:db8::1').toString(), '2001:db8::1/128')
  t.equal(v6('::/1, 8000::/1').toString(), '::/0')
  t.equal(v4('0.0.0.0/1, 128.0.0.0/1').toString(), '0.0.0.0/0')
})

t.test('text forms round trip exactly', async (t) => {
  const spec4 = ['', '10.0.0.0/8', '10.0.0.0/8, 192.168.0.0/16', '10.1.0.0-10.2.3.255', '0.0.0.0/0', '192.0.2.44-192.0.2.100']
  for (const text of spec4) t.equal(v4(text).toString(), text, text)
  const spec6 = ['', '2001:db8::/32', '::/0', '2001:db8::a00:0/120, 2001:db8::a03:0/120', '2001:dd8:13::-2001:dd8:1e:ffff:ffff:ffff:ffff:ffff']
  for (const text of spec6) t.equal(v6(text).toString(), text, text)
  const rfc4 = ['10.0.0.0/24,10.3.0.0/24', '192.0.2.44-192.0.2.100', '202.41.140.0-202.41.146.255,203.119.16.0-203.119.20.255']
  for (const text of rfc4) t.equal(v4(text).toRfc6492(), text, text)
  t.equal(v6('2001:db8:0:0:0:0:a00::/120').toRfc6492(), '2001:db8::a00:0/120', 'uncompressed input is printed in RFC 5952 form')
  t.equal(v6('2001:db8:0:0:0:0:a00::/120,2001:db8:0:0:0:0:a03::/120').toRfc6492(), '2001:db8::a00:0/120,2001:db8::a03:0/120')
  t.equal(v4('10.0.0.0/8, 192.168.0.0/16').toRfc6492(), '10.0.0.0/8,192.168.0.0/16')
  t.equal(JSON.stringify({ ipv4: v4('10.0.0.0/8') }), '{"ipv4":"10.0.0.0/8"}')
})

t.test('IpBlocks.parse errors say what is wrong', async (t) => {
  fails(t, () => v4('10.0.0.1/8'), '10.0.0.1/8 has host bits set (the prefix would be 10.0.0.0/8)')
  fails(t, () => v4('10.0.0.5-10.0.0.1'), 'IPv4 range 10.0.0.5-10.0.0.1 is reversed: the start is above the end')
  fails(t, () => v6('2001:db8::2-2001:db8::1'), 'IPv6 range 2001:db8::2-2001:db8::1 is reversed: the start is above the end')
  fails(t, () => v4('10.0.0.0/8,,11.0.0.0/8'), 'IPv4 resources: empty item between commas (item 2)')
  fails(t, () => v4('10.0.0.0/8,'), 'IPv4 resources: empty item after the last comma')
  fails(t, () => v6(',::/0'), 'IPv6 resources: empty item before the first comma')
  fails(t, () => v4('2001:db8::/32'), '"2001:db8::/32" is IPv6, expected IPv4')
  fails(t, () => v6('10.0.0.0/8'), '"10.0.0.0/8" is IPv4, expected IPv6')
  fails(t, () => v4('10.0.0.0/8 11.0.0.0/8'), 'prefix length "8 11.0.0.0/8" of "10.0.0.0/8 11.0.0.0/8" is not a number')
  fails(t, () => v4('10.0.0.0-10.0.0.1-10.0.0.2'), `IPv4 "10.0.0.0-10.0.0.1-10.0.0.2" has more than one '-'`)
  fails(t, () => v4('10.0.0.0-'), 'IPv4 range "10.0.0.0-" is missing its end')
  fails(t, () => v4('10.0.0.0/8-10.1.0.0'), '"10.0.0.0/8" is not an IPv4 address: unexpected character "/"')
  fails(t, () => v4('10.0.0.0/33'), 'prefix length 33 of 10.0.0.0/33 is longer than 32, the size of an IPv4 address')
  fails(t, () => v4('256.0.0.0/8'), '"256.0.0.0" is not an IPv4 address: octet 256 is out of range (0-255)')
  fails(t, () => v4('ten/8'), '"ten" is not an IPv4 address: unexpected character "t"')
  t.throws(() => IpBlocks.parse('', 5 as IpFamily), TypeError)
})

t.test('fromRanges and fromPrefixes', async (t) => {
  const b = IpBlocks.fromRanges(4, [{ min: 10n, max: 20n }, { min: 0n, max: 9n }])
  t.same(b.ranges, [{ min: 0n, max: 20n }])
  t.ok(Object.isFrozen(b) && Object.isFrozen(b.ranges) && Object.isFrozen(b.ranges[0]))
  fails(t, () => IpBlocks.fromRanges(4, [{ min: 5n, max: 4n }]), 'IPv4 range 0.0.0.5-0.0.0.4 is reversed: the start is above the end')
  fails(t, () => IpBlocks.fromRanges(4, [{ min: 0n, max: 2n ** 32n }]), 'IPv4 range 0-4294967296 is not within the IPv4 address space')
  fails(t, () => IpBlocks.fromRanges(6, [{ min: -1n, max: 0n }]), 'IPv6 range -1-0 is not within the IPv6 address space')
  const p = IpBlocks.fromPrefixes(6, [parsePrefix('2001:db8::/33'), parsePrefix('2001:db8:8000::/33')])
  t.equal(p.toString(), '2001:db8::/32')
  fails(t, () => IpBlocks.fromPrefixes(6, [parsePrefix('10.0.0.0/8')]), '10.0.0.0/8 is IPv4, expected IPv6')
})

t.test('containment', async (t) => {
  const b = v4('10.0.0.0/8, 192.168.0.0-192.168.1.255')
  t.ok(b.containsPrefix(parsePrefix('10.1.0.0/16')))
  t.ok(b.containsPrefix(parsePrefix('192.168.1.0/24')))
  t.notOk(b.containsPrefix(parsePrefix('192.168.0.0/22')))
  t.notOk(b.containsPrefix(parsePrefix('2001:db8::/32')), 'other family')
  t.ok(b.containsAddress(0x0a000001n))
  t.notOk(b.containsAddress(0x0b000000n))
  t.ok(b.contains(v4('10.1.0.0/16, 192.168.1.7')))
  t.notOk(b.contains(v4('10.0.0.0/7')))
  t.ok(b.contains(IpBlocks.empty(4)))
  t.ok(IpBlocks.all(4).contains(b))
  t.notOk(IpBlocks.empty(4).contains(b))
  t.throws(() => b.contains(IpBlocks.empty(6)), TypeError)
})

t.test('union, intersection, difference, equals', async (t) => {
  const a = v4('10.0.0.0/8, 12.0.0.0/8')
  const b = v4('10.128.0.0-12.127.255.255')
  t.equal(a.union(b).toString(), '10.0.0.0-12.255.255.255')
  t.equal(a.intersection(b).toString(), '10.128.0.0/9, 12.0.0.0/9')
  t.equal(a.difference(b).toString(), '10.0.0.0/9, 12.128.0.0/9')
  t.equal(b.difference(a).toString(), '11.0.0.0/8')
  t.equal(v4('10.0.0.0/9').union(v4('10.128.0.0/9')).toString(), '10.0.0.0/8', 'adjacent union merges')
  t.ok(a.equals(v4('12.0.0.0/8,10.0.0.0/8')))
  t.notOk(a.equals(b))
  t.notOk(IpBlocks.empty(4).equals(IpBlocks.empty(6)), 'families differ')
  t.throws(() => a.union(IpBlocks.empty(6)), TypeError)
  t.throws(() => a.intersection(IpBlocks.all(6)), TypeError)
  t.throws(() => a.difference(IpBlocks.all(6)), TypeError)
})

t.test('edges: 0, all ones, 0.0.0.0/0 and ::/0', async (t) => {
  const all4 = IpBlocks.all(4)
  const all6 = IpBlocks.all(6)
  t.equal(all4.toString(), '0.0.0.0/0')
  t.equal(all6.toString(), '::/0')
  t.equal(all4.difference(v4('0.0.0.0/32')).toString(), '0.0.0.1-255.255.255.255')
  t.equal(all4.difference(v4('255.255.255.255')).toString(), '0.0.0.0-255.255.255.254')
  t.equal(all4.difference(v4('0.0.0.0/1')).toString(), '128.0.0.0/1')
  t.equal(all6.difference(v6('::/128')).toString(), '::1-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')
  t.equal(all6.difference(v6('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128')).toString(), '::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe')
  t.equal(all6.difference(v6('8000::/1')).toString(), '::/1')
  t.ok(v6('::/128').union(v6('::1-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).equals(all6))
  t.ok(all6.difference(all6).isEmpty())
  t.ok(all6.intersection(v6('2001:db8::/32')).equals(v6('2001:db8::/32')))
  t.equal(IpBlocks.empty(6).toString(), '')
  t.equal(IpBlocks.empty(4).toRfc6492(), '')
})

t.test('prefixes() is the minimal CIDR decomposition', async (t) => {
  const texts = (b: IpBlocks): string[] => b.prefixes().map(formatPrefix)
  t.same(texts(v4('10.0.0.0-10.0.0.2')), ['10.0.0.0/31', '10.0.0.2/32'])
  t.same(texts(v4('10.0.0.1-10.0.0.127')), ['10.0.0.1/32', '10.0.0.2/31', '10.0.0.4/30', '10.0.0.8/29', '10.0.0.16/28', '10.0.0.32/27', '10.0.0.64/26'])
  t.same(texts(v4('10.0.0.0/7, 192.0.2.0/24')), ['10.0.0.0/7', '192.0.2.0/24'])
  t.same(texts(IpBlocks.all(4)), ['0.0.0.0/0'])
  t.same(texts(IpBlocks.all(6)), ['::/0'])
  t.same(texts(v4('0.0.0.1-255.255.255.255')).length, 32)
  t.same(texts(v6('::1-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).length, 128)
  t.same(texts(v4('255.255.255.255')), ['255.255.255.255/32'])
  const p: IpPrefix[] = v6('2001:dd8:13::-2001:dd8:1e:ffff:ffff:ffff:ffff:ffff').prefixes()
  t.same(p.map(formatPrefix), ['2001:dd8:13::/48', '2001:dd8:14::/46', '2001:dd8:18::/46', '2001:dd8:1c::/47', '2001:dd8:1e::/48'])
  t.ok(IpBlocks.fromPrefixes(6, p).equals(v6('2001:dd8:13::-2001:dd8:1e:ffff:ffff:ffff:ffff:ffff')), 'the prefixes cover the run exactly')
})

t.test('20,000 entries parse well under 100 ms; hostile input does not hang', async (t) => {
  const v4items: string[] = []
  const v6items: string[] = []
  for (let i = 0; i < 20000; i++) {
    v4items.push(`${10 + (i >> 12)}.${(i >> 4) & 255}.${(i & 15) * 16}.0/${i % 3 === 0 ? 24 : 28}`)
    v6items.push(`2001:db8:${(i * 2).toString(16)}::/48`)
  }
  const text4 = v4items.join(', ')
  const text6 = v6items.join(',')
  v4(text4)
  v6(text6)
  let start = performance.now()
  const b4 = v4(text4)
  noHang(t, start, 'IPv4 parsed')
  start = performance.now()
  const b6 = v6(text6)
  noHang(t, start, 'IPv6 parsed')
  t.equal(b6.ranges.length, 20000)
  start = performance.now()
  t.equal(v6(b6.toString()).ranges.length, 20000)
  t.ok(b4.union(b4.difference(v4('10.0.0.0/9'))).equals(b4))
  noHang(t, start, 'printing, re-parsing and set algebra')
  start = performance.now()
  t.throws(() => v6(':'.repeat(1_000_000)), ParseError)
  t.throws(() => v4('1.'.repeat(1_000_000)), ParseError)
  t.throws(() => v4('10.0.0.0/8,' + ' '.repeat(1_000_000) + ',x'), ParseError)
  t.throws(() => v4('-'.repeat(1_000_000)), ParseError)
  noHang(t, start, 'hostile input refused')
})

t.test('hand-made prefixes with an impossible length are refused', async (t) => {
  t.throws(() => prefixRange({ family: 4, addr: 0n, len: 33 }), RangeError)
  t.throws(() => prefixRange({ family: 6, addr: 0n, len: -1 }), RangeError)
  t.throws(() => IpBlocks.fromPrefixes(4, [{ family: 4, addr: 0n, len: 1.5 }]), RangeError)
})
