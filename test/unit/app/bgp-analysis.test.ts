/**
 * The BGP analysis of a CA's ROAs (app/ca/bgp-analysis.ts; issue 15 item 5, krill-reference.md §5): every ROA and
 * announcement state on Krill's own example (krill:src/server/bgp/analyser.rs tests), redundant, disallowing and
 * AS0 cases, RFC 9319's too permissive ROAs, Krill's suggestion (also for part of the resources), no data, and the
 * time for 50,000 ROAs against 100,000 announcements.
 */
import t from 'tap'
import type { BgpAnalysisEntry, ConfiguredRoa } from '../../../src/api/cas.js'
import { parseRisWhois, type RisWhois } from '../../../src/app/bgp/route-origins.js'
import { analyseRoutes, analyseRoutesSliced, bgpAnalysisReport, bgpAnalysisReportSliced, bgpSuggestion, reportEntries } from '../../../src/app/ca/bgp-analysis.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'

/** ROAs from '<prefix>[-<max>] => <asn>' lines, in listing order as the CA lists them. */
function roas(...lines: string[]): ConfiguredRoa[] {
  return lines.map((l) => {
    const m = /^(\S+?)\/(\d+)(?:-(\d+))? => (\d+)$/.exec(l)!
    return { asn: Number(m[4]), prefix: `${m[1]}/${m[2]}`, max_length: Number(m[3] ?? m[2]), comment: null, roa_objects: [] }
  })
}

/** Announcements from '<prefix> => <asn>' lines (all seen by enough peers). */
function bgp(...lines: string[]): RisWhois {
  const dump = (f: 4 | 6) => lines.filter((l) => l.includes(':') === (f === 6)).map((l) => l.replace(/^(\S+) => (\d+)$/, '$2\t$1\t100')).join('\n')
  return { v4: parseRisWhois(dump(4), 4, 6).index, v6: parseRisWhois(dump(6), 6, 6).index, loaded: '2026-11-24T12:00:00Z' }
}

const roa = (e: BgpAnalysisEntry) => `${e.prefix}${e.max_length !== undefined && String(e.max_length) !== e.prefix.split('/')[1] ? `-${e.max_length}` : ''} => ${e.asn}`
/** The report as 'state: item' lines, with the related lists after '|'. */
function lines(report: BgpAnalysisEntry[]): string[] {
  const ann = (l?: { prefix: string; asn: number }[]) => l?.map((a) => `${a.prefix} => ${a.asn}`).join(', ')
  const pay = (l?: { prefix: string; asn: number; max_length: number }[]) => l?.map((p) => `${p.prefix}-${p.max_length} => ${p.asn}`).join(', ')
  return report.map((e) => {
    const extra = [
      e.authorizes && `authorizes ${ann(e.authorizes)}`, e.disallows && `disallows ${ann(e.disallows)}`, e.made_redundant_by && `made redundant by ${pay(e.made_redundant_by)}`,
      e.allowed_by && `allowed by ${pay([e.allowed_by])}`, e.disallowed_by && `disallowed by ${pay(e.disallowed_by)}`,
    ].filter(Boolean)
    return `${e.state}: ${roa(e)}${extra.length ? ` | ${extra.join(' | ')}` : ''}`
  })
}

// Krill's test data (krill:src/server/bgp/analyser.rs test_analyser) and ROAs (analyse_bgp), in listing order.
const KRILL_BGP = bgp('10.0.0.0/22 => 64496', '10.0.2.0/23 => 64496', '10.0.0.0/24 => 64496', '10.0.0.0/22 => 64497', '10.0.0.0/21 => 64497', '192.168.0.0/24 => 64497', '192.168.0.0/24 => 64496', '192.168.1.0/24 => 64497', '2001:db8::/32 => 64498')
const KRILL_ROAS = roas('10.0.0.0/22-23 => 64496', '10.0.3.0/24 => 64497', '10.0.4.0/24 => 0', '10.1.0.0/24 => 64497', '192.168.1.0/24 => 0', '192.168.1.0/24 => 64497', '192.168.1.0/24 => 64498')
const HELD = ResourceSet.parse({ ipv4: '10.0.0.0/16, 192.168.0.0/16' })

