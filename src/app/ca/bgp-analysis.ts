/**
 * Krill's BGP analysis (krill-reference.md §5; krill:src/api/bgp.rs, src/server/bgp/analyser.rs): the configured
 * ROAs of a CA against the BGP announcements inside its resources (RIS whois dumps, app/bgp/), with Krill's states,
 * JSON and suggestions. Pure: the announcements are handed in, and without them (no dump configured or loaded yet)
 * every held ROA is `roa_no_announcement_info`, every other `roa_not_held`, and there is nothing to suggest.
 *
 * Announcements (inside the scope: the CA's resources, or the part of them a suggestion is asked for):
 * - valid: a covering ROA has its origin and a max length at least the announcement's length;
 * - invalid length: a covering ROA has its origin, none allows the length; invalid ASN: covering ROAs, none for its
 *   origin (and not all AS0); disallowed: only AS0 ROAs cover it; not found: no ROA covers it.
 * ROAs (in this order of precedence):
 * - as0 / as0 redundant: an AS0 ROA, made redundant by any other ROA covering its prefix;
 * - redundant: another ROA for the same origin covers its prefix with at least its max length;
 * - unseen: it makes no announcement valid or invalid (Krill's suggestion calls these stale);
 * - too permissive: RFC 9319 — with a max length beyond the prefix length, it is not a minimal ROA: some prefix it
 *   authorises (the prefix and its more-specifics up to the max length) is not announced by its origin, and could be
 *   used in a forged-origin sub-prefix hijack. (Krill counts only the announcements at exactly the max length, and
 *   when there is none calls the ROA seen; svc follows the RFC.) The suggestion replaces it with ROAs for the
 *   announced prefixes it authorises that no ROA kept as it is authorises;
 * - disallowing: it only makes announcements invalid; seen: it makes some valid.
 * Entries are in Krill's state order, ROAs in listing order within a state, announcements by prefix, then origin.
 */
import type { AnnouncementJson, BgpAnalysisEntry, BgpAnalysisState, BgpAnalysisSuggestion, ConfiguredRoa, RoaPayloadJson } from '../../api/cas.js'
import { addressBits, formatPrefix, parsePrefix, type IpFamily, type IpPrefix } from '../../resources/ip.js'
import type { ResourceSet } from '../../resources/resource-set.js'
import type { Announcement } from '../bgp/route-origins.js'
import { runSliced, runSync, sliceCounter, type Sliced } from '../../util/slices.js'

/** Krill's BgpAnalysisState in declaration order (the order of a report). */
export const BGP_ANALYSIS_STATES: readonly BgpAnalysisState[] = [
  'roa_seen', 'roa_redundant', 'roa_unseen', 'roa_disallowing', 'roa_too_permissive', 'roa_as0', 'roa_as0_redundant', 'roa_not_held',
  'announcement_valid', 'announcement_invalid_length', 'announcement_invalid_asn', 'announcement_disallowed', 'announcement_not_found', 'roa_no_announcement_info',
]

/** The announcements known, per family: those inside an address range (app/bgp/route-origins.ts RouteOrigins). */
export interface BgpAnnouncements {
  v4: { within(min: bigint, max: bigint): Announcement[] }
  v6: { within(min: bigint, max: bigint): Announcement[] }
}

type AnnouncementState = 'announcement_valid' | 'announcement_invalid_length' | 'announcement_invalid_asn' | 'announcement_disallowed' | 'announcement_not_found'

interface RoaRec {
  /** Position in the listing. */
  i: number
  roa: ConfiguredRoa
  prefix: IpPrefix
  state: BgpAnalysisState
  authorizes: AnnRec[]
  disallows: AnnRec[]
  covered: AnnRec[]
  madeRedundantBy: RoaRec[]
}

interface AnnRec {
  ann: Announcement
  state: AnnouncementState
  allowedBy?: RoaRec
  /** The ROAs covering it, in listing order. */
  covering: RoaRec[]
}

/** An analysis: every ROA in scope and every announcement in scope, with their states. */
export interface BgpAnalysis {
  /** False without announcements: nothing was compared. */
  informed: boolean
  roas: RoaRec[]
  announcements: AnnRec[]
}

