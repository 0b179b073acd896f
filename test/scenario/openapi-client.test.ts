/**
 * A client generated from the OpenAPI description drives the real svcd (spec §5 rule 4, §9 rule 3): openapi-fetch
 * typed with fixtures/openapi/schema.d.ts (openapi-typescript), configured with a host `https://<host>/api/v1` and
 * the bearer token, verifying TLS against the daemon's own certificate.
 *
 *   ta (embedded TA)
 *    └─ testbed
 *        └─ ca1  AS65000-AS65010, 10.0.0.0/8   added, certified and given ROAs through the generated client only
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import createClient from 'openapi-fetch'
import type { paths } from '../../fixtures/openapi/schema.js'
import { OPENAPI_VERSION } from '../../src/api/openapi.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { OPENAPI_JSON } from '../helpers/gen-openapi-client.js'

/** fetch over node:https that trusts exactly `ca` (the daemon's self-signed certificate): TLS stays verified. */
function verifyingFetch(ca: string) {
  return async function fetchWithCa(request: Request): Promise<Response> {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
    return new Promise((resolve, reject) => {
      const req = https.request(request.url, { method: request.method, headers: Object.fromEntries(request.headers), ca, agent: false }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => {
          const headers = new Headers()
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
          const status = res.statusCode ?? 0
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers }))
        })
      })
      req.on('error', reject)
      req.end(body)
    })
  }
}

/** The generated client for the API (`https://localhost:<port>/api/v1`) or, with `root`, for the public endpoints. */
function client(d: RepoDaemon, opts: { token?: string | null; root?: boolean } = {}) {
  const token = opts.token === undefined ? d.token : opts.token
  return createClient<paths>({
    baseUrl: `https://localhost:${d.port}${opts.root ? '' : '/api/v1'}`,
    fetch: verifyingFetch(readFileSync(d.tlsCert, 'utf8')),
    ...(token !== null ? { headers: { Authorization: `Bearer ${token}` } } : {}),
  })
}