t.test("Krill's example: every ROA and announcement state, in Krill's order", async (t) => {
  const report = bgpAnalysisReport(analyseRoutes(KRILL_ROAS, HELD, KRILL_BGP))
  t.same([...reportEntries(analyseRoutes(KRILL_ROAS, HELD, KRILL_BGP))], report, 'the entries one at a time (analysis-json.ts): the same, in the same order')
  t.same(lines(report), [
    'roa_seen: 192.168.1.0/24 => 64497 | authorizes 192.168.1.0/24 => 64497',
    'roa_unseen: 10.0.3.0/24 => 64497',
    'roa_unseen: 192.168.1.0/24 => 64498',
    'roa_too_permissive: 10.0.0.0/22-23 => 64496 | authorizes 10.0.0.0/22 => 64496, 10.0.2.0/23 => 64496 | disallows 10.0.0.0/22 => 64497, 10.0.0.0/24 => 64496',
    'roa_as0: 10.0.4.0/24 => 0',
    'roa_as0_redundant: 192.168.1.0/24 => 0 | made redundant by 192.168.1.0/24-24 => 64497, 192.168.1.0/24-24 => 64498',
    'roa_not_held: 10.1.0.0/24 => 64497',
    'announcement_valid: 10.0.0.0/22 => 64496 | allowed by 10.0.0.0/22-23 => 64496',
    'announcement_valid: 10.0.2.0/23 => 64496 | allowed by 10.0.0.0/22-23 => 64496',
    'announcement_valid: 192.168.1.0/24 => 64497 | allowed by 192.168.1.0/24-24 => 64497',
    'announcement_invalid_length: 10.0.0.0/24 => 64496 | disallowed by 10.0.0.0/22-23 => 64496',
    'announcement_invalid_asn: 10.0.0.0/22 => 64497 | disallowed by 10.0.0.0/22-23 => 64496',
    'announcement_not_found: 10.0.0.0/21 => 64497',
    'announcement_not_found: 192.168.0.0/24 => 64496',
    'announcement_not_found: 192.168.0.0/24 => 64497',
  ], '2001:db8::/32 is outside the resources: not in the report')
  const seen = report[0]!
  t.same(Object.keys(seen), ['asn', 'prefix', 'max_length', 'comment', 'roa_objects', 'state', 'authorizes'], "a ROA entry: the ConfiguredRoa's fields, the state, and only the lists that are not empty")
  t.same(Object.keys(report.find((e) => e.state === 'announcement_valid')!), ['asn', 'prefix', 'state', 'allowed_by'], 'an announcement entry: asn and prefix')
  t.same(report.find((e) => e.state === 'announcement_invalid_asn')!.disallowed_by, [{ asn: 64496, prefix: '10.0.0.0/22', max_length: 23 }], "Krill's RoaPayload JSON")
})

