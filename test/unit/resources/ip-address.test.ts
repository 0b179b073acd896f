import t from 'tap'
import { failsParse } from '../../helpers/throws-rule.js'
import { addressBits, formatAddress, maxAddress, parseAddress } from '../../../src/resources/ip-address.js'
import { ParseError } from '../../../src/util/errors.js'

const fails = failsParse

const v6 = (text: string): string => formatAddress(6, parseAddress(text, 6).addr)

t.test('IPv4 addresses', async (t) => {
  t.same(parseAddress('10.0.0.1'), { family: 4, addr: 0x0a000001n })
  t.same(parseAddress('0.0.0.0', 4), { family: 4, addr: 0n })
  t.same(parseAddress('255.255.255.255'), { family: 4, addr: 0xffffffffn })
  t.equal(formatAddress(4, 0xffffffffn), '255.255.255.255')
  t.equal(formatAddress(4, 0n), '0.0.0.0')
  t.equal(formatAddress(4, 0xc0000282n), '192.0.2.130')
  t.equal(addressBits(4), 32)
  t.equal(maxAddress(4), 2n ** 32n - 1n)
})

t.test('IPv4 errors say what is wrong', async (t) => {
  fails(t, () => parseAddress('10.256.0.0'), '"10.256.0.0" is not an IPv4 address: octet 256 is out of range (0-255)')
  fails(t, () => parseAddress('10.0.0'), '"10.0.0" is not an IPv4 address: it has 3 octets, expected 4')
  fails(t, () => parseAddress('10.0.0.0.0'), '"10.0.0.0.0" is not an IPv4 address: it has 5 octets, expected 4')
  fails(t, () => parseAddress('10..0.0'), '"10..0.0" is not an IPv4 address: empty octet')
  fails(t, () => parseAddress('10.0.0.'), '"10.0.0." is not an IPv4 address: empty octet')
  fails(t, () => parseAddress('.10.0.0'), '".10.0.0" is not an IPv4 address: empty octet')
  fails(t, () => parseAddress('.'), '"." is not an IPv4 address: empty octet')
  fails(t, () => parseAddress('10.0.0.010'), '"10.0.0.010" is not an IPv4 address: octet "010" has a leading zero')
  fails(t, () => parseAddress('10.0.0.x'), '"10.0.0.x" is not an IPv4 address: unexpected character "x"')
  fails(t, () => parseAddress('10.0.0.1 '.repeat(3)), '"10.0.0.1 10.0.0.1 10.0.0.1" is not an IPv4 address: unexpected character " "')
  fails(t, () => parseAddress('1000.0.0.0'), '"1000.0.0.0" is not an IPv4 address: octet 1000 is out of range (0-255)')
  fails(t, () => parseAddress('1.2.3.4.5.6.7.8'), '"1.2.3.4.5.6.7.8" is not an IPv4 address: it has 8 octets, expected 4')
  fails(t, () => parseAddress('1.2.3.4.5.6.7.8.9'), '"1.2.3.4.5.6.7.8.9" is not an IPv4 address: too long')
  fails(t, () => parseAddress(''), 'an IP address is missing (empty text)')
  fails(t, () => parseAddress('', 4), 'an IPv4 address is missing (empty text)')
  fails(t, () => parseAddress('2001:db8::', 4), `"2001:db8::" is not an IPv4 address (it has a ':', so it looks like IPv6)`)
  fails(t, () => parseAddress('10.0.0.1', 6), `"10.0.0.1" is not an IPv6 address (it has no ':', so it looks like IPv4)`)
})

t.test('IPv6 input forms (RFC 4291 §2.2)', async (t) => {
  t.equal(parseAddress('2001:db8::1').addr, 0x20010db8000000000000000000000001n)
  t.equal(parseAddress('2001:0DB8:0000:0000:0000:0000:0000:0001').addr, 0x20010db8000000000000000000000001n)
  t.equal(parseAddress('::').addr, 0n)
  t.equal(parseAddress('::1').addr, 1n)
  t.equal(parseAddress('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff').addr, 2n ** 128n - 1n)
  t.equal(parseAddress('::ffff:192.0.2.1').addr, 0xffffc0000201n)
  t.equal(parseAddress('1:2:3:4:5:6:192.0.2.1').addr, 0x000100020003000400050006c0000201n)
  t.equal(parseAddress('2001:db8:0:0:0:0:a00::').addr, 0x20010db80000000000000000_0a000000n)
})

