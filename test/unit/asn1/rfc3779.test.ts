/** RFC 3779 extensions: every example of rpki-encoding.md §6 as bytes, real certificates, problems, and OpenSSL. */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { bitString, explicit, int, nul, octetString, seq, seqOf } from '../../../src/asn1/der.js'
import {
  children, cursor, expectSequence, firstChild, oidIs, parseDer, readOctetString,
} from '../../../src/asn1/der-reader.js'
import { EncodeError } from '../../../src/asn1/der.js'
import { idPeAutonomousSysIds, idPeIpAddrBlocks } from '../../../src/asn1/oids.js'
import {
  decodeAsIdentifiers, decodeIpAddrBlocks, encodeAsIdentifiers, encodeIpAddrBlocks,
} from '../../../src/asn1/rfc3779.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { formatAddress, IpBlocks, type IpFamily, type IpRange } from '../../../src/resources/ip.js'
import { DecodeError } from '../../../src/util/errors.js'
import { toHex } from '../../../src/util/hex.js'

const hex = (b: Uint8Array) => toHex(b).replace(/(..)(?!$)/g, '$1 ')
const v4 = (text: string) => IpBlocks.parse(text, 4)
const v6 = (text: string) => IpBlocks.parse(text, 6)
/** The encoding of the single family's address list (the inner SEQUENCE OF), for pinning items. */
const items4 = (text: string) => hex(encodeIpAddrBlocks({ ipv4: v4(text) })).slice(3 * 10)
const items6 = (text: string) => hex(encodeIpAddrBlocks({ ipv6: v6(text) })).slice(3 * 10)

t.test('rpki-encoding.md §6.1: prefixes are BIT STRINGs of exactly the prefix length', async (t) => {
  t.equal(items4('10.0.0.0/8'), '03 02 00 0a')
  t.equal(items6('2001:db8::/32'), '03 05 00 20 01 0d b8')
  t.equal(items6('::/0'), '03 01 00')
  t.equal(items4('0.0.0.0-0.255.255.255'), '03 02 00 00', 'a range that is a prefix')
  t.equal(hex(encodeIpAddrBlocks({ ipv4: v4('10.0.0.0/8'), ipv6: v6('2001:db8::/32') })),
    '30 1b 30 0a 04 02 00 01 30 04 03 02 00 0a 30 0d 04 02 00 02 30 07 03 05 00 20 01 0d b8')
})

t.test('§6.2–6.4: range min strips trailing zeros, max trailing ones, pad bits zero', async (t) => {
  t.equal(items4('10.0.0.0-10.0.1.254'), '30 0b 03 02 01 0a 03 05 00 0a 00 01 fe')
  t.equal(items4('192.0.2.0-192.0.2.130'), '30 0d 03 04 01 c0 00 02 03 05 00 c0 00 02 82')
  t.equal(items6('2001:db8::-2001:db8:0:2:ffff:ffff:ffff:ffff'), '30 12 03 05 03 20 01 0d b8 03 09 00 20 01 0d b8 00 00 00 02')
  t.equal(items4('10.0.0.1-10.0.0.127'), '30 0e 03 05 00 0a 00 00 01 03 05 07 0a 00 00 00', '0x7f written as 0x00, unused 7')
  t.equal(items4('0.0.0.0-0.0.0.2'), '30 0a 03 01 00 03 05 00 00 00 00 02', 'all-zero min is empty')
  t.equal(items4('255.255.255.253-255.255.255.255'), '30 0a 03 05 00 ff ff ff fd 03 01 00', 'all-ones max is empty')
})