t.test("Krill's suggestion: stale, too permissive with its replacement, keep, not held, AS0 redundant, the announcements to authorise", async (t) => {
  const s = bgpSuggestion(analyseRoutes(KRILL_ROAS, HELD, KRILL_BGP))
  const show = (l?: { prefix: string; asn: number; max_length?: number }[]) => l?.map((x) => `${x.prefix}${x.max_length !== undefined ? `-${x.max_length}` : ''} => ${x.asn}`)
  t.same(Object.keys(s), ['stale', 'not_found', 'invalid_asn', 'invalid_length', 'too_permissive', 'not_held', 'as0_redundant', 'keep'], "Krill's field order, empty lists left out")
  t.same(show(s.stale), ['10.0.3.0/24-24 => 64497', '192.168.1.0/24-24 => 64498'])
  t.same(show(s.too_permissive?.map((x) => x.current)), ['10.0.0.0/22-23 => 64496'])
  t.same(show(s.too_permissive?.[0]?.new), ['10.0.0.0/22-22 => 64496', '10.0.2.0/23-23 => 64496'], 'replaced by exactly the announced prefixes')
  t.same(show(s.keep), ['10.0.4.0/24-24 => 0', '192.168.1.0/24-24 => 64497'], 'seen and AS0 ROAs are kept')
  t.same(show(s.not_held), ['10.1.0.0/24-24 => 64497'])
  t.same(show(s.as0_redundant), ['192.168.1.0/24-24 => 0'])
  t.same(show(s.not_found), ['10.0.0.0/21 => 64497', '192.168.0.0/24 => 64496', '192.168.0.0/24 => 64497'])
  t.same(show(s.invalid_asn), ['10.0.0.0/22 => 64497'])
  t.same(show(s.invalid_length), ['10.0.0.0/24 => 64496'])

  // Krill's make_bgp_analysis_suggestion scope: only the ROAs and announcements inside 10.0.0.0/22.
  const scoped = bgpSuggestion(analyseRoutes(roas('10.0.0.0/22-23 => 64496', '10.0.0.0/23 => 64496', '10.0.3.0/24 => 64497', '10.0.4.0/24 => 0'), ResourceSet.parse({ ipv4: '10.0.0.0/8' }), KRILL_BGP, ResourceSet.parse({ ipv4: '10.0.0.0/22' })))
  t.same(show(scoped.stale), ['10.0.3.0/24-24 => 64497'])
  t.same(show(scoped.redundant), ['10.0.0.0/23-23 => 64496'], '10.0.0.0/22-23 includes it in full')
  t.same(show(scoped.too_permissive?.[0]?.new), ['10.0.0.0/22-22 => 64496', '10.0.2.0/23-23 => 64496'])
  t.same(show(scoped.invalid_asn), ['10.0.0.0/22 => 64497'])
  t.same(show(scoped.invalid_length), ['10.0.0.0/24 => 64496'])
  t.equal(scoped.not_found, undefined, '10.0.0.0/21 is outside the scope')
  t.equal(scoped.keep, undefined, 'the AS0 ROA for 10.0.4.0/24 is outside the scope')
})

t.test('a replacement keeps every announcement valid: one a redundant ROA also authorises is in it', async (t) => {
  const s = bgpSuggestion(analyseRoutes(roas('10.0.0.0/22-24 => 64496', '10.0.0.0/24 => 64496'), HELD, bgp('10.0.0.0/22 => 64496', '10.0.0.0/24 => 64496')))
  t.same(s.redundant?.map((r) => r.prefix), ['10.0.0.0/24'], 'the /24 ROA is to go: the /22-24 includes it')
  t.same(s.too_permissive?.[0]?.new, [{ asn: 64496, prefix: '10.0.0.0/22', max_length: 22 }, { asn: 64496, prefix: '10.0.0.0/24', max_length: 24 }], 'so the replacement authorises the /24 (Krill would leave it out)')
})

