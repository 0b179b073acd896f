import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { failsParse } from '../../helpers/throws-rule.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { ResourceSet, type ResourceSetText } from '../../../src/resources/resource-set.js'
import { ParseError } from '../../../src/util/errors.js'
import { noHang } from '../../helpers/no-hang.js'

const fails = failsParse

const SHARED = fileURLToPath(new URL('../../../../shared/fixtures/rfc6492/', import.meta.url))
const noShared = existsSync(SHARED) ? false : `shared fixtures not found at ${SHARED}`

const rs = (t: Partial<ResourceSetText>): ResourceSet => ResourceSet.parse(t)

t.test('the JSON API form round trips exactly', async (t) => {
  const samples: ResourceSetText[] = [
    { asn: 'AS65000', ipv4: '10.0.0.0/8, 192.168.0.0/16', ipv6: '' },
    { asn: '', ipv4: '', ipv6: '' },
    { asn: 'AS1, AS3-AS4', ipv4: '10.1.0.0-10.2.3.255', ipv6: '2001:db8::/32' },
    { asn: 'AS0-AS4294967295', ipv4: '0.0.0.0/0', ipv6: '::/0' },
  ]
  for (const s of samples) {
    t.same(rs(s).toJSON(), s)
    t.equal(JSON.stringify(rs(s)), JSON.stringify(s))
  }
  t.equal(rs(samples[0]).toString(), 'asn: AS65000, ipv4: 10.0.0.0/8, 192.168.0.0/16, ipv6: ')
  t.same(rs(samples[2]).toRfc6492(), { asn: '1,3-4', ipv4: '10.1.0.0-10.2.3.255', ipv6: '2001:db8::/32' })
})

t.test('missing and null fields are empty', async (t) => {
  t.ok(rs({}).isEmpty())
  t.same(rs({ asn: 'AS1' }).toJSON(), { asn: 'AS1', ipv4: '', ipv6: '' })
  t.same(rs({ ipv6: '2001:db8::/32', asn: null as unknown as string }).toJSON(), { asn: '', ipv4: '', ipv6: '2001:db8::/32' })
})

t.test('a ParseError names the field', async (t) => {
  fails(t, () => rs({ ipv4: '10.0.0.1/8' }), 'ipv4: 10.0.0.1/8 has host bits set (the prefix would be 10.0.0.0/8)')
  fails(t, () => rs({ ipv6: '10.0.0.0/8' }), 'ipv6: "10.0.0.0/8" is IPv4, expected IPv6')
  fails(t, () => rs({ asn: 'AS5-3' }), 'asn: AS range "AS5-3" is reversed: 5 is above 3')
  fails(t, () => rs({ asn: 65000 as unknown as string }), 'asn: expected text, got number')
  fails(t, () => ResourceSet.parse(null as unknown as ResourceSetText), 'resources: expected an object with asn, ipv4 and ipv6')
  try {
    rs({ ipv4: '10.0.0.0/8,,' })
  } catch (e) {
    t.type((e as Error).cause, ParseError, 'the original error is the cause')
  }
})

t.test('constructor checks the families', async (t) => {
  t.throws(() => new ResourceSet(AsBlocks.empty(), IpBlocks.empty(6), IpBlocks.empty(6)), TypeError)
  t.throws(() => new ResourceSet(AsBlocks.empty(), IpBlocks.empty(4), IpBlocks.empty(4)), TypeError)
  t.ok(Object.isFrozen(ResourceSet.empty()))
})

