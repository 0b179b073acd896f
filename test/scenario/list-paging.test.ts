/**
 * The lists svcd pages for the console (design.md §8, issue 23 item 8; api/paging.ts): GET …/children (new), GET /cas
 * and GET /pubd/publishers with paging parameters, and the history's ?q= and ?order=. Searched, sorted and paged on the
 * server, pages that make up the whole, labelled 400s for bad parameters, 404 for an unknown CA; and without the new
 * parameters Krill's shapes exactly.
 *
 *   ta ── testbed ── c00 … c11   AS65000+i, 10.i.0.0/16 (c02 and c05 suspended)
 *   publishers: ta, testbed (the CAs'), p-a, p-b, p-c (added, nothing published)
 */
import t from 'tap'
import type { ChildrenPageJson, PublishersPageJson } from '../../src/api/paging.js'
import type { CommandHistoryJson } from '../../src/api/cas.js'
import { toBase64 } from '../../src/util/base64.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { httpsRequest } from '../helpers/daemon.js'
import { TestPublisher } from '../helpers/publisher.js'

const N = 12
const handles = Array.from({ length: N }, (_, i) => `c${String(i).padStart(2, '0')}`)

type Answer<T> = { status: number; body: T & { label?: string; args?: { name?: string } } }

async function call<T>(d: RepoDaemon, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${d.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }
  const r = await httpsRequest(`${d.url}api/v1/${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) })
  return { status: r.status, body: (r.body ? JSON.parse(r.body) : {}) as Answer<T>['body'] }
}

t.test('children, publishers and history, paged on the server', async (t) => {
  const d = await repoDaemon(t)
  const get = <T>(path: string) => call<T>(d, 'GET', path)
  await waitFor('testbed certified', async () => /active/.test(await d.cli(['show', '-c', 'testbed'])))
  for (const [i, handle] of handles.entries()) {
    const child = new TestChild(handle)
    const added = await call(d, 'POST', 'cas/testbed/children', { handle, resources: { asn: `AS${65000 + i}`, ipv4: `10.${i}.0.0/16`, ipv6: '' }, id_cert: toBase64(child.idCert) })
    t.equal(added.status, 200, `${handle} added`)
  }
  for (const c of ['c02', 'c05']) t.equal((await call(d, 'POST', `cas/testbed/children/${c}`, { suspend: true })).status, 200, `${c} suspended`)

  await t.test('children', async (t) => {
    const all = await get<ChildrenPageJson>('cas/testbed/children')
    t.equal(all.status, 200)
    t.same([all.body.total, all.body.offset, all.body.limit], [N, 0, 100], 'a default page of 100')
    t.same(all.body.children.map((c) => c.handle), handles, 'by handle')
    const info = await get<{ state: string; entitled_resources: unknown }>('cas/testbed/children/c03')
    t.same(all.body.children[3], { handle: 'c03', state: info.body.state, entitled_resources: info.body.entitled_resources }, "a row is the child's info without its identity certificate")

    const pages: string[] = []
    for (let offset = 0; offset < N; offset += 5) pages.push(...(await get<ChildrenPageJson>(`cas/testbed/children?offset=${offset}&limit=5`)).body.children.map((c) => c.handle))
    t.same(pages, handles, 'pages of 5 make up the whole')
    const past = await get<ChildrenPageJson>('cas/testbed/children?offset=100')
    t.same([past.status, past.body.total, past.body.children], [200, N, []], 'past the end: no rows, the total')

    const byState = await get<ChildrenPageJson>('cas/testbed/children?sort=state&order=desc&limit=3')
    t.same(byState.body.children.map((c) => `${c.handle} ${c.state}`), ['c05 suspended', 'c02 suspended', 'c11 active'], 'suspended first when descending (ties in reverse)')
    t.same((await get<ChildrenPageJson>('cas/testbed/children?q=10.3.0.0')).body.children.map((c) => c.handle), ['c03'], 'searched in the resources')
    t.same((await get<ChildrenPageJson>('cas/testbed/children?q=C1')).body.children.map((c) => c.handle), ['c10', 'c11'], 'in the handle, case-insensitive')
    t.same((await get<ChildrenPageJson>('cas/testbed/children?q=AS65007')).body.total, 1, 'an AS number')
    t.same((await get<ChildrenPageJson>('cas/testbed/children?q=nothing')).body, { total: 0, offset: 0, limit: 100, children: [] }, 'no match')
  })

  await t.test('publishers: Krill\'s list without paging parameters, a page with them', async (t) => {
    for (const h of ['p-c', 'p-a', 'p-b']) t.equal((await call(d, 'POST', 'pubd/publishers', { publisher_handle: h, id_cert: toBase64(new TestPublisher(h).idCert), tag: null })).status, 200, `${h} added`)
    const krill = await get<{ publishers: { handle: string }[] }>('pubd/publishers')
    t.equal(krill.status, 200)
    t.same(Object.keys(krill.body), ['publishers'], "Krill's shape")
    t.ok(krill.body.publishers.every((p) => Object.keys(p).join() === 'handle'), 'rows of {handle} only')
    const n = krill.body.publishers.length
    t.ok(n >= 5, `the CAs' publishers and the three added (${n})`)

    const page = await get<PublishersPageJson>('pubd/publishers?limit=2')
    t.same([page.body.total, page.body.offset, page.body.limit, page.body.publishers.length], [n, 0, 2, 2])
    t.same(Object.keys(page.body.publishers[0]!).sort(), ['handle', 'last_update', 'objects', 'size'], 'rows with their figures')
    const added = await get<PublishersPageJson>('pubd/publishers?q=P-&stale=3600')
    t.same(added.body.publishers, ['p-a', 'p-b', 'p-c'].map((handle) => ({ handle, objects: 0, size: 0, last_update: null, stale: false })), 'searched, by handle; just added: not stale')
    t.ok((await get<PublishersPageJson>('pubd/publishers?q=p-&stale=0')).body.publishers.every((p) => p.stale), 'stale after 0 seconds')
    const busiest = await get<PublishersPageJson>('pubd/publishers?sort=objects&order=desc')
    t.ok(busiest.body.publishers[0]!.objects > 0 && busiest.body.publishers.at(-1)!.objects === 0, 'by objects, descending')
    const stale = await get<{ publishers: { handle: string }[] }>('pubd/stale/0')
    t.same(Object.keys(stale.body), ['publishers'], 'GET /pubd/stale keeps its shape')
  })

  await t.test("CAs: Krill's list without paging parameters, a page with them", async (t) => {
    const krill = await get<{ cas: { handle: string }[] }>('cas')
    t.same(Object.keys(krill.body), ['cas'], "Krill's shape")
    const handles = krill.body.cas.map((c) => c.handle)
    t.ok(handles.includes('testbed'))
    const page = await get<{ total: number; offset: number; limit: number; cas: { handle: string }[] }>('cas?limit=1&order=desc')
    t.same(page.body, { total: handles.length, offset: 0, limit: 1, cas: [{ handle: [...handles].sort().at(-1)! }] }, 'a page, by handle descending')
    t.same((await get<{ cas: { handle: string }[] }>('cas?q=TESTB')).body.cas, [{ handle: 'testbed' }], 'searched in the handle')
  })

  await t.test('history: ?order=desc and ?q=, Krill\'s answer without them', async (t) => {
    const asc = await get<CommandHistoryJson>('cas/testbed/history/commands')
    t.equal(asc.status, 200)
    t.same(Object.keys(asc.body), ['offset', 'total', 'commands'], "Krill's shape")
    const versions = asc.body.commands.map((c) => c.version)
    t.same(versions, [...versions].sort((a, b) => a - b), 'oldest first')
    const desc = await get<CommandHistoryJson>('cas/testbed/history/commands?order=desc')
    t.same(desc.body.commands.map((c) => c.version), [...versions].reverse(), 'newest first')
    t.same((await get<CommandHistoryJson>('cas/testbed/history/commands/2/1?order=desc')).body.commands.map((c) => c.version), [...versions].reverse().slice(1, 3), 'the offset counts from the newest')

    const added = await get<CommandHistoryJson>('cas/testbed/history/commands?q=CHILD-ADD')
    t.equal(added.body.total, N, 'searched in the label, case-insensitive')
    t.ok(added.body.commands.every((c) => c.summary.label === 'cmd-ca-child-add'))
    // Every record's details hold "type": the search looks in the label, message and actor only.
    const shown = (c: CommandHistoryJson['commands'][number]) => `${c.summary.label}\n${c.summary.msg}\n${c.actor}`.toLowerCase()
    t.ok(asc.body.total < 100, 'the whole history in one page')
    t.equal((await get<CommandHistoryJson>('cas/testbed/history/commands?q=type')).body.total, asc.body.commands.filter((c) => shown(c).includes('type')).length, 'not in the details')
    const byMsg = await get<CommandHistoryJson>('cas/testbed/history/commands/1/0?q=c07')
    t.same([byMsg.body.total, byMsg.body.commands.length], [1, 1], 'in the message; a page of the matches with their total')
    t.equal((await get<CommandHistoryJson>('cas/testbed/history/commands?q=admin-token')).body.total, asc.body.total - asc.body.commands.filter((c) => c.actor !== 'admin-token').length, 'in the actor')
    t.equal((await get<CommandHistoryJson>(`cas/testbed/history/commands?q=${encodeURIComponent('"ü\\')}`)).status, 200, 'any text')
  })

  await t.test('bad parameters: 400 api-invalid-query naming the parameter; an unknown CA: 404', async (t) => {
    const bad: [string, string][] = [
      ['cas/testbed/children?limit=0', 'limit'],
      ['cas/testbed/children?limit=1001', 'limit'],
      ['cas/testbed/children?offset=-1', 'offset'],
      ['cas/testbed/children?sort=size', 'sort'],
      ['cas/testbed/children?order=up', 'order'],
      ['cas/testbed/children?q=a&q=b', 'q'],
      [`cas/testbed/children?q=${'x'.repeat(201)}`, 'q'],
      ['pubd/publishers?sort=created', 'sort'],
      ['pubd/publishers?stale=soon', 'stale'],
      ['pubd/publishers?limit=x', 'limit'],
      ['cas?sort=created', 'sort'],
      ['cas/testbed/history/commands?order=sideways', 'order'],
      [`cas/testbed/history/commands?q=${'x'.repeat(201)}`, 'q'],
    ]
    for (const [path, name] of bad) {
      const r = await get(path)
      t.same([r.status, r.body.label, r.body.args?.name], [400, 'api-invalid-query', name], `${path.slice(0, 50)} refused`)
    }
    const unknown = await get('cas/nope/children')
    t.same([unknown.status, unknown.body.label], [404, 'ca-unknown'])
    const noToken = await httpsRequest(`${d.url}api/v1/cas/testbed/children`)
    t.equal(noToken.status, 401, 'behind the token')
  })
})