t.test('redundant, disallowing, AS0 disallowing, and AS0 made redundant by a covering ROA', async (t) => {
  const report = bgpAnalysisReport(analyseRoutes(roas('10.0.0.0/21 => 0', '10.0.0.0/22-24 => 64496', '10.0.0.0/23 => 64496', '192.168.0.0/24 => 64499', '192.168.1.0/24 => 0'), ResourceSet.parse({ ipv4: '10.0.0.0/8, 192.168.0.0/16' }), KRILL_BGP))
  t.same(lines(report).filter((l) => l.startsWith('roa_')), [
    'roa_redundant: 10.0.0.0/23 => 64496 | made redundant by 10.0.0.0/22-24 => 64496',
    'roa_disallowing: 192.168.0.0/24 => 64499 | disallows 192.168.0.0/24 => 64496, 192.168.0.0/24 => 64497',
    'roa_too_permissive: 10.0.0.0/22-24 => 64496 | authorizes 10.0.0.0/22 => 64496, 10.0.0.0/24 => 64496, 10.0.2.0/23 => 64496 | disallows 10.0.0.0/22 => 64497',
    'roa_as0: 10.0.0.0/21 => 0 | disallows 10.0.0.0/21 => 64497, 10.0.0.0/22 => 64496, 10.0.0.0/22 => 64497, 10.0.0.0/24 => 64496, 10.0.2.0/23 => 64496',
    'roa_as0: 192.168.1.0/24 => 0 | disallows 192.168.1.0/24 => 64497',
  ])
  t.same(lines(report).filter((l) => /announcement_(disallowed|invalid)/.test(l)), [
    'announcement_invalid_asn: 10.0.0.0/22 => 64497 | disallowed by 10.0.0.0/21-21 => 0, 10.0.0.0/22-24 => 64496',
    'announcement_invalid_asn: 192.168.0.0/24 => 64496 | disallowed by 192.168.0.0/24-24 => 64499',
    'announcement_invalid_asn: 192.168.0.0/24 => 64497 | disallowed by 192.168.0.0/24-24 => 64499',
    'announcement_disallowed: 10.0.0.0/21 => 64497 | disallowed by 10.0.0.0/21-21 => 0',
    'announcement_disallowed: 192.168.1.0/24 => 64497 | disallowed by 192.168.1.0/24-24 => 0',
  ], 'only AS0 ROAs cover them: disallowed, not invalid')
  const s = bgpSuggestion(analyseRoutes(roas('192.168.1.0/24 => 0'), HELD, KRILL_BGP))
  t.same(s.keep_disallowing, [{ asn: 64497, prefix: '192.168.1.0/24' }], 'announcements an AS0 ROA disallows are kept so')
  const as0 = lines(bgpAnalysisReport(analyseRoutes(roas('10.0.0.0/16-24 => 64496', '10.0.4.0/24 => 0'), HELD, KRILL_BGP)))
  t.ok(as0.includes('roa_as0_redundant: 10.0.4.0/24 => 0 | made redundant by 10.0.0.0/16-24 => 64496'), 'a covering ROA for a real ASN makes an AS0 ROA redundant')
})

t.test('RFC 9319: a ROA with a max length is too permissive unless every prefix it allows is announced (a minimal ROA)', async (t) => {
  const held = ResourceSet.parse({ ipv4: '192.0.2.0/24, 198.51.100.0/22', ipv6: '2001:db8::/32' })
  const state = (roaLine: string, ...announced: string[]) => bgpAnalysisReport(analyseRoutes(roas(roaLine), held, bgp(...announced)))[0]!.state
  // RFC 9319's example: 192.0.2.0/24 with maxLength 32 while only the /24 is announced: any /25../32 can be hijacked.
  t.equal(state('192.0.2.0/24-32 => 64496', '192.0.2.0/24 => 64496'), 'roa_too_permissive')
  t.equal(state('192.0.2.0/24 => 64496', '192.0.2.0/24 => 64496'), 'roa_seen', 'its minimal ROA')
  const all = ['198.51.100.0/22', '198.51.100.0/23', '198.51.102.0/23', '198.51.100.0/24', '198.51.101.0/24', '198.51.102.0/24', '198.51.103.0/24'].map((p) => `${p} => 64496`)
  t.equal(state('198.51.100.0/22-24 => 64496', ...all), 'roa_seen', 'every one of the 7 prefixes it allows is announced')
  t.equal(state('198.51.100.0/22-24 => 64496', ...all.filter((a) => !a.includes('/23'))), 'roa_too_permissive', 'the /23s are allowed but not announced')
  t.equal(state('198.51.100.0/22-24 => 64496', ...all.slice(0, 6), '198.51.103.0/24 => 64511'), 'roa_too_permissive', 'one /24 announced by another AS')
  t.equal(state('2001:db8::/32-48 => 64496', '2001:db8::/32 => 64496', '2001:db8:1::/48 => 64496'), 'roa_too_permissive', 'IPv6: 2^17 - 1 prefixes allowed')
  t.equal(state('2001:db8::/32-48 => 64496'), 'roa_unseen', 'nothing announced: unseen')
})

