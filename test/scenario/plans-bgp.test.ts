/**
 * A plan's BGP impact before it is applied (issue 27; design.md §12): svcd reads a RIS whois dump from a file
 * (bgp_riswhois_v4_uri), with an announcement 10.0.0.0/24 from AS65001 that no ROA covers (not found). A plan adding
 * 10.0.0.0/16-16 => 65000 says it turns that announcement invalid (svcc shows it); applying it without accept_invalid
 * is refused (409 ca-plan-invalidates) and changes nothing; with --accept-invalid it is applied. A plan that makes the
 * announcement valid says so. `svcc plan create --suggested` makes a plan of the BGP analysis's suggestion; a scope
 * with nothing to suggest is refused (ca-plan-empty).
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { BgpAnalysisEntry } from '../../src/api/cas.js'
import type { PlanJson } from '../../src/api/plans.js'
import { connect, repoDaemon, waitFor } from '../helpers/cas.js'
import { tempDir } from '../helpers/daemon.js'

t.test('plans and the BGP analysis: turned invalid, accept_invalid, turned valid, suggested', async (t) => {
  const dump = join(tempDir(t), 'riswhoisdump.IPv4')
  writeFileSync(dump, ['% RIS whois dump for the test', '65001\t10.0.0.0/24\t100', '65002\t10.2.0.0/24\t100', ''].join('\n'))
  const d = await repoDaemon(t, { logLevel: 'info', toml: `bgp_riswhois_enabled = true\nbgp_riswhois_v4_uri = "${dump}"\nbgp_riswhois_v6_uri = ""` })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  await waitFor('the dump to be loaded', async () => {
    const r = JSON.parse(await d.cli(['roas', 'bgp', 'analyze', '-c', 'ca1', '-f', 'json'])) as BgpAnalysisEntry[]
    return r.some((e) => e.state === 'announcement_not_found' && e.prefix === '10.0.0.0/24')
  })
  const roas = async () => (await d.cli(['roas', 'list', '-c', 'ca1'])).trim()

  // A plan that turns the announcement invalid says so before anything changes.
  const made = await d.run(['plan', 'create', '-c', 'ca1', '--add', '10.0.0.0/16-16 => 65000', '--comment', 'cover 10.0/16'])
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /BGP impact: 1 turn invalid, 0 turn valid, 0 turn not found/)
  t.match(made.stdout, /INVALID: 10\.0\.0\.0\/24 AS65001 \(was not_found; announcement_invalid_asn\)/, 'svcc shows the announcement turning invalid')
  const id = /^plan ([0-9]+) of ca1: open/.exec(made.stdout)?.[1]
  t.ok(id, 'the plan id')
  const plan = JSON.parse(await d.cli(['plan', 'show', '-c', 'ca1', '--plan', id!, '-f', 'json'])) as PlanJson
  t.match(plan.impact.bgp, { available: true, turned_invalid: 1, turned_valid: 0, turned_not_found: 0, truncated: false })
  t.same(plan.impact.bgp.changes, [{ asn: 65001, prefix: '10.0.0.0/24', before: 'not_found', after: 'invalid', detail: 'announcement_invalid_asn' }])
  t.same(plan.impact.vrps.added, [{ asn: 65000, prefix: '10.0.0.0/16', max_length: 16 }])

  const refused = await d.run(['plan', 'apply', '-c', 'ca1', '--plan', id!])
  t.equal(refused.code, 1)
  t.match(refused.stderr, /ca-plan-invalidates/)
  t.equal(await roas(), '', 'nothing changed')
  t.equal(JSON.parse(await d.cli(['plan', 'show', '-c', 'ca1', '--plan', id!, '-f', 'json'])).status, 'open')
  const api = await d.run(['plan', 'apply', '-c', 'ca1', '--plan', id!, '--accept-invalid', '--api'])
  t.match(api.stdout, new RegExp(`POST .*/api/v1/cas/ca1/plans/${id}/apply`), '--api shows the call')
  t.match(api.stdout, /accept_invalid/)
  const applied = JSON.parse(await d.cli(['plan', 'apply', '-c', 'ca1', '--plan', id!, '--accept-invalid', '-f', 'json'])) as PlanJson
  t.match(applied, { status: 'applied', applied: { by: 'admin-token', version: Number } })
  t.equal(await roas(), '10.0.0.0/16 => 65000')
  // A ROA no announcement is seen for (stale): no impact on announcements.
  const stale = JSON.parse(await d.cli(['plan', 'create', '-c', 'ca1', '--add', '10.5.0.0/16 => 65005', '-f', 'json'])) as PlanJson
  t.match(stale.impact.bgp, { turned_valid: 0, turned_invalid: 0, turned_not_found: 0, changes: [] })
  await d.cli(['plan', 'apply', '-c', 'ca1', '--plan', String(stale.id)])

  // A plan that makes it valid says turned_valid.
  const valid = JSON.parse(await d.cli(['plan', 'create', '-c', 'ca1', '--add', '10.0.0.0/24 => 65001', '-f', 'json'])) as PlanJson
  t.match(valid.impact.bgp, { turned_valid: 1, turned_invalid: 0 })
  t.same(valid.impact.bgp.changes, [{ asn: 65001, prefix: '10.0.0.0/24', before: 'invalid', after: 'valid', detail: 'announcement_valid' }])
  t.match(await d.cli(['plan', 'withdraw', '-c', 'ca1', '--plan', String(valid.id)]), /withdrawn by admin-token/)

  // The suggestion as a plan: a ROA for each announcement not found or invalid, the stale ROA removed (the ROA that
  // disallows 10.0.0.0/24 from AS65001 is kept, as Krill's suggestion keeps it).
  const empty = await d.run(['plan', 'create', '-c', 'ca1', '--suggested', '-4', '10.99.0.0/16'])
  t.equal(empty.code, 1, 'nothing to suggest there')
  t.match(empty.stderr, /ca-plan-empty/)
  const suggested = JSON.parse(await d.cli(['plan', 'create', '-c', 'ca1', '--suggested', '-f', 'json'])) as PlanJson
  t.equal(suggested.source, 'suggestion')
  t.same(suggested.change.roas, {
    added: [{ asn: 65002, prefix: '10.2.0.0/24', max_length: 24 }, { asn: 65001, prefix: '10.0.0.0/24', max_length: 24 }],
    removed: [{ asn: 65005, prefix: '10.5.0.0/16', max_length: 16 }],
  })
  t.match(suggested.impact.bgp, { turned_valid: 2, turned_invalid: 0 })
  const both = await d.run(['plan', 'create', '-c', 'ca1', '--suggested', '--add', '10.3.0.0/24 => 65003'])
  t.equal(both.code, 2, 'the suggestion alone: a usage error')
  t.match(JSON.parse(await d.cli(['plan', 'apply', '-c', 'ca1', '--plan', String(suggested.id), '-f', 'json'])), { status: 'applied' })
  t.equal(await roas(), ['10.0.0.0/16 => 65000', '10.0.0.0/24 => 65001', '10.2.0.0/24 => 65002'].join('\n'))
  const list = await d.cli(['plan', 'list', '-c', 'ca1'])
  t.match(list, new RegExp(`^${suggested.id}\\tapplied\\tadmin-token\\t`, 'm'), 'the list shows it')
  t.equal(JSON.parse(await d.cli(['plan', 'list', '-c', 'ca1', '--status', 'withdrawn', '-f', 'json'])).total, 1)
})
