/**
 * GET /api/v1/cas/{ca}/routes/page and `svcc roas search` (issue 15, the console's ROA table): the authorisations
 * matching a text (prefix, "AS<asn>", comment), sorted by prefix, ASN, max length or comment either way, a page at a
 * time with the count of matches; bad parameters refused with labels; an unknown CA is ca-unknown.
 *
 *   ta ── testbed ── ca1  10.0.0.0/8, 30 authorisations over 3 ASNs
 */
import t from 'tap'
import type { RoasPageJson } from '../../src/api/cas.js'
import { connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

const N = 30

async function page(d: RepoDaemon, query: string, ca = 'ca1'): Promise<{ status: number; body: RoasPageJson & { label?: string; msg?: string } }> {
  const r = await httpsRequest(`${d.url}api/v1/cas/${ca}/routes/page${query}`, { headers: { Authorization: `Bearer ${d.token}` } })
  return { status: r.status, body: JSON.parse(r.body) as RoasPageJson }
}

const text = (p: RoasPageJson) => p.items.map((r) => `${r.prefix}-${r.max_length}=>${r.asn}`)

t.test('search, sort and page the configured ROAs', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  // 10.0.<i>.0/24 => 65000 + i % 3, max length 24 + (i % 4 === 0), comments "lab" on every fifth.
  const lines = Array.from({ length: N }, (_, i) => `A: 10.0.${i}.0/24${i % 4 === 0 ? '-25' : ''} => ${65000 + (i % 3)}${i % 5 === 0 ? ` # lab ${i}` : ''}`)
  await d.cli(['roas', 'update', '-c', 'ca1', '--delta', d.file('roas.txt', lines.join('\n') + '\n')])

  const all = await waitFor('the ROAs carried by objects', async () => {
    const p = await page(d, '?limit=100')
    return p.body.items.every((r) => r.roa_objects > 0) ? p : undefined
  })
  t.equal(all.status, 200)
  t.same([all.body.total, all.body.offset, all.body.limit, all.body.items.length], [N, 0, 100, N])
  t.same(all.body.items[0], { asn: 65000, prefix: '10.0.0.0/24', max_length: 25, comment: 'lab 0', roa_objects: 1 }, 'a light row')
  t.same(text(all.body).slice(0, 3), ['10.0.0.0/24-25=>65000', '10.0.1.0/24-24=>65001', '10.0.2.0/24-24=>65002'], 'the listing order by default')

  const dflt = await page(d, '')
  t.same([dflt.body.limit, dflt.body.items.length], [100, N], 'a default page of 100')

  const byAsn = await page(d, '?q=as65002&limit=100')
  t.equal(byAsn.body.total, 10, 'AS65002: ten matches')
  t.ok(byAsn.body.items.every((r) => r.asn === 65002))
  const byComment = await page(d, '?q=LAB')
  t.same(byComment.body.items.map((r) => r.comment), ['lab 0', 'lab 5', 'lab 10', 'lab 15', 'lab 20', 'lab 25'], 'comments, case-insensitive')
  const byPrefix = await page(d, '?q=10.0.1')
  t.same(text(byPrefix.body), ['10.0.1.0/24-24=>65001', ...Array.from({ length: 10 }, (_, i) => `10.0.${10 + i}.0/24-${(10 + i) % 4 === 0 ? 25 : 24}=>${65000 + ((10 + i) % 3)}`)], 'a prefix fragment')
  t.equal((await page(d, '?q=192.168')).body.total, 0, 'no match')

  const asnDesc = await page(d, '?sort=asn&order=desc&limit=5')
  t.same(text(asnDesc.body), ['10.0.29.0/24-24=>65002', '10.0.26.0/24-24=>65002', '10.0.23.0/24-24=>65002', '10.0.20.0/24-25=>65002', '10.0.17.0/24-24=>65002'], 'ASN descending (ties in reverse listing order)')
  const maxLen = await page(d, '?sort=max_length&order=desc&limit=3')
  t.ok(maxLen.body.items.every((r) => r.max_length === 25), 'max length descending')
  const byCommentSort = await page(d, '?sort=comment&order=desc&limit=2')
  t.same(byCommentSort.body.items.map((r) => r.comment), ['lab 5', 'lab 25'], 'comment descending, as text')

  // Pages concatenate to the whole result in order.
  const pages: string[] = []
  for (let offset = 0; offset < N; offset += 7) pages.push(...text((await page(d, `?sort=asn&offset=${offset}&limit=7`)).body))
  t.same(pages, text((await page(d, '?sort=asn&limit=100')).body), 'pages of 7 make up the whole')
  const past = await page(d, '?offset=1000')
  t.same([past.status, past.body.total, past.body.items], [200, N, []], 'past the end: no rows, the total')

  for (const [query, name] of [['?sort=size', 'sort'], ['?order=up', 'order'], ['?limit=0', 'limit'], ['?limit=10001', 'limit'], ['?offset=-1', 'offset'], ['?q=a&q=b', 'q'], [`?q=${'x'.repeat(201)}`, 'q']] as const) {
    const r = await page(d, query)
    t.same([r.status, r.body.label, (r.body as unknown as { args: { name: string } }).args.name], [400, 'api-invalid-query', name], `${query.slice(0, 20)} refused`)
  }
  const unknown = await page(d, '', 'nope')
  t.same([unknown.status, unknown.body.label], [404, 'ca-unknown'])

  // svcc roas search: text, JSON, --api.
  const out = await d.cli(['roas', 'search', '-c', 'ca1', '--text', 'AS65001', '--sort', 'asn', '--limit', '3'])
  t.equal(out, '10.0.1.0/24 => 65001\n10.0.4.0/24-25 => 65001\n10.0.7.0/24 => 65001\n1-3 of 10\n')
  const json = JSON.parse(await d.cli(['roas', 'search', '-c', 'ca1', '--text', 'lab 25', '-f', 'json'])) as RoasPageJson
  t.same(json, { total: 1, offset: 0, limit: 100, items: [{ asn: 65001, prefix: '10.0.25.0/24', max_length: 24, comment: 'lab 25', roa_objects: 1 }] })
  t.equal(await d.cli(['roas', 'search', '-c', 'ca1', '--text', 'nothing-like-this']), 'no match\n')
  const printed = await d.cli(['roas', 'search', '-c', 'ca1', '--text', '10.0/x', '--desc', '--api'])
  t.match(printed, /^GET https:\/\/\S+\/api\/v1\/cas\/ca1\/routes\/page\?offset=0&limit=100&q=10\.0%2Fx&sort=prefix&order=desc\n/)
  const usage = await d.run(['roas', 'search', '-c', 'ca1', '--sort', 'size'])
  t.equal(usage.code, 2, 'a bad sort key is a usage error')
})
