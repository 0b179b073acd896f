/**
 * Where the BGP analysis of a CA's ROAs (app/ca/bgp-analysis.ts) runs: the CA and plan services ask a RouteAnalyser
 * for the report (routes/analysis/full, dryrun, a plan's impact) or Krill's suggestion. svcd's is the analysis worker
 * (analysis-pool.ts: the event loop only sends the ROAs and receives the answer); without one (unit tests of the
 * services, small tools) the same pure functions run here, in slices that yield between them.
 */
import type { BgpAnalysisEntry, BgpAnalysisSuggestion, ConfiguredRoa } from '../../api/cas.js'
import type { ResourceSet } from '../../resources/resource-set.js'
import { arrayJsonPieces, suggestionJsonPieces, type JsonChunks } from './analysis-json.js'

export type { JsonChunks }
import { analyseRoutesSliced, bgpAnalysisReportSliced, bgpSuggestion, type BgpAnnouncements } from '../ca/bgp-analysis.js'

export interface RouteAnalyser {
  /** The report (Krill's BgpAnalysisReport) of `roas` (in listing order) for a CA holding `held`. */
  report(roas: readonly ConfiguredRoa[], held: ResourceSet): Promise<BgpAnalysisEntry[]>
  /** Krill's suggestion, limited to `scope` when one is given. */
  suggest(roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<BgpAnalysisSuggestion>
  /** The report as JSON text in pieces (an HTTP answer); resolved once the analysis is done, or rejected. */
  reportJson(roas: readonly ConfiguredRoa[], held: ResourceSet): Promise<JsonChunks>
  /** The suggestion as JSON text in pieces. */
  suggestJson(roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<JsonChunks>
}

/** The analysis on this thread against `bgp()`, awaiting `pause` between slices. */
export function inThreadAnalyser(bgp: () => BgpAnnouncements | undefined, pause: () => Promise<void>): RouteAnalyser {
  const report: RouteAnalyser['report'] = async (roas, held) => bgpAnalysisReportSliced(await analyseRoutesSliced(roas, held, bgp(), undefined, pause), pause)
  const suggest: RouteAnalyser['suggest'] = async (roas, held, scope) => bgpSuggestion(await analyseRoutesSliced(roas, held, bgp(), scope, pause))
  return {
    report,
    suggest,
    reportJson: async (roas, held) => paused(arrayJsonPieces(await report(roas, held)), pause),
    suggestJson: async (roas, held, scope) => paused(suggestionJsonPieces(await suggest(roas, held, scope)), pause),
  }
}

/** The pieces, awaiting `pause` before each after the first. */
async function* paused(pieces: Iterable<string>, pause: () => Promise<void>): AsyncGenerator<string> {
  let first = true
  for (const piece of pieces) {
    if (!first) await pause()
    first = false
    yield piece
  }
}
