/**
 * Change plans through the API (issue 27, design.md §12): a plan made from a ROA and ASPA change shows its diff and
 * VRP effect and changes nothing; applied, it changes the CA in one history entry; a plan made before another change
 * is stale and refused with nothing changed; four-eyes refuses direct updates and the author's own approval.
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import t from 'tap'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

t.test('plans: make, apply, stale, four-eyes', async (t) => {
  const d = await repoDaemon(t)
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const api = async (path: string, method = 'GET', body?: unknown) => {
    const r = await httpsRequest(`${d.url}api/v1/cas/ca1/${path}`, { method, headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
    return { status: r.status, json: r.body ? JSON.parse(r.body) : undefined }
  }
  const roas = async () => (await api('routes')).json.map((r: { asn: number; prefix: string; max_length: number }) => `${r.asn} ${r.prefix}-${r.max_length}`).sort()

  const made = await api('plans', 'POST', { comment: 'first', roas: { added: [{ asn: 65000, prefix: '10.1.0.0/16', max_length: 20 }], removed: [] }, aspas: { add_or_replace: [{ customer: 65000, providers: [65001] }], remove: [] } })
  t.equal(made.status, 200, JSON.stringify(made.json))
  t.match(made.json, { id: Number, status: 'open', stale: false, needs_approval: false, comment: 'first', created: { by: 'admin-token', provider: 'admin-token' } })
  t.same(made.json.impact.vrps.added, [{ asn: 65000, prefix: '10.1.0.0/16', max_length: 20 }])
  t.same(made.json.impact.aspas, { added: [65000], changed: [], removed: [] })
  t.same(await roas(), [], 'a plan changes nothing')

  const stale = await api('plans', 'POST', { roas: { added: [{ asn: 65001, prefix: '10.2.0.0/16' }], removed: [] } })
  const applied = await api(`plans/${made.json.id}/apply`, 'POST')
  t.equal(applied.status, 200, JSON.stringify(applied.json))
  t.match(applied.json, { status: 'applied', applied: { by: 'admin-token', version: Number } })
  t.same(await roas(), ['65000 10.1.0.0/16-20'])
  t.same((await api('aspas')).json, [{ customer: 65000, providers: [65001] }])

  const refused = await api(`plans/${stale.json.id}/apply`, 'POST')
  t.equal(refused.status, 409)
  t.equal(refused.json.label, 'ca-plan-stale')
  t.equal((await api(`plans/${stale.json.id}`)).json.stale, true)
  t.same(await roas(), ['65000 10.1.0.0/16-20'], 'the stale plan changed nothing')
  t.equal((await api(`plans/${made.json.id}/apply`, 'POST')).json.label, 'ca-plan-status', 'applied once only')

  t.same((await api('change-control', 'POST', { four_eyes: true })).json, { four_eyes: true })
  const direct = await api('routes', 'POST', { added: [{ asn: 65002, prefix: '10.3.0.0/16' }], removed: [] })
  t.equal(direct.status, 409)
  t.equal(direct.json.label, 'ca-plan-required')
  const second = await api('plans', 'POST', { roas: { added: [{ asn: 65002, prefix: '10.3.0.0/16' }], removed: [] } })
  t.equal((await api(`plans/${second.json.id}/apply`, 'POST')).json.label, 'ca-plan-not-approved')
  t.equal((await api(`plans/${second.json.id}/approve`, 'POST')).json.label, 'ca-plan-own-approval')
  t.equal((await api('plans?status=open')).json.total, 2)


  // svcc plan: a refused delta names its lines as roas update does; reject with a reason; the list; --api.
  const delta = d.file('plan-delta.txt', ['# a plan', 'A: 10.4.0.0/16 => 65003', 'A: 192.0.2.0/24 => 65003', 'R: 10.99.0.0/24 => 65000', ''].join('\n'))
  const bad = await d.run(['plan', 'create', '-c', 'ca1', '--delta', delta])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /ca-roa-delta-error/)
  t.match(bad.stderr, /line 3: A: 192\.0\.2\.0\/24 => 65003: the CA does not hold this prefix/)
  t.match(bad.stderr, /line 4: R: 10\.99\.0\.0\/24 => 65000: not configured/)
  t.equal((await api('plans')).json.total, 3, 'no plan made')
  const usage = await d.run(['plan', 'create', '-c', 'ca1'])
  t.equal(usage.code, 2, 'no change given: a usage error')
  const aspa = JSON.parse(await d.cli(['plan', 'create', '-c', 'ca1', '--aspa', 'AS65001 => AS65002, AS65003', '--aspa-remove', 'AS65000', '--comment', 'aspas', '-f', 'json']))
  t.same(aspa.change.aspas, { add_or_replace: [{ customer: 65001, providers: [65002, 65003] }], remove: [65000] })
  t.same(aspa.impact.aspas, { added: [65001], changed: [], removed: [65000] })
  const shown = await d.cli(['plan', 'show', '-c', 'ca1', '--plan', String(aspa.id)])
  t.match(shown, /\+ ASPA AS65001 => AS65002, AS65003\n- ASPA AS65000/)
  t.match(shown, /BGP impact: unknown \(no BGP announcements loaded\)/)
  const rejected = JSON.parse(await d.cli(['plan', 'reject', '-c', 'ca1', '--plan', String(aspa.id), '--reason', 'not now', '-f', 'json']))
  t.match(rejected, { status: 'rejected', rejected: { by: 'admin-token', reason: 'not now' } })
  t.match(await d.cli(['plan', 'list', '-c', 'ca1', '--status', 'rejected']), new RegExp(`^${aspa.id}\trejected\tadmin-token\t.*\t\\+0 -0 ROAs, \\+1 -1 ASPAs\taspas$`, 'm'))
  const withdrawn = JSON.parse(await d.cli(['plan', 'withdraw', '-c', 'ca1', '--plan', String(second.json.id), '-f', 'json']))
  t.match(withdrawn, { status: 'withdrawn', withdrawn: { by: 'admin-token' } })
  const audit = async (kind: string) => JSON.parse((await httpsRequest(`${d.url}api/v1/audit?kind=${kind}&order=asc`, { headers: { Authorization: `Bearer ${d.token}` } })).body).records
  t.match(await audit('plan-reject'), [{ actor: 'admin-token', ca: 'ca1', success: true, details: { plan: aspa.id, reason: 'not now', comment: 'aspas' } }], 'the rejection in the audit trail')
  t.match(await audit('plan-withdraw'), [{ actor: 'admin-token', ca: 'ca1', success: true, details: { plan: second.json.id } }], 'the withdrawal')
  t.equal((await audit('plan-create')).length, 5, 'each of the 4 plans made, and the refused delta as a failure')
  t.match((await audit('plan-create')).filter((r: { success: boolean }) => !r.success), [{ details: { error: { label: 'ca-roa-delta-error' } } }])
  const again = await d.run(['plan', 'approve', '-c', 'ca1', '--plan', String(aspa.id)])
  t.equal(again.code, 1)
  t.match(again.stderr, /ca-plan-status/)
  const described = await d.run(['plan', 'approve', '-c', 'ca1', '--plan', '5', '--no-apply', '--api'])
  t.match(described.stdout, /POST .*\/api\/v1\/cas\/ca1\/plans\/5\/approve/)
  t.match(described.stdout, /"apply":\s*false/)
  t.equal((await d.run(['plan', 'show', '-c', 'ca1', '--plan', 'x'])).code, 2, 'a plan id is a number')

  // Hostile input: each refused with its label, nothing made or changed; another CA's plan id is unknown there.
  const before = (await api('plans')).json.total
  t.equal((await api('plans/abc')).json.label, 'ca-plan-unknown', 'a plan id that is no number')
  t.equal((await api('plans/1e3/apply', 'POST')).json.label, 'ca-plan-unknown')
  t.equal((await api('plans?status=everything')).json.label, 'api-invalid-query')
  t.equal((await api('plans', 'POST', { comment: 'x'.repeat(1001), roas: { added: [{ asn: 65003, prefix: '10.4.0.0/16' }], removed: [] } })).json.label, 'api-invalid-body', 'an oversized comment')
  t.equal((await api('plans', 'POST', { roas: { added: [{ asn: '65003', prefix: '10.4.0.0/16' }], removed: [] } })).json.label, 'api-invalid-body', 'a malformed ROA')
  t.equal((await api('plans', 'POST', {})).json.label, 'ca-plan-empty')
  const other = await httpsRequest(`${d.url}api/v1/cas/testbed/plans/${second.json.id}`, { headers: { Authorization: `Bearer ${d.token}` } })
  t.equal(other.status, 404, "ca1's plan is not testbed's")
  t.equal(JSON.parse(other.body).label, 'ca-plan-unknown')
  t.equal((await api('plans')).json.total, before, 'nothing made')
})
