/**
 * A 50,000-line ROA delta through svcc and the API (issue 15 item 4: a 5,000-line delta exceeded the 256 KiB API body
 * limit): the ROA delta routes have their own limit (post_limit_api_routes), other routes keep post_limit_api; a
 * delta with bad lines is refused whole with the lines named and nothing changes; a good one is applied as one
 * change (one history entry) and published as one aggregated ROA per ASN; removing all of it is one change too.
 * The times are printed (svcc's round trip, and until RRDP and rsync show the objects).
 *
 *   ta ── testbed ── ca1 (AS65000-65010, 10.0.0.0/8)
 */
import t from 'tap'
import { caObjects, connect, repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

const LINES = 50_000
const ASNS = 10

/** The i-th authorisation: a /24 in 10.0.0.0/8 (every fifth with a max length), with a comment on every tenth. */
const line = (i: number, kind = 'A') => `${kind}: 10.${i >> 8}.${i & 255}.0/24${i % 5 === 0 ? '-25' : ''} => ${65000 + (i % ASNS)}${kind === 'A' && i % 10 === 0 ? ` # customer ${i}` : ''}`

async function total(d: RepoDaemon): Promise<number> {
  const r = await httpsRequest(`${d.url}api/v1/cas/ca1/routes?limit=1`, { headers: { Authorization: `Bearer ${d.token}` } })
  return Number(r.headers['x-total-count'])
}

t.test('a 50,000-line delta through svcc: refused whole by line when bad, applied as one change when good', async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  await d.cli(['add', '-c', 'ca1'])
  await connect(d, 'testbed', d, 'ca1', { asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await waitFor('ca1 certified', async () => /active/.test(await d.cli(['show', '-c', 'ca1'])))
  const good = Array.from({ length: LINES }, (_, i) => line(i))
  const json = JSON.stringify({ added: good.map((l) => l.slice(3)), removed: [] }).length
  t.ok(json > 4 * 256 * 1024, `as JSON the delta is ${(json / 1024).toFixed(0)} KiB: far over post_limit_api (256 KiB)`)

  // Bad lines (not held, a duplicate, a bad max length) refuse the whole delta, each named by its line.
  const bad = [...good.slice(0, 20_000), 'A: 11.0.0.0/24 => 65000', ...good.slice(20_000, 40_000), good[7]!, 'A: 10.0.0.0/24-33 => 65001', ...good.slice(40_000)]
  const refused = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('bad.txt', bad.join('\n') + '\n')])
  t.equal(refused.code, 1, 'refused')
  t.match(refused.stderr, /ca-roa-delta-error/)
  t.match(refused.stderr, /line 20001: A: 11\.0\.0\.0\/24 => 65000/, 'the line not held')
  t.match(refused.stderr, /line 40002: [^\n]*listed twice in the delta \(first on line 8\)/, 'the duplicate')
  t.match(refused.stderr, /line 40003: A: 10\.0\.0\.0\/24-33 => 65001/, 'the bad max length')
  t.equal(await total(d), 0, 'nothing changed')

  // The good delta: one svcc call, one change.
  const started = Date.now()
  const applied = await d.run(['roas', 'update', '-c', 'ca1', '--delta', d.file('good.txt', good.join('\n') + '\n')])
  const updateMs = Date.now() - started
  t.equal(applied.code, 0, applied.stderr)
  t.equal(await total(d), LINES, `${LINES} authorisations configured (svcc roas update took ${updateMs} ms)`)
  const history = JSON.parse(await d.cli(['history', '-c', 'ca1', '-f', 'json'])) as { commands: { summary: { label: string; msg: string }; effect: { Ok: string[] } | { Error: string } }[] }
  const updates = history.commands.filter((c) => c.summary.label === 'cmd-ca-roas-updated').map((c) => `${c.summary.msg}: ${'Ok' in c.effect ? 'ok' : 'refused'}`)
  t.same(updates, [`Update ROAs add: ${LINES + 3} remove: 0: refused`, `Update ROAs add: ${LINES} remove: 0: ok`], 'one history entry for the whole delta (after the one for the refused delta)')
  const objects = await waitFor('one aggregated ROA per ASN', async () => ((await caObjects(d, 'ca1')).roas === ASNS ? true : undefined), 300_000)
  const publishedMs = Date.now() - started
  t.ok(objects, `${ASNS} ROA objects (one per ASN) ${publishedMs} ms after the update was sent`)
  t.ok(updateMs < 60_000, `the update answered within a minute (${updateMs} ms)`)
  t.comment(`50,000-line delta: svcc roas update ${updateMs} ms; ROA objects made ${publishedMs} ms after sending`)

  // The analysis of all 50,000 (no BGP data here: each without announcement info), as a console would load it.
  const analysisStarted = Date.now()
  const analysis = await httpsRequest(`${d.url}api/v1/cas/ca1/routes/analysis/full`, { headers: { Authorization: `Bearer ${d.token}` } })
  const analysisMs = Date.now() - analysisStarted
  t.equal(analysis.status, 200)
  t.equal((JSON.parse(analysis.body) as { state: string }[]).filter((e) => e.state === 'roa_no_announcement_info').length, LINES, `the analysis of ${LINES} ROAs (${(analysis.body.length / 1024 / 1024).toFixed(1)} MiB) in ${analysisMs} ms`)
  t.comment(`GET routes/analysis/full with 50,000 ROAs: ${analysisMs} ms, ${(analysis.body.length / 1024 / 1024).toFixed(1)} MiB`)

  // Other routes keep post_limit_api (256 KiB).
  const big = await httpsRequest(`${d.url}api/v1/cas`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ handle: 'x', padding: 'x'.repeat(300 * 1024) }) })
  t.equal(big.status, 413, 'a 300 KiB body elsewhere is still too large')
  t.equal(JSON.parse(big.body).label, 'api-post-body-exceeds-limit')

  // Removing all 50,000 through the API: one change as well.
  const removeStarted = Date.now()
  const removal = JSON.stringify({ added: [], removed: Array.from({ length: LINES }, (_, i) => ({ asn: 65000 + (i % ASNS), prefix: `10.${i >> 8}.${i & 255}.0/24`, max_length: i % 5 === 0 ? 25 : 24 })) })
  const removed = await httpsRequest(`${d.url}api/v1/cas/ca1/routes`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: removal })
  const removeMs = Date.now() - removeStarted
  t.equal(removed.status, 200, `a ${(removal.length / 1024 / 1024).toFixed(1)} MiB delta through the API (${removeMs} ms)`)
  t.equal(await total(d), 0, 'all removed')
  await waitFor('the ROA objects withdrawn', async () => ((await caObjects(d, 'ca1')).roas === 0 ? true : undefined), 120_000)
  t.comment(`50,000 removals through the API: ${removeMs} ms`)
})
