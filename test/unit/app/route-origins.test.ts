/**
 * RIS whois dumps (app/bgp/route-origins.ts, ris-loader.ts, ris-service.ts; issue 15 item 5): the dump format and
 * what is left out, the index's lookups of the announcements inside a range (IPv4 and IPv6), reading gzip and plain
 * dumps from files and from an HTTP server on 127.0.0.1, the worker-thread service swapping in a refreshed dump, and
 * a failed load keeping the data there was.
 */
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGzip, gzipSync } from 'node:zlib'
import { DEFAULT_DUMP_LIMITS, loadDump } from '../../../src/app/bgp/ris-loader.js'
import { refuseSwap, RisWhoisService, SHRINK_CONFIRMATIONS } from '../../../src/app/bgp/ris-service.js'
import { defaults } from '../../../src/config.js'
import { parseRisWhois, RouteOrigins, type Announcement } from '../../../src/app/bgp/route-origins.js'
import { formatPrefix, parsePrefix, prefixRange } from '../../../src/resources/ip.js'
import { silentLogger } from '../../../src/log.js'
import { FakeClock } from '../../helpers/fake-clock.js'

const show = (l: Announcement[]) => l.map((a) => `${formatPrefix(a.prefix)} => ${a.asn}`)
const inside = (idx: RouteOrigins, prefix: string) => {
  const r = prefixRange(parsePrefix(prefix))
  return show(idx.within(r.min, r.max))
}

const V4 = [
  '% RIS whois dump (generated)',
  '%',
  '64496\t10.0.0.0/22\t300',
  '64496\t10.0.2.0/23\t250',
  '64497 10.0.0.0/22 12',
  '64496\t10.0.0.0/24\t6',
  '64498\t10.0.0.0/24\t5', // seen by too few peers
  '{64499,64500}\t10.0.1.0/24\t100', // an AS set
  '0\t10.0.3.0/24\t100', // AS0 is never an origin
  '64497\t10.0.0.0/21\t40',
  '64497\t192.168.0.0/24\t40',
  '64496\t10.0.0.0/22\t300', // a repeat
  '',
  'nonsense line',
  '64496\t10.0.0.1/24\t40', // host bits
  '64496\t2001:db8::/32\t40', // the other family
  '4294967296\t10.9.0.0/16\t40', // not an AS number
].join('\n')

t.test('the dump format: comments, blank lines, AS sets, AS0, too few peers, repeats and bad lines', async (t) => {
  const { index, counts } = parseRisWhois(V4, 4, 6)
  t.same(show(index.all()), ['10.0.0.0/21 => 64497', '10.0.0.0/22 => 64496', '10.0.0.0/22 => 64497', '10.0.0.0/24 => 64496', '10.0.2.0/23 => 64496', '192.168.0.0/24 => 64497'], 'sorted by address, length, origin; once each')
  t.equal(counts.kept, 7, 'seven lines kept (one a repeat)')
  t.equal(counts.skipped, 3, 'too few peers, an AS set, AS0')
  t.equal(counts.malformed, 4, 'four lines are not route origins of this family')
  t.equal(counts.firstMalformed, 'nonsense line')
  t.equal(parseRisWhois(V4, 4, 0).index.size, 7, 'minPeers 0 keeps the rarely seen pair')
})

t.test('the announcements inside a prefix or range', async (t) => {
  const { index } = parseRisWhois(V4, 4, 6)
  t.same(inside(index, '10.0.0.0/22'), ['10.0.0.0/22 => 64496', '10.0.0.0/22 => 64497', '10.0.0.0/24 => 64496', '10.0.2.0/23 => 64496'], 'an equal prefix counts, a covering one does not')
  t.same(inside(index, '10.0.2.0/23'), ['10.0.2.0/23 => 64496'])
  t.same(inside(index, '10.0.1.0/24'), [])
  t.same(inside(index, '10.0.0.0/8'), ['10.0.0.0/21 => 64497', '10.0.0.0/22 => 64496', '10.0.0.0/22 => 64497', '10.0.0.0/24 => 64496', '10.0.2.0/23 => 64496'])
  t.same(inside(index, '0.0.0.0/0').length, 6)
  // A range that is no prefix: 10.0.2.0 - 10.0.255.255 holds the /23 but not the /22 or /21 starting before it.
  t.same(show(index.within(parsePrefix('10.0.2.0/23').addr, parsePrefix('10.0.255.0/24').addr + 255n)), ['10.0.2.0/23 => 64496'])
  t.same(show(RouteOrigins.empty(4).within(0n, 0xffffffffn)), [], 'the empty index')
})

