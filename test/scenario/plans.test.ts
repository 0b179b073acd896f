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
})