t.test('empty() and all()', async (t) => {
  t.ok(ResourceSet.empty().isEmpty())
  t.notOk(ResourceSet.all().isEmpty())
  t.same(ResourceSet.all().toJSON(), { asn: 'AS0-AS4294967295', ipv4: '0.0.0.0/0', ipv6: '::/0' })
  t.same(ResourceSet.all().toRfc6492(), { asn: '0-4294967295', ipv4: '0.0.0.0/0', ipv6: '::/0' })
  t.ok(ResourceSet.all().contains(rs({ asn: 'AS4294967295', ipv4: '255.255.255.255', ipv6: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' })))
  t.ok(ResourceSet.all().difference(ResourceSet.all()).isEmpty())
  t.ok(ResourceSet.empty().union(ResourceSet.all()).equals(ResourceSet.all()))
})

t.test('set algebra per family', async (t) => {
  const parent = rs({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' })
  const child = rs({ asn: 'AS65005', ipv4: '10.1.0.0/16', ipv6: '2001:db8:1::/48' })
  const other = rs({ asn: 'AS65011', ipv4: '11.0.0.0/8', ipv6: '' })
  t.ok(parent.contains(child))
  t.notOk(child.contains(parent))
  t.notOk(parent.contains(other), 'one family not held is enough to fail')
  t.notOk(parent.contains(rs({ ipv6: '2001:db9::/32' })))
  t.ok(parent.contains(ResourceSet.empty()))
  t.same(parent.union(other).toJSON(), { asn: 'AS65000-AS65011', ipv4: '10.0.0.0/7', ipv6: '2001:db8::/32' })
  t.same(parent.intersection(child).toJSON(), child.toJSON())
  t.ok(parent.intersection(other).isEmpty())
  t.same(parent.difference(child).toJSON(), {
    asn: 'AS65000-AS65004, AS65006-AS65010',
    ipv4: '10.0.0.0/16, 10.2.0.0-10.255.255.255',
    ipv6: '2001:db8::/48, 2001:db8:2::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
  })
  t.ok(parent.difference(child).union(child).equals(parent))
  t.notOk(parent.equals(child))
  t.ok(parent.equals(rs(parent.toJSON())))
})

/** The resource_set_* and req_resource_set_* attributes of a file (XML, or the XML inside CMS DER). */
function resourceAttributes(path: string): { name: string; value: string }[] {
  const text = readFileSync(path, 'latin1')
  return [...text.matchAll(/\b((?:req_)?resource_set_(?:as|ipv4|ipv6))="([^"]*)"/g)].map((m) => ({ name: m[1], value: m[2] }))
}

function parseAttribute(name: string, value: string): AsBlocks | IpBlocks {
  if (name.endsWith('_as')) return AsBlocks.parse(value)
  return IpBlocks.parse(value, name.endsWith('_ipv4') ? 4 : 6)
}

t.test('real RFC 6492 resource strings parse and print back in the same form', { skip: noShared }, async (t) => {
  let count = 0
  for (const dir of ['xml', 'cms']) {
    for (const file of readdirSync(SHARED + dir)) {
      for (const { name, value } of resourceAttributes(`${SHARED}${dir}/${file}`)) {
        const blocks = parseAttribute(name, value)
        // The RFC examples write IPv6 uncompressed ('2001:db8:0:0:0:0:a00::/120'); compare after RFC 5952.
        const expected = value.replaceAll('2001:db8:0:0:0:0:a0', '2001:db8::a0').replaceAll('::/120', ':0/120')
        if (blocks.toRfc6492() !== expected) t.fail(`${file} ${name}: ${value.slice(0, 60)} printed as ${blocks.toRfc6492().slice(0, 60)}`)
        count++
      }
    }
  }
  t.ok(count >= 60, `${count} attribute values round trip`)
})

t.test('the RFC 6492 examples', { skip: noShared }, async (t) => {
  const attrs = resourceAttributes(`${SHARED}xml/rfc6492-example-list_response.xml`)
  const ipv6 = attrs.find((a) => a.name === 'resource_set_ipv6' && a.value !== '')
  t.ok(ipv6)
  t.equal(IpBlocks.parse(ipv6!.value, 6).toString(), '2001:db8::a00:0/120, 2001:db8::a03:0/120')
  t.equal(AsBlocks.parse('64534-64540').toString(), 'AS64534-AS64540')
  t.equal(IpBlocks.parse('192.0.2.44-192.0.2.100', 4).toString(), '192.0.2.44-192.0.2.100')
})

t.test('a large real list (LACNIC, thousands of entries) parses quickly', { skip: noShared }, async (t) => {
  const attrs = resourceAttributes(`${SHARED}cms/lacnic-list_response-large.der`)
  const text: ResourceSetText = { asn: '', ipv4: '', ipv6: '' }
  for (const a of attrs) {
    if (a.name === 'resource_set_as') text.asn = a.value
    if (a.name === 'resource_set_ipv4') text.ipv4 = a.value
    if (a.name === 'resource_set_ipv6') text.ipv6 = a.value
  }
  rs(text)
  const start = performance.now()
  const set = rs(text)
  t.ok(set.ipv6.ranges.length > 5000, `${set.ipv6.ranges.length} IPv6 runs`)
  t.ok(set.ipv4.ranges.length > 1000, `${set.ipv4.ranges.length} IPv4 runs`)
  noHang(t, start, 'parsed')
  t.same(set.toRfc6492(), text)
  t.ok(set.contains(set.intersection(rs({ asn: 'AS0-4294967295', ipv4: '45.0.0.0/8', ipv6: '2001:1280::/25' }))))
})
