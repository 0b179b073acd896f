/**
 * The BGP analysis in its worker thread (app/bgp/analysis-pool.ts, issue 28 §3): the same answers as the pure
 * functions (app/ca/bgp-analysis.ts) for a report, a suggestion (whole and for part of the resources) and without
 * data; ROAs and answers larger than one message; a new dataset is sent to the worker; requests wait their turn; a
 * worker that dies fails its request with sys-bgp-analysis and the next request starts a new one.
 */
import t from 'tap'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { ConfiguredRoa } from '../../../src/api/cas.js'
import { AnalysisPool } from '../../../src/app/bgp/analysis-pool.js'
import { parseRisWhois, type RisWhois } from '../../../src/app/bgp/route-origins.js'
import { analyseRoutes, bgpAnalysisReport, bgpSuggestion } from '../../../src/app/ca/bgp-analysis.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { RecordingLogger } from '../../helpers/recording-logger.js'

/** `n` ROAs in 10.0.0.0/8, some with a max length, two origins. */
function manyRoas(n: number): ConfiguredRoa[] {
  const out: ConfiguredRoa[] = []
  for (let i = 0; i < n; i++) out.push({ asn: 64496 + (i % 2), prefix: `10.${i >> 8}.${i & 255}.0/24`, max_length: 24 + (i % 3 === 0 ? 1 : 0), comment: i % 5 ? null : `roa ${i}`, roa_objects: [] })
  return out
}

/** Announcements for every other /24 of 10.0.0.0/16 (origin 64496), and some in 11.0.0.0/8. */
function dump(origin: number): RisWhois {
  const lines: string[] = []
  for (let i = 0; i < 6_000; i += 2) lines.push(`${origin}\t10.${i >> 8}.${i & 255}.0/24\t100`)
  for (let i = 0; i < 50; i++) lines.push(`${origin}\t11.0.${i}.0/24\t100`)
  lines.push(`${origin}\t2001:db8::/32\t100`)
  return { v4: parseRisWhois(lines.join('\n'), 4, 6).index, v6: parseRisWhois(lines.join('\n'), 6, 6).index, loaded: '2026-11-27T00:00:00Z' }
}

const HELD = ResourceSet.parse({ ipv4: '10.0.0.0/16, 11.0.0.0/8', ipv6: '2001:db8::/32' })
const SCOPE = ResourceSet.parse({ ipv4: '10.0.0.0/20' })

t.test('the worker answers as the pure functions: report, suggestion, a scope, no data, a new dataset', async (t) => {
  let data: RisWhois | undefined = dump(64496)
  const pool = new AnalysisPool({ data: () => data, log: new RecordingLogger(), pause: () => yieldToLoop() })
  t.teardown(() => pool.stop())
  const roas = manyRoas(5_000) // more than one message each way
  t.same(await pool.report(roas, HELD), bgpAnalysisReport(analyseRoutes(roas, HELD, data)), 'the report')
  t.same(await pool.suggest(roas, HELD), bgpSuggestion(analyseRoutes(roas, HELD, data)), 'the suggestion')
  t.same(await pool.suggest(roas, HELD, SCOPE), bgpSuggestion(analyseRoutes(roas, HELD, data, SCOPE)), 'the suggestion for part of the resources')
  t.same(await pool.report([], HELD), bgpAnalysisReport(analyseRoutes([], HELD, data)), 'no ROAs')
  data = dump(64497)
  t.same(await pool.report(roas, HELD), bgpAnalysisReport(analyseRoutes(roas, HELD, data)), 'a new dataset is used once loaded')
  data = undefined
  t.same(await pool.suggest(roas, HELD), bgpSuggestion(analyseRoutes(roas, HELD, undefined)), 'without data: every held ROA kept')
  // The JSON answers: the same text as JSON.stringify of the objects, in more than one piece.
  const text = async (chunks: AsyncIterable<string | Uint8Array>) => {
    const parts: Buffer[] = []
    for await (const c of chunks) parts.push(Buffer.from(c))
    return { pieces: parts.length, text: Buffer.concat(parts).toString('utf8') }
  }
  const fullJson = await text(await pool.reportJson(roas, HELD))
  t.equal(fullJson.text, JSON.stringify(bgpAnalysisReport(analyseRoutes(roas, HELD, undefined))), 'the report as JSON (no data)')
  data = dump(64497)
  const json = await text(await pool.suggestJson(roas, HELD, SCOPE))
  t.equal(json.text, JSON.stringify(bgpSuggestion(analyseRoutes(roas, HELD, data, SCOPE))), 'the suggestion as JSON')
  const report = await text(await pool.reportJson(roas, HELD))
  t.equal(report.text, JSON.stringify(bgpAnalysisReport(analyseRoutes(roas, HELD, data))), 'the report as JSON')
  t.ok(report.pieces > 1, `in ${report.pieces} pieces`)
  // Three CAs at once: each waits its turn and gets its own answer.
  const small = manyRoas(300)
  data = dump(64496)
  const answers = await Promise.all([pool.report(roas, HELD), pool.report(small, HELD), pool.suggest(small, HELD, SCOPE)])
  t.same(answers, [bgpAnalysisReport(analyseRoutes(roas, HELD, data)), bgpAnalysisReport(analyseRoutes(small, HELD, data)), bgpSuggestion(analyseRoutes(small, HELD, data, SCOPE))], 'concurrent requests, each answered')
})

t.test('a worker that dies fails its request with a label, and the next request starts a new worker', async (t) => {
  const data = dump(64496)
  const log = new RecordingLogger()
  const pool = new AnalysisPool({ data: () => data, log, pause: () => yieldToLoop() })
  t.teardown(() => pool.stop())
  const roas = manyRoas(5_000)
  await pool.report(roas.slice(0, 10), HELD) // the worker is up
  const running = pool.report(roas, HELD)
  const waiting = pool.report(roas, HELD)
  await pool['worker']!.terminate()
  await t.rejects(running, /^The BGP analysis failed/, 'the request running is failed, labelled')
  t.same(await waiting, bgpAnalysisReport(analyseRoutes(roas, HELD, data)), 'the next one is answered by a new worker, with the data sent again')
  t.ok(log.lines.some((l) => l.level === 'warn' && /analysis worker failed/.test(l.msg)), 'the crash is logged')
  const streamed = pool.reportJson(roas, HELD)
  await pool['worker']!.terminate()
  await t.rejects(streamed, /^The BGP analysis failed/, 'a JSON answer that has not started is failed, labelled')
  await pool.stop()
  await t.rejects(pool.report(roas, HELD), /^The BGP analysis failed/, 'refused once stopped')
})