t.test("without BGP data: no announcement info for held ROAs, not held for the others; the suggestion keeps the held ones (Krill's {keep})", async (t) => {
  const a = analyseRoutes(KRILL_ROAS, HELD, undefined)
  t.same(lines(bgpAnalysisReport(a)), [
    'roa_not_held: 10.1.0.0/24 => 64497',
    ...['10.0.0.0/22-23 => 64496', '10.0.3.0/24 => 64497', '10.0.4.0/24 => 0', '192.168.1.0/24 => 0', '192.168.1.0/24 => 64497', '192.168.1.0/24 => 64498'].map((r) => `roa_no_announcement_info: ${r}`),
  ])
  const s = bgpSuggestion(a)
  t.same(Object.keys(s).sort(), ['keep', 'not_held'])
  t.same(s.keep?.map((r) => `${r.prefix}-${r.max_length} => ${r.asn}`), ['10.0.0.0/22-23 => 64496', '10.0.3.0/24-24 => 64497', '10.0.4.0/24-24 => 0', '192.168.1.0/24-24 => 0', '192.168.1.0/24-24 => 64497', '192.168.1.0/24-24 => 64498'], 'every held ROA kept')
  t.same(s.not_held?.map((r) => r.prefix), ['10.1.0.0/24'])
  t.same(bgpSuggestion(analyseRoutes([], HELD, undefined)), {}, 'no ROAs: nothing to suggest')
  t.same(bgpAnalysisReport(analyseRoutes([], HELD, KRILL_BGP)).filter((e) => e.state.startsWith('roa_')), [], 'no ROAs: announcements only')
})

t.test('50,000 ROAs against 100,000 announcements', async (t) => {
  const many: ConfiguredRoa[] = []
  for (let i = 0; i < 50_000; i++) many.push({ asn: 64496 + (i % 10), prefix: `10.${i >> 8}.${i & 255}.0/24`, max_length: 24, comment: null, roa_objects: [] })
  const dump: string[] = []
  // The first 50,000 for the ROAs' prefixes (every 7th from another AS), the others in 11.0.0.0/8, where no ROA is.
  for (let i = 0; i < 100_000; i++) {
    const j = i % 50_000
    dump.push(`${64496 + (i % 10) + (i % 7 === 0 ? 100 : 0)}\t${i < 50_000 ? 10 : 11}.${j >> 8}.${j & 255}.0/24\t100`)
  }
  const data = { v4: parseRisWhois(dump.join('\n'), 4, 6).index, v6: parseRisWhois('', 6, 6).index, loaded: '' }
  const started = Date.now()
  const report = bgpAnalysisReport(analyseRoutes(many, ResourceSet.parse({ ipv4: '10.0.0.0/7' }), data))
  const ms = Date.now() - started
  const count = (s: string) => report.filter((e) => e.state === s).length
  const invalid = Math.ceil(50_000 / 7)
  t.equal(count('roa_seen'), 50_000 - invalid, 'every ROA whose announcement is from its AS')
  t.equal(count('roa_disallowing'), invalid, 'the others only disallow')
  t.equal(count('announcement_invalid_asn'), invalid)
  t.equal(count('announcement_not_found'), 50_000, 'the announcements beyond the ROAs')
  t.ok(ms < 15_000, `analysed in ${ms} ms`)
  // The same in slices (issue 22: the API's analyses yield to the event loop between them), with the same result.
  let pauses = 0
  const pause = async () => void pauses++
  const sliced = await bgpAnalysisReportSliced(await analyseRoutesSliced(many, ResourceSet.parse({ ipv4: '10.0.0.0/7' }), data, undefined, pause), pause)
  t.ok(pauses > 100, `in slices (${pauses} pauses)`)
  t.same(sliced, report, 'the sliced analysis gives the same report')
})