t.test('IPv6: four words per address', async (t) => {
  const text = ['64496\t2001:db8::/32\t100', '64497\t2001:db8:8000::/33\t100', '64496\t2001:db8:1::/48\t100', '64498\t2001:db9::/32\t100', '64499\t::/0\t100', '64496\t2001:db8:ffff:ffff::/64\t100'].join('\n')
  const { index } = parseRisWhois(text, 6, 6)
  t.equal(index.size, 6)
  t.same(inside(index, '2001:db8::/32'), ['2001:db8::/32 => 64496', '2001:db8:1::/48 => 64496', '2001:db8:8000::/33 => 64497', '2001:db8:ffff:ffff::/64 => 64496'])
  t.same(inside(index, '2001:db8:8000::/33'), ['2001:db8:8000::/33 => 64497', '2001:db8:ffff:ffff::/64 => 64496'])
  t.same(inside(index, '2001:db9::/32'), ['2001:db9::/32 => 64498'])
  t.same(inside(index, '::/0')[0], '::/0 => 64499', 'the default route first')
  const arrays = index.arrays()
  t.equal(arrays.words.length, 24, '4 words each')
  t.same(show(new RouteOrigins(arrays).all()), show(index.all()), 'rebuilt from its arrays (as after the transfer from the worker)')
})

t.test('the index of a large dump: built and searched fast enough', async (t) => {
  const lines: string[] = []
  for (let i = 0; i < 200_000; i++) lines.push(`${64496 + (i % 50)}\t${(i >> 16) + 1}.${(i >> 8) & 255}.${i & 255}.0/24\t${10 + (i % 300)}`)
  const started = Date.now()
  const { index } = parseRisWhois(lines.join('\n'), 4, 6)
  const built = Date.now() - started
  t.equal(index.size, 200_000)
  const q = Date.now()
  const found = inside(index, '2.0.0.0/8')
  const searched = Date.now() - q
  t.equal(found.length, 65536, 'every /24 of 2.0.0.0/8')
  t.ok(built < 20_000, `200,000 lines indexed in ${built} ms`)
  t.ok(searched < 2_000, `65,536 announcements found in ${searched} ms`)
})

t.test('loading dumps: gzip and plain files, file:// URLs, HTTP on 127.0.0.1, and the errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ris-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'v4.gz'), gzipSync(V4))
  writeFileSync(join(dir, 'v4.txt'), V4)
  const plain = await loadDump(join(dir, 'v4.txt'), 4, 6)
  const gz = await loadDump(`file://${join(dir, 'v4.gz')}`, 4, 6)
  t.equal(plain.arrays.size, 6)
  t.same(show(new RouteOrigins(gz.arrays).all()), show(new RouteOrigins(plain.arrays).all()), 'gzip or not, the same index')
  t.equal(gz.counts.malformed, 4)

  const server = await serve((path) => (path === '/v4.gz' ? gzipSync(V4) : undefined))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  t.equal((await loadDump(`${url}/v4.gz`, 4, 6)).arrays.size, 6, 'over HTTP')
  await t.rejects(loadDump(`${url}/missing.gz`, 4, 6), /cannot load the IPv4 RIS whois dump from http:\/\/127\.0\.0\.1:\d+\/missing\.gz: HTTP 404/)
  await t.rejects(loadDump(join(dir, 'nope'), 4, 6), /cannot load the IPv4 RIS whois dump from .*nope: .*ENOENT/)
  writeFileSync(join(dir, 'broken.gz'), gzipSync(V4).subarray(0, 40))
  await t.rejects(loadDump(join(dir, 'broken.gz'), 4, 6), /cannot load the IPv4 RIS whois dump/, 'a cut gzip stream')
  await t.rejects(loadDump(join(dir, 'v4.txt'), 4, 6, { timeoutMs: 60_000, maxBytes: 100 }), /larger than 100 bytes/)
  writeFileSync(join(dir, 'page.html'), '<html>\n<body>Service unavailable</body>\n</html>\n')
  await t.rejects(loadDump(join(dir, 'page.html'), 4, 6), /no route origins in it: 3 lines are not '<asn> <prefix> <peers>' \(the first: '<html>'\)/, 'an error page in place of the dump')
  writeFileSync(join(dir, 'empty'), '% nothing announced\n')
  t.equal((await loadDump(join(dir, 'empty'), 6, 6)).arrays.size, 0, 'a dump with no route origins and no bad lines is empty, not wrong')
  const refused = await fetchRefused()
  await t.rejects(loadDump(refused, 4, 6), /cannot load the IPv4 RIS whois dump from http:\/\/127\.0\.0\.1:\d+\/v4\.gz: fetch failed: .*ECONNREFUSED/, 'the reason a connection failed')
})