t.test('a generated client: description, token and TLS, CA under testbed, ROAs (and a refused delta), history', async (t) => {
  const d = await repoDaemon(t)
  const api = client(d)

  await t.test('the description, the token and TLS', async (t) => {
    const doc = await api.GET('/openapi.json')
    t.equal(doc.response.status, 200)
    t.equal(doc.data?.info.version, OPENAPI_VERSION, 'its own version')
    t.same(doc.data, JSON.parse(readFileSync(OPENAPI_JSON, 'utf8')), 'the served document is the one the client was generated from')
    const refused = await client(d, { token: null }).GET('/openapi.json')
    t.equal(refused.response.status, 401)
    t.equal(refused.response.headers.get('www-authenticate'), 'Bearer')
    t.equal(refused.error?.label, 'api-invalid-credentials')
    t.equal((await client(d, { token: 'wrong' }).GET('/authorized')).error?.label, 'api-invalid-credentials')
    t.equal((await api.GET('/authorized')).response.status, 200)
    const unverified = createClient<paths>({ baseUrl: `https://localhost:${d.port}/api/v1`, headers: { Authorization: `Bearer ${d.token}` } })
    await t.rejects(unverified.GET('/cas'), { cause: { code: /CERT/ } }, 'the default fetch refuses the self-signed certificate: TLS is verified')
    const root = client(d, { root: true })
    t.match((await root.GET('/stats/info')).data, { version: String, started: Number }, 'public endpoints with the host as base')
    t.equal((await root.GET('/health')).response.status, 200)
  })

  await t.test('add ca1 and make it a child of testbed', async (t) => {
    // The testbed CA is created, and certified by the TA, just after svcd starts answering.
    await waitFor('the testbed CA to hold resources', async () => (await api.GET('/cas/{ca}', { params: { path: { ca: 'testbed' } } })).data?.resources.ipv4 || undefined)
    t.same((await api.GET('/cas')).data?.cas, [{ handle: 'ta' }, { handle: 'testbed' }])
    const added = await api.POST('/cas', { body: { handle: 'ca1' } })
    t.equal(added.response.status, 200)
    t.equal(added.data, undefined, 'mutations answer an empty body')
    t.equal((await api.POST('/cas', { body: { handle: 'ca1' } })).error?.label, 'ca-duplicate')
    t.equal((await api.GET('/cas/{ca}', { params: { path: { ca: 'nope' } } })).error?.label, 'ca-unknown', 'a typed error body')

    const ca1 = { params: { path: { ca: 'ca1' } } }
    const shown = (await api.GET('/cas/{ca}', ca1)).data
    t.equal(shown?.handle, 'ca1')
    t.same(shown?.parents, [])
    const request = (await api.GET('/cas/{ca}/child_request.json', ca1)).data
    t.equal(request?.child_handle, 'ca1')
    const xml = await api.GET('/cas/{ca}/id/child_request.xml', { ...ca1, parseAs: 'text' })
    t.match(xml.data, /<child_request [^>]*child_handle="ca1"/, 'RFC 8183 XML as text')

    const resources = { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '' }
    const response = await api.POST('/cas/{ca}/children', { params: { path: { ca: 'testbed' } }, body: { handle: 'ca1', resources, id_cert: request!.id_cert } })
    t.equal(response.response.status, 200, JSON.stringify(response.error))
    t.match(response.data, { parent_handle: 'testbed', child_handle: 'ca1', service_uri: /\/rfc6492\/testbed$/ })
    // Given in the short form, shown in Krill's (both ends of an AS range with AS).
    t.same((await api.GET('/cas/{ca}/children/{child}', { params: { path: { ca: 'testbed', child: 'ca1' } } })).data?.entitled_resources, { ...resources, asn: 'AS65000-AS65010' })
    const parent = await api.POST('/cas/{ca}/parents', { ...ca1, body: { handle: 'testbed', response: response.data! } })
    t.equal(parent.response.status, 200)
    const certified = await waitFor('ca1 to be certified', async () => {
      const info = (await api.GET('/cas/{ca}', ca1)).data
      return info?.resources.ipv4 === '10.0.0.0/8' ? info : undefined
    })
    t.same(certified.parents, [{ handle: 'testbed', kind: 'rfc6492' }])
    t.equal((await api.GET('/cas/{ca}/parents/{parent}', { params: { path: { ca: 'ca1', parent: 'testbed' } } })).data?.parent_handle, 'testbed')
    t.same((await api.GET('/cas/{ca}/issues', ca1)).data, { repo_issue: null, parent_issues: [] })
  })

  await t.test('ROAs: list, update, a refused delta with its typed delta_error', async (t) => {
    const ca1 = { params: { path: { ca: 'ca1' } } }
    t.same((await api.GET('/cas/{ca}/routes', ca1)).data, [])
    const added = [{ asn: 65000, prefix: '10.0.0.0/24' }, { asn: 65001, prefix: '10.1.0.0/16', max_length: 20, comment: 'lab' }]
    t.equal((await api.POST('/cas/{ca}/routes', { ...ca1, body: { added, removed: [] } })).response.status, 200)
    const refused = await api.POST('/cas/{ca}/routes', { ...ca1, body: { added: [{ asn: 65002, prefix: '192.168.0.0/24' }], removed: [{ asn: 65009, prefix: '10.9.0.0/16' }] } })
    t.equal(refused.response.status, 400)
    t.equal(refused.error?.label, 'ca-roa-delta-error')
    t.same(refused.error?.delta_error, { notheld: [{ asn: 65002, prefix: '192.168.0.0/24' }], unknowns: [{ asn: 65009, prefix: '10.9.0.0/16' }] }, 'all problems, by kind, as Krill lists them')
    const roas = await waitFor('the ROAs to be issued', async () => {
      const list = (await api.GET('/cas/{ca}/routes', ca1)).data
      return list?.every((r) => r.roa_objects.length > 0) ? list : undefined
    })
    t.same(roas.map((r) => [r.asn, r.prefix, r.max_length, r.comment]), [[65000, '10.0.0.0/24', 24, null], [65001, '10.1.0.0/16', 20, 'lab']])
    t.match(roas[0].roa_objects[0], { uri: /\.roa$/, authorizations: ['10.0.0.0/24 => 65000'] })
  })

  await t.test('history: pages, details, full', async (t) => {
    const page = (await api.GET('/cas/{ca}/history/commands/{rows}/{offset}', { params: { path: { ca: 'ca1', rows: 50, offset: 0 } } })).data
    t.ok(page && page.total === page.commands.length, 'one page holds it all')
    const labels = page!.commands.map((c) => c.summary.label)
    t.same([labels[0], labels[1]], ['cmd-ca-init', 'cmd-ca-parent-add'], `in order: ${labels.join(', ')}`)
    const updates = page!.commands.filter((c) => c.summary.label === 'cmd-ca-roas-updated')
    t.same(updates.map((c) => ('Ok' in c.effect ? 'ok' : 'error')), ['ok', 'error'], 'the refused delta is recorded as failed')
    const details = (await api.GET('/cas/{ca}/history/details/{key}', { params: { path: { ca: 'ca1', key: String(updates[0].version) } } })).data
    t.equal(details?.effect.result, 'success')
    t.equal((await api.GET('/cas/{ca}/history/details/{key}', { params: { path: { ca: 'ca1', key: '999999' } } })).error?.label, 'ca-history-unknown')
    const all = (await api.GET('/cas/{ca}/history/commands', { params: { path: { ca: 'ca1' }, query: { full: true } } })).data
    t.ok(all && all.total > page!.total, `full adds the publication entries (${all?.total} > ${page!.total})`)
    const tooMany = await api.GET('/cas/{ca}/history/commands/{rows}', { params: { path: { ca: 'ca1', rows: 251 } } })
    t.equal(tooMany.error?.label, 'api-invalid-query', 'more than 250 rows is refused')
  })
})