/**
 * Analyse configured ROAs (in listing order) of a CA holding `held` against `bgp` (undefined: no data). With `scope`,
 * only the ROAs and announcements inside it (and held) are looked at, as Krill's suggestion for a resource set.
 */
export function analyseRoutes(roas: readonly ConfiguredRoa[], held: ResourceSet, bgp: BgpAnnouncements | undefined, scope?: ResourceSet): BgpAnalysis {
  return runSync(analyseSteps(roas, held, bgp, scope))
}

/** analyseRoutes in slices, awaiting `pause` between them (issue 22: hundreds of thousands of ROAs in a dry run). */
export function analyseRoutesSliced(roas: readonly ConfiguredRoa[], held: ResourceSet, bgp: BgpAnnouncements | undefined, scope: ResourceSet | undefined, pause: () => Promise<void>): Promise<BgpAnalysis> {
  return runSliced(analyseSteps(roas, held, bgp, scope), pause)
}

function* analyseSteps(roas: readonly ConfiguredRoa[], held: ResourceSet, bgp: BgpAnnouncements | undefined, scope?: ResourceSet): Sliced<BgpAnalysis> {
  const due = sliceCounter()
  const area = scope ? scope.intersection(held) : held
  const recs: RoaRec[] = []
  const heldRecs: RoaRec[] = []
  for (let i = 0; i < roas.length; i++) {
    const roa = roas[i]!
    const prefix = parsePrefix(roa.prefix)
    if (due()) yield
    if (scope && !blocks(scope, prefix.family).containsPrefix(prefix)) continue
    const rec: RoaRec = { i, roa, prefix, state: 'roa_not_held', authorizes: [], disallows: [], covered: [], madeRedundantBy: [] }
    recs.push(rec)
    if (blocks(held, prefix.family).containsPrefix(prefix)) heldRecs.push(rec)
  }
  if (!bgp) {
    for (const r of heldRecs) r.state = 'roa_no_announcement_info'
    return { informed: false, roas: recs, announcements: [] }
  }
  const cover = new CoverIndex()
  for (const r of heldRecs) {
    cover.add(r)
    if (due()) yield
  }
  cover.done()
  const announcements: AnnRec[] = []
  for (const family of [4, 6] as const) {
    for (const range of blocks(area, family).ranges) {
      for (const ann of (family === 4 ? bgp.v4 : bgp.v6).within(range.min, range.max)) {
        announcements.push(validate(ann, cover.covering(ann.prefix)))
        if (due()) yield
      }
    }
  }
  for (const a of announcements) {
    for (const r of a.covering) {
      r.covered.push(a)
      if (a.state === 'announcement_valid' && a.ann.asn === r.roa.asn && a.ann.prefix.len <= r.roa.max_length) r.authorizes.push(a)
      if (a.state === 'announcement_invalid_length' || a.state === 'announcement_invalid_asn') r.disallows.push(a)
    }
    if (due()) yield
  }
  for (const r of heldRecs) {
    categorise(r, cover.covering(r.prefix).filter((o) => o !== r))
    if (due()) yield
  }
  return { informed: true, roas: recs, announcements }
}

/** The report (Krill's BgpAnalysisReport): every entry, in Krill's state order. */
export function bgpAnalysisReport(a: BgpAnalysis): BgpAnalysisEntry[] {
  return runSync(reportSteps(a))
}

/** bgpAnalysisReport in slices, awaiting `pause` between them. */
export function bgpAnalysisReportSliced(a: BgpAnalysis, pause: () => Promise<void>): Promise<BgpAnalysisEntry[]> {
  return runSliced(reportSteps(a), pause)
}

function* reportSteps(a: BgpAnalysis): Sliced<BgpAnalysisEntry[]> {
  const due = sliceCounter()
  // One list per state, in Krill's order; within a state the listing (and announcement) order stays.
  const byState = new Map<BgpAnalysisState, BgpAnalysisEntry[]>(BGP_ANALYSIS_STATES.map((s) => [s, []]))
  for (const r of a.roas) {
    byState.get(r.state)!.push(roaEntry(r))
    if (due()) yield
  }
  for (const x of a.announcements) {
    byState.get(x.state)!.push(announcementEntry(x))
    if (due()) yield
  }
  const out: BgpAnalysisEntry[] = []
  for (const list of byState.values()) for (const e of list) out.push(e)
  return out
}

