/**
 * The BGP analysis's suggestion as a plan's change (POST …/plans/suggested, issue 27): what Krill's web UI offers to
 * apply from GET …/routes/analysis/suggest. Added: a ROA for each announcement that is not found or invalid (its
 * prefix, its origin, max length = the prefix length), and the narrower ROAs that replace a too-permissive one.
 * Removed: stale ROAs (no announcement seen), redundant ones (another ROA of the same AS covers them) and AS0 ROAs made
 * redundant by other ROAs, and the too-permissive ones replaced. Kept as they are: disallowing ROAs, ROAs not held
 * (the parent may hand the resources back) and everything the suggestion lists under `keep`.
 */
import type { BgpAnalysisSuggestion } from '../../api/cas.js'
import type { PlanChangeJson } from '../../api/plans.js'

export function suggestionChange(s: BgpAnalysisSuggestion): PlanChangeJson {
  const added = new Map<string, { asn: number; prefix: string; max_length: number }>()
  const removed = new Map<string, { asn: number; prefix: string; max_length: number }>()
  const add = (asn: number, prefix: string, max: number) => void added.set(`${asn} ${prefix} ${max}`, { asn, prefix, max_length: max })
  const remove = (r: { asn: number; prefix: string; max_length: number }) => void removed.set(`${r.asn} ${r.prefix} ${r.max_length}`, { asn: r.asn, prefix: r.prefix, max_length: r.max_length })
  for (const a of [...(s.not_found ?? []), ...(s.invalid_asn ?? []), ...(s.invalid_length ?? [])]) add(a.asn, a.prefix, Number(a.prefix.split('/')[1]))
  for (const r of s.too_permissive ?? []) {
    remove(r.current)
    for (const n of r.new) add(n.asn, n.prefix, n.max_length)
  }
  for (const r of [...(s.stale ?? []), ...(s.redundant ?? []), ...(s.as0_redundant ?? [])]) remove(r)
  // A ROA both replaced and re-added (the same authorisation) is left alone.
  for (const k of [...added.keys()]) {
    if (removed.has(k)) {
      added.delete(k)
      removed.delete(k)
    }
  }
  return { roas: { added: [...added.values()], removed: [...removed.values()] }, aspas: { add_or_replace: [], remove: [] } }
}