t.test('IPv6 output follows RFC 5952', async (t) => {
  t.equal(v6('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1', '§4.1 no leading zeros, §4.2.1 shortest')
  t.equal(v6('2001:DB8::ABCD'), '2001:db8::abcd', '§4.3 lowercase')
  t.equal(v6('2001:db8:0:1:1:1:1:1'), '2001:db8:0:1:1:1:1:1', '§4.2.2 a single zero group stays')
  t.equal(v6('2001:0:0:1:0:0:0:1'), '2001:0:0:1::1', '§4.2.3 the longest run is compressed')
  t.equal(v6('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1', '§4.2.3 the first of equal runs is compressed')
  t.equal(v6('0:0:0:0:0:0:0:0'), '::')
  t.equal(v6('0:0:0:0:0:0:0:1'), '::1')
  t.equal(v6('1:0:0:0:0:0:0:0'), '1::')
  t.equal(v6('1:0:0:0:0:0:0:2'), '1::2')
  t.equal(v6('0:1:1:1:1:1:1:1'), '0:1:1:1:1:1:1:1')
  t.equal(v6('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')
  t.equal(v6('::ffff:c000:201'), '::ffff:192.0.2.1', '§5 IPv4-mapped')
  t.equal(v6('2001:db8:0:0:0:0:a00::'), '2001:db8::a00:0')
})

t.test('IPv6 errors say what is wrong', async (t) => {
  fails(t, () => parseAddress('2001:db8::1::1'), `"2001:db8::1::1" is not an IPv6 address: '::' may appear only once`)
  fails(t, () => parseAddress(':::'), `":::" is not an IPv6 address: empty group (a single ':' where '::' or a number belongs)`)
  fails(t, () => parseAddress('1:::2'), `"1:::2" is not an IPv6 address: empty group (a single ':' where '::' or a number belongs)`)
  fails(t, () => parseAddress('::1::'), `"::1::" is not an IPv6 address: '::' may appear only once`)
  fails(t, () => parseAddress('2001:db8:1:2:3:4:5'), `"2001:db8:1:2:3:4:5" is not an IPv6 address: it has 7 groups, expected 8 (or '::')`)
  fails(t, () => parseAddress('1:2:3:4:5:6:7:8:9'), `"1:2:3:4:5:6:7:8:9" is not an IPv6 address: it has 9 groups, expected 8 (or '::')`)
  fails(t, () => parseAddress('1:2:3:4::5:6:7:8'), `"1:2:3:4::5:6:7:8" is not an IPv6 address: '::' must stand for at least one group of zeros`)
  fails(t, () => parseAddress('2001:db8:12345::'), '"2001:db8:12345::" is not an IPv6 address: group "12345" has more than 4 hex digits')
  fails(t, () => parseAddress(':1:2:3:4:5:6:7'), `":1:2:3:4:5:6:7" is not an IPv6 address: empty group (a single ':' where '::' or a number belongs)`)
  fails(t, () => parseAddress('1::2:'), `"1::2:" is not an IPv6 address: empty group (a single ':' where '::' or a number belongs)`)
  fails(t, () => parseAddress('2001:db8::g'), '"2001:db8::g" is not an IPv6 address: unexpected character "g"')
  fails(t, () => parseAddress('fe80::1%eth0'), '"fe80::1%eth0" is not an IPv6 address: unexpected character "%"')
  fails(t, () => parseAddress('1.2.3.4::'), '"1.2.3.4::" is not an IPv6 address: an embedded IPv4 address may only stand in the last 32 bits')
  fails(t, () => parseAddress('::1.2.3.4:5'), '"::1.2.3.4:5" is not an IPv6 address: an embedded IPv4 address may only stand in the last 32 bits')
  fails(t, () => parseAddress('::1.2.3.256'), '"1.2.3.256" is not an IPv4 address: octet 256 is out of range (0-255)')
  fails(t, () => parseAddress('0'.repeat(46) + '::'), `${JSON.stringify('0'.repeat(46) + '::')} is not an IPv6 address: too long`)
})

t.test('formatAddress rejects values outside the family', async (t) => {
  t.throws(() => formatAddress(4, 2n ** 32n), RangeError)
  t.throws(() => formatAddress(4, -1n), RangeError)
  t.throws(() => formatAddress(6, 2n ** 128n), RangeError)
})

t.test('round trip of random addresses', async (t) => {
  let seed = 7n
  for (let i = 0; i < 500; i++) {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 128n
    const addr = seed & ~(0xffffn << BigInt(16 * (i % 8)))
    const text = formatAddress(6, addr)
    if (parseAddress(text).addr !== addr) t.fail(`${text} does not round trip`)
    const v4 = seed % 2n ** 32n
    if (parseAddress(formatAddress(4, v4)).addr !== v4) t.fail(`${v4} does not round trip`)
  }
  t.pass('500 IPv4 and IPv6 addresses round trip')
})