/**
 * The report's entries one at a time, in the report's order (bgpAnalysisReport's), each made when it is taken: the
 * JSON of a large report (analysis-json.ts) is written without ever holding all its entries (issue 28 §3).
 */
export function* reportEntries(a: BgpAnalysis): Generator<BgpAnalysisEntry> {
  for (const state of BGP_ANALYSIS_STATES) {
    for (const r of a.roas) if (r.state === state) yield roaEntry(r)
    for (const x of a.announcements) if (x.state === state) yield announcementEntry(x)
  }
}

/**
 * Krill's suggestion (krill:src/server/bgp/analyser.rs `suggest`); without BGP data every held ROA has no announcement
 * information and is kept (`{"keep": […]}`, as Krill answers; issue 24 item 6), a ROA not held is still not held.
 */
export function bgpSuggestion(a: BgpAnalysis): BgpAnalysisSuggestion {
  const lists: Required<BgpAnalysisSuggestion> = {
    stale: [], not_found: [], invalid_asn: [], invalid_length: [], too_permissive: [], disallowing: [], redundant: [], not_held: [], as0_redundant: [], keep: [], keep_disallowing: [],
  }
  // A too-permissive ROA is replaced by ROAs for the announcements it authorises that no kept (seen) ROA and no earlier
  // replacement authorises. (Krill leaves out every announcement another ROA authorises, also one that is itself
  // to be removed as redundant or replaced: the valid announcement would then be lost.)
  const covered = new Set<AnnRec>()
  for (const r of a.roas) if (r.state === 'roa_seen') for (const x of r.authorizes) covered.add(x)
  for (const r of a.roas) {
    switch (r.state) {
      case 'roa_unseen': lists.stale.push(r.roa); break
      case 'roa_too_permissive': {
        const only = r.authorizes.filter((x) => !covered.has(x))
        for (const x of only) covered.add(x)
        lists.too_permissive.push({ current: r.roa, new: only.map((x) => ({ asn: x.ann.asn, prefix: formatPrefix(x.ann.prefix), max_length: x.ann.prefix.len })) })
        break
      }
      case 'roa_disallowing': lists.disallowing.push(r.roa); break
      case 'roa_redundant': lists.redundant.push(r.roa); break
      case 'roa_not_held': lists.not_held.push(r.roa); break
      case 'roa_as0_redundant': lists.as0_redundant.push(r.roa); break
      default: lists.keep.push(r.roa) // seen, as0, no announcement info
    }
  }
  for (const x of a.announcements) {
    if (x.state === 'announcement_not_found') lists.not_found.push(annJson(x))
    else if (x.state === 'announcement_invalid_asn') lists.invalid_asn.push(annJson(x))
    else if (x.state === 'announcement_invalid_length') lists.invalid_length.push(annJson(x))
    else if (x.state === 'announcement_disallowed') lists.keep_disallowing.push(annJson(x))
  }
  return Object.fromEntries(Object.entries(lists).filter(([, l]) => l.length > 0)) as BgpAnalysisSuggestion
}

//------------ Validation and categories ------------------------------------------------------------------------------

/** RFC 6811 origin validation of one announcement against the ROAs covering it (in listing order). */
function validate(ann: Announcement, covering: RoaRec[]): AnnRec {
  if (covering.length === 0) return { ann, state: 'announcement_not_found', covering }
  const match = covering.find((r) => r.roa.asn === ann.asn && ann.prefix.len <= r.roa.max_length)
  if (match) return { ann, state: 'announcement_valid', allowedBy: match, covering }
  const state = covering.some((r) => r.roa.asn === ann.asn) ? 'announcement_invalid_length' : covering.some((r) => r.roa.asn !== 0) ? 'announcement_invalid_asn' : 'announcement_disallowed'
  return { ann, state, covering }
}