t.test('the service: loads in a worker thread, swaps in a refreshed dump, keeps its data when a load fails', async (t) => {
  let v4 = '64496\t10.0.0.0/24\t100\n'
  let fail = false
  const server = await serve((path) => (fail ? undefined : path === '/v4' ? Buffer.from(v4) : path === '/v6' ? gzipSync('64496\t2001:db8::/32\t100\n') : undefined))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const svc = new RisWhoisService({ v4Uri: `${url}/v4`, v6Uri: `${url}/v6`, refreshSeconds: 3600, minPeers: 6, log: silentLogger(), clock: new FakeClock(Date.parse('2026-11-24T12:00:00Z')) })
  t.teardown(() => svc.stop())
  t.equal(svc.current(), undefined, 'no data before the first load')
  t.equal(await svc.refresh(), true)
  t.same(show(svc.current()!.v4.all()), ['10.0.0.0/24 => 64496'])
  t.same(show(svc.current()!.v6.all()), ['2001:db8::/32 => 64496'])
  t.equal(svc.current()!.loaded, '2026-11-24T12:00:00.000Z')

  v4 = '64497\t10.0.0.0/24\t100\n64497\t10.0.1.0/24\t100\n'
  const both = [svc.refresh(), svc.refresh()]
  t.equal(both[0], both[1], 'a second refresh joins the running one')
  await Promise.all(both)
  t.same(show(svc.current()!.v4.all()), ['10.0.0.0/24 => 64497', '10.0.1.0/24 => 64497'], 'the refreshed dump')

  fail = true
  const before = svc.current()
  t.equal(await svc.refresh(), false)
  t.equal(svc.current(), before, 'a failed load keeps the data there was')
  t.match(svc.problem(), /HTTP 404/)
})

/** A URL on 127.0.0.1 where nothing listens (a port taken and released). */
async function fetchRefused(): Promise<string> {
  const s = await serve(() => undefined)
  const port = (s.address() as { port: number }).port
  await new Promise((r) => s.close(r))
  return `http://127.0.0.1:${port}/v4.gz`
}

function serve(body: (path: string) => Buffer | undefined): Promise<Server> {
  const server = createServer((req, res) => {
    const b = body(req.url ?? '')
    if (!b) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(b)
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

/** A gzip stream of `lines` times `line`, made on the fly: a few KB that inflate to `lines * line.length` bytes. */
function gzipBomb(line: string, lines: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 })
  const chunk = Buffer.from(line.repeat(Math.max(1, Math.floor(65536 / line.length))))
  const perChunk = chunk.length / line.length
  const parts: Buffer[] = []
  gz.on('data', (c: Buffer) => parts.push(c))
  const done = new Promise<Buffer>((resolve, reject) => {
    gz.on('end', () => resolve(Buffer.concat(parts)))
    gz.on('error', reject)
  })
  void (async () => {
    for (let n = 0; n < lines; n += perChunk) if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r))
    gz.end()
  })()
  return done
}

