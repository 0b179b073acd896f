/**
 * GET /api/v1/cas/{ca}/routes and `svcc roas list` (issue 10, defect 5): the listing grows linearly with the number
 * of authorisations (each ROA object once, not embedded in every authorisation it carries), pages concatenate to the
 * whole listing in a stable order, bad paging parameters are refused with a label, and a small CA's listing is
 * Krill's, with svcc's text output as before.
 *
 *   ta ── testbed ── big (2,000 authorisations over 4 ASNs: aggregated, one ROA object per ASN)
 *                 └─ small (3 authorisations: one ROA object each)
 */
import t from 'tap'
import type { ConfiguredRoa } from '../../src/api/cas.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

const ROUTES = 2_000
const ASNS = 4

/** The i-th authorisation of `big`: a /24 in 10.0.0.0/8 (with a max length for every third), over ASNS ASNs. */
function route(i: number): { asn: number; prefix: string; max: number } {
  return { asn: 65000 + (i % ASNS), prefix: `10.${i >> 8}.${i & 255}.0/24`, max: i % 3 === 0 ? 25 : 24 }
}

async function listing(d: RepoDaemon, ca: string, query = ''): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return httpsRequest(`${d.url}api/v1/cas/${ca}/routes${query}`, { headers: { Authorization: `Bearer ${d.token}` } })
}

async function certified(d: RepoDaemon, ca: string, ipv4: string): Promise<void> {
  await d.cli(['add', '-c', ca])
  await connect(d, 'testbed', d, ca, { ipv4 })
  await waitFor(`${ca} certified`, async () => /active/.test(await d.cli(['show', '-c', ca])))
}