/** The state of a held ROA, given the other held ROAs covering its prefix. */
function categorise(r: RoaRec, others: RoaRec[]): void {
  if (r.roa.asn === 0) {
    if (others.length > 0) {
      r.state = 'roa_as0_redundant'
      r.madeRedundantBy = others
    } else {
      r.state = 'roa_as0'
      r.disallows = r.covered
    }
    return
  }
  const including = others.filter((o) => o.roa.asn === r.roa.asn && o.roa.max_length >= r.roa.max_length)
  if (including.length > 0) {
    r.state = 'roa_redundant'
    r.madeRedundantBy = including
  } else if (r.authorizes.length === 0 && r.disallows.length === 0) r.state = 'roa_unseen'
  else if (r.authorizes.length > 0 && !minimal(r)) r.state = 'roa_too_permissive'
  else if (r.authorizes.length === 0) r.state = 'roa_disallowing'
  else r.state = 'roa_seen'
}

/** RFC 9319's minimal ROA: every prefix it authorises (2^(d+1) - 1 of them for d = max length - length) is announced. */
function minimal(r: RoaRec): boolean {
  const d = r.roa.max_length - r.prefix.len
  // `authorizes` holds each authorised, announced prefix once (one origin, distinct prefixes).
  return d <= 0 || r.authorizes.length >= 2 ** (d + 1) - 1
}

//------------ JSON ---------------------------------------------------------------------------------------------------

function annJson(x: AnnRec): AnnouncementJson {
  return { asn: x.ann.asn, prefix: formatPrefix(x.ann.prefix) }
}

function payloadJson(r: RoaRec): RoaPayloadJson {
  return { asn: r.roa.asn, prefix: r.roa.prefix, max_length: r.roa.max_length }
}

function roaEntry(r: RoaRec): BgpAnalysisEntry {
  return {
    ...r.roa,
    state: r.state,
    ...(r.madeRedundantBy.length ? { made_redundant_by: r.madeRedundantBy.map(payloadJson) } : {}),
    ...(r.authorizes.length ? { authorizes: r.authorizes.map(annJson) } : {}),
    ...(r.disallows.length ? { disallows: r.disallows.map(annJson) } : {}),
  }
}

function announcementEntry(x: AnnRec): BgpAnalysisEntry {
  return {
    ...annJson(x),
    state: x.state,
    ...(x.allowedBy ? { allowed_by: payloadJson(x.allowedBy) } : {}),
    ...(!x.allowedBy && x.covering.length ? { disallowed_by: x.covering.map(payloadJson) } : {}),
  }
}

//------------ Which ROAs cover a prefix ------------------------------------------------------------------------------

function blocks(s: ResourceSet, family: IpFamily) {
  return family === 4 ? s.ipv4 : s.ipv6
}

/** ROAs by prefix length and network address: the ROAs covering a prefix are one lookup per length in use. */
class CoverIndex {
  private readonly byLen = [new Map<number, Map<bigint, RoaRec[]>>(), new Map<number, Map<bigint, RoaRec[]>>()]
  private readonly lens: number[][] = [[], []]

  add(r: RoaRec): void {
    const f = r.prefix.family === 4 ? 0 : 1
    let m = this.byLen[f]!.get(r.prefix.len)
    if (!m) {
      m = new Map()
      this.byLen[f]!.set(r.prefix.len, m)
      this.lens[f]!.push(r.prefix.len)
    }
    const list = m.get(r.prefix.addr)
    if (list) list.push(r)
    else m.set(r.prefix.addr, [r])
  }

  /** Every ROA is added. */
  done(): void {
    for (const l of this.lens) l.sort((a, b) => a - b)
  }

  /** The ROAs whose prefix covers `p` (an equal prefix included), in listing order. */
  covering(p: IpPrefix): RoaRec[] {
    const f = p.family === 4 ? 0 : 1
    const bits = BigInt(addressBits(p.family))
    const out: RoaRec[] = []
    for (const len of this.lens[f]!) {
      if (len > p.len) break
      const net = len === 0 ? 0n : (p.addr >> (bits - BigInt(len))) << (bits - BigInt(len))
      const list = this.byLen[f]!.get(len)!.get(net)
      if (list) out.push(...list)
    }
    return out.length > 1 ? out.sort((a, b) => a.i - b.i) : out
  }
}
