/**
 * A Krill web client's calls, in its order, against svcd (issue 16): log in, the CA list, a CA page (details, BGP
 * analysis, ASPAs, parents, repository status), ROA add / comment edit / remove with the client's extra `id` and
 * `state` fields, a new CA given a new parent through POST …/parents/{name} with the RFC 8183 XML as text/plain, a
 * bulk parent sync, and the testbed self-service (a child and a publisher registered and removed without a token).
 * Each answer's status, exact content type and shape are checked; the harness also checks every answer against
 * Krill's JSON rules (test/helpers/krill-json.ts).
 *
 *   ta ── testbed ─┬─ ca1   AS65000-AS65010, 10.0.0.0/16 (a parent added by name, XML as text/plain)
 *                  └─ kid-remote  registered through /testbed/children (identity of the local CA kid)
 *   embedded repository: + pub-remote registered through /testbed/publishers
 */
import t, { type Test } from 'tap'
import { httpsRequest } from '../helpers/daemon.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'

interface Answer {
  status: number
  type: string | undefined
  body: string
  headers: Record<string, string | string[] | undefined>
}

/** One call as a browser client makes it: the token in the header unless `token: false`, a JSON or text body. */
async function call(d: RepoDaemon, method: string, path: string, opts: { token?: boolean | string; json?: unknown; text?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (opts.token !== false) headers.Authorization = `Bearer ${typeof opts.token === 'string' ? opts.token : d.token}`
  let body: string | undefined
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(opts.json)
  } else if (opts.text !== undefined) {
    headers['Content-Type'] = 'text/plain;charset=UTF-8'
    body = opts.text
  }
  const r = await httpsRequest(d.url + path.replace(/^\//, ''), { method, headers, ...(body !== undefined ? { body } : {}) })
  return { status: r.status, type: r.headers['content-type'] as string | undefined, body: r.body, headers: r.headers }
}

/** A 200 JSON answer, typed exactly application/json; its parsed body. */
function json<T>(t: Test, r: Answer, what: string): T {
  t.equal(r.status, 200, `${what}: 200 (${r.body.slice(0, 200)})`)
  t.equal(r.type, 'application/json', `${what}: typed exactly application/json`)
  return JSON.parse(r.body) as T
}

/** A labelled JSON error with this status and label. */
function refused(t: Test, r: Answer, status: number, label: string, what: string): void {
  t.equal(r.status, status, `${what}: ${status}`)
  t.equal(r.type, 'application/json', `${what}: the error typed exactly application/json`)
  t.equal((JSON.parse(r.body) as { label: string }).label, label, `${what}: ${label}`)
}

const isSeconds = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 1e9 && v < 1e11 && Math.abs(v - Date.now() / 1000) < 3600

interface CaList { cas: { handle: string }[] }
interface ParentStatus { last_exchange: { timestamp: number; uri: string; result: unknown } | null; last_success: number | null; all_resources: { asn: string }; classes: { not_after: string }[] }
interface Entry { asn: number; prefix: string; max_length: number; comment: string | null; roa_objects: unknown[]; state: string }

t.test('a Krill web client logs in, shows and edits a CA, adds a parent by name, syncs, and uses the testbed', async (t) => {
  // `extra` lands in the [testbed] section repoDaemon writes last.
  const d = await repoDaemon(t, { extra: 'self_service_per_minute = 12\n' })

  // Login (Krill's admin-token provider): where the login page is, then the token checked.
  const where = await call(d, 'GET', '/auth/login', { token: false })
  t.equal(where.status, 200)
  t.equal(where.type, 'text/plain', 'the login page URL as text/plain')
  t.equal(where.body, '/login')
  const session = json<{ token: string; id: string; attributes: Record<string, string> }>(t, await call(d, 'POST', '/auth/login'), 'login')
  t.same(session, { token: d.token, id: 'admin-token', attributes: { role: 'admin' } })
  refused(t, await call(d, 'POST', '/auth/login', { token: 'wrong-token' }), 401, 'api-invalid-credentials', 'login with a wrong token')
  refused(t, await call(d, 'POST', '/auth/login', { token: false }), 401, 'api-invalid-credentials', 'login without a token')

  // The CA list; a new CA.
  t.same(json<CaList>(t, await call(d, 'GET', '/api/v1/cas'), 'CA list').cas.map((c) => c.handle).sort(), ['ta', 'testbed'])
  t.equal((await call(d, 'POST', '/api/v1/cas', { json: { handle: 'ca1' } })).status, 200, 'CA added')

  // A new parent for it by name: POST …/parents/testbed, the RFC 8183 parent response XML sent as text/plain.
  const request = json<{ id_cert: string }>(t, await call(d, 'GET', '/api/v1/cas/ca1/id/child_request.json'), 'child request')
  json(t, await call(d, 'POST', '/api/v1/cas/testbed/children', { json: { handle: 'ca1', id_cert: request.id_cert, resources: { asn: 'AS65000-65010', ipv4: '10.0.0.0/16', ipv6: '' } } }), 'child added')
  const xml = await call(d, 'GET', '/api/v1/cas/testbed/children/ca1/parent_response.xml')
  t.equal(xml.status, 200)
  const added = await call(d, 'POST', '/api/v1/cas/ca1/parents/testbed', { text: xml.body })
  t.equal(added.status, 200, `a parent that does not exist yet is added through POST …/parents/{name} (${added.body})`)
  t.equal(added.body, '', 'with an empty body')
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/parents/testbed', { text: xml.body })).status, 200, 'the same again is an update that changes nothing')
  refused(t, await call(d, 'POST', '/api/v1/cas/ca1/parents/other', { json: { handle: 'testbed', response: {} } }), 400, 'api-invalid-body', 'a JSON body naming another parent than the path')
  await waitFor('ca1 to be certified', async () => JSON.parse((await call(d, 'GET', '/api/v1/cas/ca1')).body).resources.ipv4 === '10.0.0.0/16')

  // The CA page: details, BGP analysis, ASPAs, parents, repository status (loaded together; one 404 blanks it).
  const page = await Promise.all(['', '/routes/analysis/full', '/aspas', '/parents', '/repo/status'].map((p) => call(d, 'GET', `/api/v1/cas/ca1${p}`)))
  const details = json<{ handle: string; resources: { asn: string; ipv4: string } }>(t, page[0]!, 'CA details')
  t.same(details.resources, { asn: 'AS65000-AS65010', ipv4: '10.0.0.0/16', ipv6: '' }, "resources in Krill's form")
  t.same(json(t, page[1]!, 'BGP analysis'), [], 'no ROAs yet')
  t.same(json(t, page[2]!, 'ASPAs'), [])
  const parents = json<Record<string, ParentStatus>>(t, page[3]!, 'parent statuses')
  t.same(Object.keys(parents), ['testbed'])
  const st = parents.testbed!
  t.ok(isSeconds(st.last_exchange?.timestamp), `last_exchange.timestamp in unix seconds (${st.last_exchange?.timestamp})`)
  t.ok(isSeconds(st.last_success), `last_success in unix seconds (${st.last_success})`)
  t.equal(st.last_exchange?.result, 'Success')
  t.equal(st.all_resources.asn, 'AS65000-AS65010')
  t.match(st.classes[0]?.not_after, /^\d{4}-\d{2}-\d{2}T/, "not_after stays Krill's Time (RFC 3339)")
  const repo = json<{ last_exchange: { timestamp: number } | null; last_success: number | null; published: unknown[] }>(t, page[4]!, 'repository status')
  t.ok(isSeconds(repo.last_exchange?.timestamp) && isSeconds(repo.last_success), `repository exchange times in unix seconds (${repo.last_success})`)

  // ROAs as the client edits them: its rows carry `id` and `state`, which svcd ignores.
  const roa = { asn: 65000, prefix: '10.0.1.0/24', max_length: 24 }
  const row = { ...roa, id: 'roa-row-1', state: 'roa_no_announcement_info' }
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/routes', { json: { added: [{ ...row, comment: 'web' }], removed: [] } })).status, 200, 'ROA added')
  let entries = json<Entry[]>(t, await call(d, 'GET', '/api/v1/cas/ca1/routes/analysis/full'), 'BGP analysis')
  t.match(entries, [{ ...roa, comment: 'web', state: 'roa_no_announcement_info', roa_objects: Array }], "Krill's fields and the state without BGP data")
  t.notOk('id' in entries[0]!, 'the client-side id was not kept')
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/routes', { json: { added: [{ ...row, comment: 'edited' }], removed: [] } })).status, 200, 'comment edited (the same payload again)')
  entries = json<Entry[]>(t, await call(d, 'GET', '/api/v1/cas/ca1/routes/analysis/full'), 'BGP analysis')
  t.equal(entries[0]?.comment, 'edited')
  t.match(json(t, await call(d, 'GET', '/api/v1/cas/ca1/routes/analysis/suggest'), 'suggestion'), { keep: [{ ...roa, comment: 'edited' }] }, "without BGP data Krill's suggestion keeps the configured ROAs")
  const second = { asn: 65001, prefix: '10.0.2.0/24', max_length: 24, id: 'roa-row-2', state: 'roa_no_announcement_info', comment: null }
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/routes', { json: { added: [second], removed: [] } })).status, 200)
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/routes', { json: { added: [], removed: [row] } })).status, 200, 'ROA removed')
  entries = json<Entry[]>(t, await call(d, 'GET', '/api/v1/cas/ca1/routes/analysis/full'), 'BGP analysis')
  t.same(entries.map((e) => [e.prefix, e.state]), [['10.0.2.0/24', 'roa_no_announcement_info']])

  // Resources shrink: the ROA whose prefix is no longer held is roa_not_held (and listed first, as Krill orders states).
  t.equal((await call(d, 'POST', '/api/v1/cas/ca1/routes', { json: { added: [{ asn: 65002, prefix: '10.0.128.0/24', max_length: 24 }], removed: [] } })).status, 200)
  t.equal((await call(d, 'POST', '/api/v1/cas/testbed/children/ca1', { json: { resources: { asn: 'AS65000-AS65010', v4: '10.0.0.0/17', v6: '' } } })).status, 200, 'child resources updated (v4 for ipv4, as rpki-rs reads it)')
  // A bulk parent sync (as the client's "refresh"), repeated until ca1 holds the shrunk resources.
  const sync = await call(d, 'POST', '/api/v1/bulk/cas/sync/parent')
  t.equal(sync.status, 200, 'bulk parent sync')
  t.equal(sync.body, '')
  entries = await waitFor('the shrunk resources to reach ca1', async () => {
    const e = JSON.parse((await call(d, 'GET', '/api/v1/cas/ca1/routes/analysis/full')).body) as Entry[]
    if (e[0]?.state === 'roa_not_held') return e
    await call(d, 'POST', '/api/v1/bulk/cas/sync/parent')
    return undefined
  }, 60_000)
  t.same(entries.map((e) => [e.prefix, e.state]), [['10.0.128.0/24', 'roa_not_held'], ['10.0.2.0/24', 'roa_no_announcement_info']])

  // The testbed self-service, without a token.
  const enabled = await call(d, 'GET', '/testbed/enabled', { token: false })
  t.equal(enabled.status, 200, 'the testbed is on')
  t.equal((await call(d, 'POST', '/api/v1/cas', { json: { handle: 'kid' } })).status, 200)
  const kid = json<{ id_cert: string }>(t, await call(d, 'GET', '/api/v1/cas/kid/id/child_request.json'), 'kid request')
  const child = json<{ parent_handle: string; child_handle: string; service_uri: string; id_cert: string; tag: null }>(t, await call(d, 'POST', '/testbed/children', { token: false, json: { handle: 'kid-remote', id_cert: kid.id_cert, resources: { asn: 'AS65100', v4: '10.1.0.0/16', v6: '2001:db8::/32' } } }), 'testbed child registered')
  t.match(child, { parent_handle: 'testbed', child_handle: 'kid-remote', service_uri: /\/rfc6492\/testbed$/, tag: null }, 'the parent response')
  t.same(json<{ entitled_resources: unknown }>(t, await call(d, 'GET', '/api/v1/cas/testbed/children/kid-remote'), 'child info').entitled_resources, { asn: 'AS65100', ipv4: '10.1.0.0/16', ipv6: '2001:db8::/32' })
  refused(t, await call(d, 'POST', '/testbed/children', { token: false, json: { handle: 'kid-remote', id_cert: kid.id_cert, resources: { asn: 'AS65100' } } }), 400, 'ca-child-duplicate', 'the same checks as the API')
  refused(t, await call(d, 'DELETE', '/testbed/children/ca1', { token: false }), 403, 'testbed-not-self-service', 'a child that is a CA of this svcd stays')
  // Issue 22: kid-remote carries the identity of the local CA kid, so the self-service does not remove it; the token does.
  refused(t, await call(d, 'DELETE', '/testbed/children/kid-remote', { token: false }), 403, 'testbed-not-self-service', 'a self-service child that is a local CA by identity stays')
  t.equal((await call(d, 'DELETE', '/api/v1/cas/testbed/children/kid-remote')).status, 200, 'testbed child removed with the token')
  refused(t, await call(d, 'GET', '/api/v1/cas/testbed/children/kid-remote'), 404, 'ca-child-unknown', 'and gone')

  const pubReq = json<{ id_cert: string }>(t, await call(d, 'GET', '/api/v1/cas/kid/id/publisher_request.json'), 'publisher request')
  const repoResponse = json<{ publisher_handle: string; service_uri: string; repo_info: { sia_base: string; rrdp_notification_uri: string } }>(t, await call(d, 'POST', '/testbed/publishers', { token: false, json: { publisher_handle: 'pub-remote', id_cert: pubReq.id_cert, tag: null } }), 'testbed publisher registered')
  t.match(repoResponse, { publisher_handle: 'pub-remote', service_uri: /\/rfc8181\/pub-remote\/?$/, repo_info: { sia_base: /pub-remote\/$/ } }, 'the repository response')
  refused(t, await call(d, 'DELETE', '/testbed/publishers/testbed', { token: false }), 403, 'testbed-not-self-service', "a CA's own publisher stays")
  t.equal((await call(d, 'DELETE', '/testbed/publishers/pub-remote', { token: false })).status, 200, 'testbed publisher removed')
  refused(t, await call(d, 'GET', '/api/v1/pubd/publishers/pub-remote'), 404, 'pub-unknown', 'and gone')
  refused(t, await call(d, 'GET', '/testbed/children', { token: false }), 401, 'api-invalid-credentials', 'anything else under /testbed needs the token')

  // Rate-limited per address: 12 a minute; the calls above used 8 of them (the 401 never reached the testbed).
  let limited: Answer | undefined
  for (let i = 0; i < 12 && !limited; i++) {
    const r = await call(d, 'GET', '/testbed/enabled', { token: false })
    if (r.status === 429) limited = r
  }
  t.ok(limited, 'beyond the limit: 429')
  refused(t, limited!, 429, 'api-rate-limited', 'too many')
  t.match(limited!.headers['retry-after'], /^[1-9][0-9]*$/, 'with Retry-After')

  // Every one of these answers went through the harness's Krill JSON check.
  const seen = d.responses()
  t.ok(seen.some((r) => r.url === '/api/v1/cas/ca1/routes/analysis/full') && seen.some((r) => r.url === '/testbed/publishers'), `the harness recorded svcd's answers (${seen.length})`)
})

t.test('without [testbed] the self-service answers 404', async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  refused(t, await call(d, 'GET', '/testbed/enabled', { token: false }), 404, 'api-unknown-resource', 'GET /testbed/enabled')
  refused(t, await call(d, 'POST', '/testbed/publishers', { token: false, json: { publisher_handle: 'p', id_cert: 'AAAA' } }), 404, 'api-unknown-resource', 'POST /testbed/publishers')
  t.equal((await call(d, 'GET', '/api/v1/pubd/publishers')).status, 200)
})