t.test('issue 22 defect 11: a gzip bomb is cut off at the limit, and the download stops there', async (t) => {
  t.equal(DEFAULT_DUMP_LIMITS.maxBytes, 256 * 1024 ** 2, 'the default bound is 256 MiB (a full table is about 30 MB)')
  t.equal(defaults().bgp_riswhois_max_bytes, DEFAULT_DUMP_LIMITS.maxBytes, 'and bgp_riswhois_max_bytes says the same')
  const dir = mkdtempSync(join(tmpdir(), 'svc-ris-bomb-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // 300 MiB of comment lines in well under a megabyte: over the default bound, and before the fix loaded as an empty dump.
  const bomb = await gzipBomb(`%${'x'.repeat(1022)}\n`, 300 * 1024)
  t.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes`)
  writeFileSync(join(dir, 'bomb.gz'), bomb)
  const started = Date.now()
  await t.rejects(loadDump(join(dir, 'bomb.gz'), 4, 6), /larger than 268435456 bytes after decompression/, 'the default bound refuses it')
  t.comment(`refused after ${Date.now() - started} ms`)

  // Over HTTP, a gzip stream without end: the loader stops reading and the connection closes.
  let closed!: () => void
  const connectionClosed = new Promise<void>((r) => (closed = r))
  let sent = 0
  const endless = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
    const gz = createGzip()
    gz.pipe(res)
    const line = Buffer.from(`%${'y'.repeat(1022)}\n`.repeat(64))
    const pump = () => {
      while (!res.destroyed) {
        sent += line.length
        if (!gz.write(line)) break
      }
    }
    gz.on('drain', pump)
    res.on('close', () => {
      gz.destroy()
      closed()
    })
    pump()
  })
  await new Promise<void>((r) => endless.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => endless.close())
  const url = `http://127.0.0.1:${(endless.address() as { port: number }).port}/endless.gz`
  await t.rejects(loadDump(url, 4, 6, { timeoutMs: 120_000, maxBytes: 4 * 1024 * 1024 }), /larger than 4194304 bytes after decompression/)
  await Promise.race([connectionClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('the download went on after the limit')), 20_000))])
  t.pass(`the connection closed after ${sent} bytes were inflated by the server's gzip (limit 4 MiB)`)
  t.ok(sent < 64 * 1024 * 1024, 'the server stopped long before an unbounded amount')
})

t.test('issue 22 defect 11: an empty or much smaller dump never replaces good data', async (t) => {
  const many = (asn: number, n: number) => Array.from({ length: n }, (_, i) => `${asn}\t10.${i >> 8}.${i & 255}.0/24\t100\n`).join('')
  let v4 = many(64496, 100)
  const server = await serve((path) => (path === '/v4' ? Buffer.from(v4) : undefined))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const svc = new RisWhoisService({ v4Uri: `${url}/v4`, v6Uri: '', refreshSeconds: 3600, minPeers: 6, log: silentLogger(), clock: new FakeClock(Date.parse('2026-11-27T02:00:00Z')) })
  t.teardown(() => svc.stop())
  t.equal(await svc.refresh(), true)
  const good = svc.current()!
  t.equal(good.v4.size, 100)

  v4 = '% RIS whois dump: nothing today\n'
  t.equal(await svc.refresh(), false, 'an empty dump is not taken')
  t.equal(svc.current(), good, 'the good data stays')
  t.match(svc.problem(), /the IPv4 dump holds no route origin/, 'and the problem is recorded')

  v4 = many(64497, 30)
  for (let i = 1; i < SHRINK_CONFIRMATIONS; i++) {
    t.equal(await svc.refresh(), false, `a dump with 30% of the route origins is not taken (load ${i})`)
    t.equal(svc.current(), good)
    t.match(svc.problem(), /the IPv4 dump holds 30 route origins, less than 50% of the 100 loaded/)
  }
  t.equal(await svc.refresh(), true, `taken when ${SHRINK_CONFIRMATIONS} loads in a row show it`)
  t.equal(svc.current()!.v4.size, 30)
  t.equal(svc.problem(), undefined)
})

t.test('refuseSwap: the rule', async (t) => {
  t.equal(refuseSwap(undefined, { v4: 10, v6: undefined }, 0), undefined, 'a first load is taken')
  t.match(refuseSwap(undefined, { v4: 0, v6: 5 }, 0), { shrink: false, reason: /IPv4 dump holds no route origin/ }, 'an empty first load is not')
  t.match(refuseSwap({ v4: 10, v6: 10 }, { v4: 10, v6: 0 }, 5), { shrink: false, reason: /IPv6/ }, 'nor is an empty one ever')
  t.equal(refuseSwap({ v4: 10, v6: 10 }, { v4: 5, v6: 5 }, 0), undefined, 'half is taken')
  t.match(refuseSwap({ v4: 10, v6: 10 }, { v4: 10, v6: 4 }, 0), { shrink: true })
  t.equal(refuseSwap({ v4: 10, v6: 10 }, { v4: 10, v6: 4 }, SHRINK_CONFIRMATIONS - 1), undefined)
  t.equal(refuseSwap({ v4: 10, v6: 0 }, { v4: 10, v6: undefined }, 0), undefined, 'a family that is not configured is not looked at')
})