t.test('§6.5: merging overlapping and adjacent input, never splitting a run', async (t) => {
  t.equal(items4('10.0.0.0/9, 10.128.0.0/9, 11.0.0.0/8'), '03 02 01 0a')
  // rpki-encoding.md §6.5 prints '30 0d' here, but the contents are 4 + 7 = 11 octets: the length is 0x0b.
  t.equal(items4('10.0.0.0-10.0.0.2'), '30 0b 03 02 01 0a 03 05 00 0a 00 00 02')
  t.equal(items4('10.1.0.0/16, 10.2.0.0-10.2.3.255'), '30 0b 03 03 00 0a 01 03 04 02 0a 02 00', 'rpki-encoding.md §3 CA')
})

t.test('§6.6–6.7: inherit, ASIdentifiers', async (t) => {
  t.equal(hex(encodeIpAddrBlocks({ ipv4: 'inherit', ipv6: 'inherit' })), '30 10 30 06 04 02 00 01 05 00 30 06 04 02 00 02 05 00')
  t.equal(hex(encodeIpAddrBlocks({ ipv6: 'inherit', ipv4: IpBlocks.empty(4) })), '30 08 30 06 04 02 00 02 05 00')
  t.equal(hex(encodeAsIdentifiers(AsBlocks.parse('AS1-5, AS4294967295'))), '30 13 a0 11 30 0f 30 06 02 01 01 02 01 05 02 05 00 ff ff ff ff')
  t.equal(hex(encodeAsIdentifiers('inherit')), '30 04 a0 02 05 00')
  t.equal(hex(encodeAsIdentifiers(AsBlocks.parse('AS1, AS2, AS3-5'))), hex(encodeAsIdentifiers(AsBlocks.parse('AS1-5'))))
  t.equal(hex(encodeAsIdentifiers(AsBlocks.parse('AS65000'))), '30 09 a0 07 30 05 02 03 00 fd e8')
  t.equal(hex(encodeAsIdentifiers(AsBlocks.parse('AS0'))), '30 07 a0 05 30 03 02 01 00')
  t.throws(() => encodeAsIdentifiers(AsBlocks.empty()), EncodeError)
  t.throws(() => encodeIpAddrBlocks({}), EncodeError)
  t.throws(() => encodeIpAddrBlocks({ ipv4: IpBlocks.empty(4), ipv6: IpBlocks.empty(6) }), EncodeError)
  t.throws(() => encodeIpAddrBlocks({ ipv4: v6('::/0') }), EncodeError)
})

t.test('round trips without problems', async (t) => {
  const cases = [{ ipv4: v4('10.0.0.0/8, 192.0.2.0-192.0.2.130') }, { ipv6: v6('2001:db8::/32, ::1') },
    { ipv4: 'inherit' as const, ipv6: v6('::/0') }, { ipv4: v4('0.0.0.0/0'), ipv6: 'inherit' as const }]
  for (const c of cases) {
    const d = decodeIpAddrBlocks(encodeIpAddrBlocks(c))
    t.same(d.problems, [])
    t.same(encodeIpAddrBlocks(d), encodeIpAddrBlocks(c))
  }
  for (const a of [AsBlocks.parse('AS0, AS2-3, AS65000-AS65535, AS4294967295'), 'inherit' as const]) {
    const d = decodeAsIdentifiers(encodeAsIdentifiers(a))
    t.same(d.problems, [])
    t.same(encodeAsIdentifiers(d.asn!), encodeAsIdentifiers(a))
  }
})

const fam = (afi: number[], choice: Uint8Array) => seq(octetString(Uint8Array.from(afi)), choice)
const prefix = (bytes: number[], unused = 0) => bitString(Uint8Array.from(bytes), unused)
const problemsOf = (...families: Uint8Array[]) => decodeIpAddrBlocks(seqOf(families)).problems