t.test('2,000 authorisations: linear size, each ROA object once, paging', async (t) => {
  const d = await repoDaemon(t)
  await certified(d, 'big', '10.0.0.0/8')
  const lines = Array.from({ length: ROUTES }, (_, i) => route(i)).map((r) => `A: ${r.prefix}${r.max === 24 ? '' : `-${r.max}`} => ${r.asn}`)
  await d.cli(['roas', 'update', '-c', 'big', '--delta', d.file('big.txt', lines.join('\n') + '\n')])

  // Every authorisation carried by an object (the aggregated ROAs are signed and stored).
  const full = await waitFor('every authorisation carried by a ROA object', async () => {
    const r = await listing(d, 'big')
    const roas = JSON.parse(r.body) as ConfiguredRoa[]
    return roas.length === ROUTES && roas.every((x) => x.roa_objects.length === 1) ? r : undefined
  }, 120_000)
  t.equal(full.status, 200)
  t.equal(full.headers['x-total-count'], String(ROUTES))
  t.equal(full.headers.link, undefined, 'the default page holds all 2,000: no next page')
  const roas = JSON.parse(full.body) as ConfiguredRoa[]

  // Each ROA object is given in full exactly once, at the first authorisation it carries, and carries them all.
  const fullAt = new Map<string, number>()
  const carried = new Map<string, number>()
  const problems: string[] = []
  roas.forEach((r, i) => {
    for (const o of r.roa_objects) {
      carried.set(o.uri, (carried.get(o.uri) ?? 0) + 1)
      if (o.base64 !== undefined) {
        if (fullAt.has(o.uri)) problems.push(`${o.uri} given in full twice`)
        fullAt.set(o.uri, i)
        if (o.authorizations?.length !== ROUTES / ASNS) problems.push(`${o.uri} lists ${o.authorizations?.length} authorisations`)
      } else {
        if (!(fullAt.get(o.uri)! < i)) problems.push(`${r.prefix}: reference to ${o.uri} before the object in full`)
        if (Object.keys(o).join() !== 'validity,serial,uri,hash') problems.push(`${r.prefix}: reference with ${Object.keys(o).join()}`)
      }
    }
  })
  t.same(problems, [], 'each object in full once, at the first authorisation it carries, listing all it carries; references (uri, hash, serial, validity) after it')
  t.equal(fullAt.size, ASNS, 'one aggregated ROA per ASN')
  t.same([...carried.values()], Array(ASNS).fill(ROUTES / ASNS))
  const objectBytes = roas.flatMap((r) => r.roa_objects).filter((o) => o.base64).reduce((n, o) => n + JSON.stringify(o).length, 0)
  const perRoute = (full.body.length - objectBytes) / ROUTES
  t.ok(perRoute < 500, `the listing costs ${perRoute.toFixed(0)} bytes per authorisation besides the objects (bound 500)`)
  t.ok(full.body.length < ROUTES * 1_000, `the whole listing is ${full.body.length} bytes, under 1,000 per authorisation (Krill's shape would embed a ${(objectBytes / ASNS / 1024).toFixed(0)} KiB object in each)`)

  // Listing order: RFC 9582 payload order (address, prefix length, max length, ASN); stable from one call to the next.
  const order = roas.map((r) => `${r.prefix}-${r.max_length} => ${r.asn}`)
  const expected = Array.from({ length: ROUTES }, (_, i) => route(i)).map((r) => `${r.prefix}-${r.max} => ${r.asn}`)
  t.same(order, expected, 'sorted by address, then length, max length and ASN')
  t.equal((await listing(d, 'big')).body, full.body, 'the same listing twice')

  // Pages of 300 concatenate to the whole listing; each names the next one; past the end is empty.
  const pages: ConfiguredRoa[] = []
  let next: string | undefined = '?offset=0&limit=300'
  let count = 0
  while (next) {
    const p = await listing(d, 'big', next)
    t.equal(p.status, 200)
    t.equal(p.headers['x-total-count'], String(ROUTES))
    pages.push(...(JSON.parse(p.body) as ConfiguredRoa[]))
    const link = p.headers.link as string | undefined
    next = link ? /<[^?>]*(\?[^>]*)>; rel="next"/.exec(link)![1] : undefined
    count++
  }
  t.equal(count, Math.ceil(ROUTES / 300))
  t.same(pages, roas, 'the pages concatenate to the whole listing')
  const past = await listing(d, 'big', `?offset=${ROUTES}`)
  t.same([past.status, JSON.parse(past.body), past.headers['x-total-count']], [200, [], String(ROUTES)])

  for (const q of ['?offset=-1', '?offset=x', '?limit=0', '?limit=10001', '?limit=1.5', '?offset=1&offset=2']) {
    const bad = await listing(d, 'big', q)
    t.equal(bad.status, 400, `${q} is refused`)
    t.equal(JSON.parse(bad.body).label, 'api-invalid-query', `${q}: labelled`)
  }
  t.equal((await listing(d, 'nope')).status, 404)

  // svcc fetches every page; --limit asks for one.
  const text = await d.cli(['roas', 'list', '-c', 'big'])
  t.same(text.trimEnd().split('\n'), expected.map((x) => x.replace(/\/24-24 =>/, '/24 =>')))
  t.equal(await d.cli(['roas', 'list', '-c', 'big', '--offset', '5', '--limit', '3']), text.split('\n').slice(5, 8).join('\n') + '\n')
  const json = JSON.parse(await d.cli(['roas', 'list', '-c', 'big', '-f', 'json'])) as ConfiguredRoa[]
  t.same(json, roas, '--format json prints the whole listing')
})

t.test("a small CA: Krill's listing, and svcc's text as before", async (t) => {
  const d = await repoDaemon(t)
  await certified(d, 'small', '192.168.0.0/16')
  await d.cli(['roas', 'update', '-c', 'small', '--delta', d.file('d.txt', 'A: 192.168.1.0/24 => 64496 # office\nA: 192.168.0.0/16-20 => 64497\nA: 192.168.0.0/16 => 64496\n')])
  const roas = await waitFor('three ROA objects', async () => {
    const r = JSON.parse((await listing(d, 'small')).body) as ConfiguredRoa[]
    return r.every((x) => x.roa_objects.length === 1) ? r : undefined
  })
  t.same(roas.map((r) => [r.asn, r.prefix, r.max_length, r.comment]), [[64496, '192.168.0.0/16', 16, null], [64497, '192.168.0.0/16', 20, null], [64496, '192.168.1.0/24', 24, 'office']])
  for (const r of roas) {
    const o = r.roa_objects[0]!
    t.same(Object.keys(o), ['authorizations', 'validity', 'serial', 'uri', 'base64', 'hash'], "every object in full, with Krill's RoaInfo fields")
    t.same(o.authorizations, [`${r.prefix}${r.max_length === Number(r.prefix.split('/')[1]) ? '' : `-${r.max_length}`} => ${r.asn}`])
  }
  t.equal(await d.cli(['roas', 'list', '-c', 'small']), '192.168.0.0/16 => 64496\n192.168.0.0/16-20 => 64497\n192.168.1.0/24 => 64496\n')
})
