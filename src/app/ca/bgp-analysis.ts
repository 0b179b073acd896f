/**
 * Krill's BGP analysis (krill-reference.md §5; krill:src/api/bgp.rs) without BGP data: svcd reads no RIS dumps, so
 * every configured ROA is `roa_no_announcement_info`, or `roa_not_held` when the CA does not hold its prefix, and the
 * suggestion is empty. Entries are sorted as Krill sorts them: by state in Krill's order, then in payload order.
 */
import type { BgpAnalysisEntry, BgpAnalysisState, BgpAnalysisSuggestion, ConfiguredRoa } from '../../api/cas.js'
import { parsePrefix } from '../../resources/ip.js'
import type { ResourceSet } from '../../resources/resource-set.js'

/** Krill's BgpAnalysisState in declaration order (the order of a report). */
export const BGP_ANALYSIS_STATES: readonly BgpAnalysisState[] = [
  'roa_seen', 'roa_redundant', 'roa_unseen', 'roa_disallowing', 'roa_too_permissive', 'roa_as0', 'roa_as0_redundant', 'roa_not_held',
  'announcement_valid', 'announcement_invalid_length', 'announcement_invalid_asn', 'announcement_disallowed', 'announcement_not_found', 'roa_no_announcement_info',
]

/** The full report for configured ROAs (in listing order) of a CA holding `held`, with no announcements known. */
export function bgpAnalysisReport(roas: readonly ConfiguredRoa[], held: ResourceSet): BgpAnalysisEntry[] {
  const entries = roas.map((r): BgpAnalysisEntry => {
    const p = parsePrefix(r.prefix)
    const isHeld = (p.family === 4 ? held.ipv4 : held.ipv6).containsPrefix(p)
    return { ...r, state: isHeld ? 'roa_no_announcement_info' : 'roa_not_held' }
  })
  const rank = (e: BgpAnalysisEntry) => BGP_ANALYSIS_STATES.indexOf(e.state)
  // Array.prototype.sort is stable: within a state the listing (payload) order stays.
  return entries.sort((a, b) => rank(a) - rank(b))
}

/** The suggestion without BGP data: nothing to suggest (Krill omits empty lists, so `{}`). */
export function emptySuggestion(): BgpAnalysisSuggestion {
  return {}
}