t.test('non-canonical IP encodings are reported as problems, with the rule', async (t) => {
  t.match(problemsOf(fam([0, 1], seq(prefix([11]), prefix([10])))), [/^RFC 3779 §2\.2\.3\.6: .*ascending/])
  t.match(problemsOf(fam([0, 1], seq(prefix([10]), prefix([10, 1])))), [/^RFC 3779 §2\.2\.3\.6: .*overlap/])
  t.match(problemsOf(fam([0, 1], seq(prefix([10]), prefix([11])))), [/^RFC 3779 §2\.2\.3\.6: adjacent/])
  t.same(problemsOf(fam([0, 1], seq(seq(prefix([0x0a], 1), prefix([0x08], 2))))), ['RFC 3779 §2.2.3.7: IPv4 range that is a prefix is not encoded as one'])
  t.same(problemsOf(fam([0, 1], seq(seq(prefix([10, 0]), prefix([10, 0, 0, 2]))))), ['RFC 3779 §2.2.3.9: IPv4 range minimum keeps trailing zero bits'])
  t.same(problemsOf(fam([0, 1], seq(seq(prefix([10, 2], 1), prefix([10, 2, 0, 5]))))), ['RFC 3779 §2.2.3.9: IPv4 range maximum keeps trailing one bits'])
  t.match(problemsOf(fam([0, 2], nul()), fam([0, 1], nul())), [/^RFC 3779 §2\.2\.3\.3: .*families/])
  t.match(problemsOf(fam([0, 1, 1], nul())), [/RFC 6487 §4\.8\.10: IPv4 carries a SAFI/])
  t.match(problemsOf(fam([0, 3], nul())), [/RFC 6487 §4\.8\.10: address family 3/])
  t.match(problemsOf(fam([0, 1], seq())), [/RFC 6487 §4\.8\.10: empty IPv4/])
  t.match(decodeIpAddrBlocks(seq()).problems, [/RFC 6487 §4\.8\.10: .*no address family/])
  const d = decodeIpAddrBlocks(seqOf([fam([0, 1], seq(prefix([11]), prefix([10]), prefix([10, 1]))), fam([0, 2], nul())]))
  t.equal((d.ipv4 as IpBlocks).toString(), '10.0.0.0/7', 'blocks come back canonical')
  t.equal(d.ipv6, 'inherit')
})

t.test('broken IP structure is a DecodeError', async (t) => {
  const bad = (rule: RegExp, ...families: Uint8Array[]) => t.throws(() => decodeIpAddrBlocks(seqOf(families)), rule)
  bad(/RFC 3779 §2\.2\.3\.3: IPv4 appears twice/, fam([0, 1], nul()), fam([0, 1], nul()))
  bad(/RFC 3779 §2\.2\.3\.9: IPv4 range is reversed/, fam([0, 1], seq(seq(prefix([11]), prefix([10])))))
  bad(/RFC 3779 §2\.2\.3\.8: address of 40 bits/, fam([0, 1], seq(prefix([1, 2, 3, 4, 5]))))
  bad(/RFC 3779 §2\.2\.3\.3: addressFamily of 1 octets/, fam([1], nul()))
  bad(/RFC 3779 §2\.2\.3\.4/, fam([0, 1], int(1)))
  bad(/X\.690 §11\.2\.1/, fam([0, 1], seq(Uint8Array.of(0x03, 0x02, 0x01, 0x0b))))
  t.throws(() => decodeIpAddrBlocks(Uint8Array.of(0x30, 0x03, 0x30)), DecodeError)
})

