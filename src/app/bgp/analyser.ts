/**
 * Where the BGP analysis of a CA's ROAs (app/ca/bgp-analysis.ts) runs: the CA and plan services ask a RouteAnalyser
 * for the report (routes/analysis/full, dryrun, a plan's impact) or Krill's suggestion. svcd's is the analysis worker
 * (analysis-pool.ts: the event loop only sends the ROAs and receives the answer); without one (unit tests of the
 * services, small tools) the same pure functions run here, in slices that yield between them.
 */
import type { BgpAnalysisEntry, BgpAnalysisSuggestion, ConfiguredRoa } from '../../api/cas.js'
import type { ResourceSet } from '../../resources/resource-set.js'
import { analyseRoutesSliced, bgpAnalysisReportSliced, bgpSuggestion, type BgpAnnouncements } from '../ca/bgp-analysis.js'

export interface RouteAnalyser {
  /** The report (Krill's BgpAnalysisReport) of `roas` (in listing order) for a CA holding `held`. */
  report(roas: readonly ConfiguredRoa[], held: ResourceSet): Promise<BgpAnalysisEntry[]>
  /** Krill's suggestion, limited to `scope` when one is given. */
  suggest(roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<BgpAnalysisSuggestion>
}

/** The analysis on this thread against `bgp()`, awaiting `pause` between slices. */
export function inThreadAnalyser(bgp: () => BgpAnnouncements | undefined, pause: () => Promise<void>): RouteAnalyser {
  return {
    report: async (roas, held) => bgpAnalysisReportSliced(await analyseRoutesSliced(roas, held, bgp(), undefined, pause), pause),
    suggest: async (roas, held, scope) => bgpSuggestion(await analyseRoutesSliced(roas, held, bgp(), scope, pause)),
  }
}