t.test('AS problems (rdi, id as range, order) and errors', async (t) => {
  const ids = (...items: Uint8Array[]) => decodeAsIdentifiers(seq(explicit(0, seqOf(items))))
  t.match(ids(int(5), int(1)).problems, [/RFC 3779 §3\.2\.3\.5: AS blocks are not in ascending order/])
  t.match(ids(int(1), int(2)).problems, [/RFC 3779 §3\.2\.3\.5: adjacent AS blocks/])
  t.match(ids(seq(int(1), int(9)), int(5)).problems, [/overlap/])
  t.match(ids(seq(int(7), int(7))).problems, [/RFC 3779 §3\.2\.3\.8: AS7 is encoded as a range/])
  const rdi = decodeAsIdentifiers(seq(explicit(0, seq(int(1))), explicit(1, nul())))
  t.match(rdi.problems, [/RFC 6487 §4\.8\.11: rdi must not be used/])
  t.equal((rdi.asn as AsBlocks).toString(), 'AS1')
  t.match(decodeAsIdentifiers(seq(explicit(1, nul()))).problems, [/rdi/, /asnum is missing/])
  t.match(decodeAsIdentifiers(seq(explicit(0, seq()))).problems, [/empty AS list/])
  t.throws(() => ids(seq(int(9), int(1))), /RFC 3779 §3\.2\.3\.8: AS range 9-1 is reversed/)
  t.throws(() => ids(int(4294967296)), /RFC 3779 §3\.2\.3\.7/)
  t.throws(() => ids(int(-1)), DecodeError)
  t.throws(() => decodeAsIdentifiers(seq(explicit(0, int(1)))), /RFC 3779 §3\.2\.3\.3/)
  t.throws(() => decodeAsIdentifiers(seq(explicit(2, nul()))), /RFC 3779 §3\.2\.3\.1/)
})

/** The extnValue bytes of the RFC 3779 extensions of a certificate. */
function resourceExtensions(der: Uint8Array): { ip?: Uint8Array; as?: Uint8Array } {
  const tbs = expectSequence(firstChild(parseDer(der)), 'RFC 5280 §4.1')
  const out: { ip?: Uint8Array; as?: Uint8Array } = {}
  for (const n of tbs.rest()) {
    if (n.tag !== 0xa3) continue
    for (const ext of children(firstChild(n)!)) {
      const c = cursor(ext)
      const id = c.next('x')
      c.optional(0x01)
      const value = readOctetString(c.next('x', 0x04))
      if (oidIs(id, idPeIpAddrBlocks)) out.ip = value
      if (oidIs(id, idPeAutonomousSysIds)) out.as = value
    }
  }
  return out
}

function* certFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* certFiles(p)
    else if (name.endsWith('.cer')) yield p
  }
}

t.test('real certificates: decode, canonical ones re-encode to the same bytes; BBN cases flagged', async (t) => {
  const dir = '/work/shared/fixtures/objects'
  let files: string[]
  try {
    files = [...certFiles(dir)]
  } catch {
    return t.comment(`${dir} absent: skipped`)
  }
  let same = 0
  const flagged: string[] = []
  for (const f of files) {
    const ext = resourceExtensions(new Uint8Array(readFileSync(f)))
    if (ext.ip) {
      const d = decodeIpAddrBlocks(ext.ip)
      if (d.problems.length) flagged.push(`${f.slice(dir.length + 1)}: ${d.problems.join('; ')}`)
      else if (d.ipv4 !== undefined || d.ipv6 !== undefined) { t.same(encodeIpAddrBlocks(d), ext.ip, f); same++ }
    }
    if (ext.as) {
      const d = decodeAsIdentifiers(ext.as)
      if (d.problems.length) flagged.push(`${f.slice(dir.length + 1)}: ${d.problems.join('; ')}`)
      else { t.same(encodeAsIdentifiers(d.asn!), ext.as, f); same++ }
    }
  }
  t.ok(same >= 30, `${same} extensions re-encoded byte for byte`)
  t.match(flagged.join('\n'), /badCertResourcesBadV4Order\.cer: RFC 3779 §2\.2\.3\.6: IPv4 blocks are not in ascending order/)
  t.match(flagged.join('\n'), /badCertResourcesIPEmpty\.cer: RFC 6487 §4\.8\.10/)
  t.equal(flagged.length, 2, flagged.join('\n'))
  const inherit = resourceExtensions(new Uint8Array(readFileSync(join(dir, 'conformance-bbn/root/goodCertResourcesAllInherit.cer'))))
  t.same(decodeIpAddrBlocks(inherit.ip!), { ipv4: 'inherit', ipv6: 'inherit', problems: [] })
})

/** Seeded PRNG (mulberry32), so that a failure can be reproduced. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

function randomBlocks(rnd: () => number, family: IpFamily): IpBlocks {
  const bits = family === 4 ? 32 : 128
  const ranges: IpRange[] = []
  for (let i = 0, n = 1 + Math.floor(rnd() * 6); i < n; i++) {
    let a = 0n
    for (let k = 0; k < bits / 16; k++) a = (a << 16n) | BigInt(Math.floor(rnd() * 65536))
    const shift = BigInt(Math.floor(rnd() * (bits - 1)))
    const base = rnd() < 0.5 ? (a >> shift) << shift : a
    const size = rnd() < 0.5 ? 1n << BigInt(Math.floor(rnd() * Number(shift + 1n))) : BigInt(Math.floor(rnd() * 5000)) + 1n
    const max = base + size - 1n
    ranges.push({ min: base, max: max >= 1n << BigInt(bits) ? (1n << BigInt(bits)) - 1n : max })
  }
  return IpBlocks.fromRanges(family, ranges)
}

function opensslIp(b: IpBlocks | 'inherit', family: IpFamily): string[] {
  const tag = `IPv${family}`
  if (b === 'inherit') return [`${tag}:inherit`]
  return b.ranges.map((r) => `${tag}:${formatAddress(family, r.min)}-${formatAddress(family, r.max)}`)
}

t.test('OpenSSL encodes the same bytes for 300 random canonical sets', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-3779-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const rnd = prng(3779)
  const cases = Array.from({ length: 300 }, (_, i) => {
    const ipv4 = i % 10 === 3 ? 'inherit' as const : randomBlocks(rnd, 4)
    const ipv6 = i % 10 === 7 ? 'inherit' as const : randomBlocks(rnd, 6)
    const asn = i % 10 === 5 ? 'inherit' as const : AsBlocks.fromRanges(Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => {
      const min = rnd() < 0.1 ? 4294967295 - Math.floor(rnd() * 3) : Math.floor(rnd() * 4294967296)
      const max = Math.min(4294967295, min + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 100000)))
      return { min, max }
    }))
    return { ipv4, ipv6, asn }
  })
  // One shell runs every `openssl req` (OpenSSL's v2i + canonize encoder); an EC key keeps signing cheap.
  const lines = cases.map((c) => {
    const as = c.asn === 'inherit' ? ['AS:inherit'] : c.asn.ranges.map((r) => (r.min === r.max ? `AS:${r.min}` : `AS:${r.min}-${r.max}`))
    return `${[...opensslIp(c.ipv4, 4), ...opensslIp(c.ipv6, 6)].join(',')} ${as.join(',')}\n`
  })
  writeFileSync(join(dir, 'cases.txt'), lines.join(''))
  const script = `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out k.pem 2>/dev/null || exit 3
i=0; while read ip as; do openssl req -x509 -new -key k.pem -subj /CN=x -days 1 -outform DER -out c$i.der \\
  -addext "sbgp-ipAddrBlock=critical,$ip" -addext "sbgp-autonomousSysNum=critical,$as" || exit 1; i=$((i+1)); done < cases.txt`
  try {
    await promisify(execFile)('sh', ['-c', script], { cwd: dir })
  } catch (e) {
    if ((e as { code?: number }).code === 3) return t.comment('openssl not available: skipped')
    throw e
  }
  let agreed = 0
  cases.forEach((c, i) => {
    const ext = resourceExtensions(new Uint8Array(readFileSync(join(dir, `c${i}.der`))))
    if (hex(encodeIpAddrBlocks(c)) === hex(ext.ip!) && hex(encodeAsIdentifiers(c.asn)) === hex(ext.as!)) agreed++
    else t.fail(`case ${i}: ${lines[i]}`)
  })
  t.equal(agreed, 300)
})
