/**
 * The text form of the BGP analysis answers (`svcc roas bgp analyze`, `roas update --dryrun`, `roas bgp suggest`):
 * Krill's report and suggestion texts (krill:src/api/bgp.rs Display), one section per state that has entries.
 */
import type { AnnouncementJson, BgpAnalysisEntry, BgpAnalysisState, BgpAnalysisSuggestion, RoaPayloadJson } from '../../api/cas.js'

/** '10.0.0.0/22-24 => 64496', or without '-24' when the max length is the prefix length. */
function roa(r: RoaPayloadJson | BgpAnalysisEntry): string {
  const len = r.prefix.split('/')[1]
  const max = r.max_length === undefined || String(r.max_length) === len ? '' : `-${r.max_length}`
  return `${r.prefix}${max} => ${r.asn}`
}

function announcement(a: AnnouncementJson): string {
  return `${a.prefix} => ${a.asn}`
}

/** The sections of the report: heading, and what each entry shows below its line. */
const SECTIONS: [BgpAnalysisState, string, (e: BgpAnalysisEntry) => string[]][] = [
  ['roa_seen', 'ROA configurations covering seen announcements:', (e) => details(e)],
  ['roa_redundant', 'ROA configurations which are *redundant* - they are already included in full by other configurations:', (e) => [...details(e), ...list('Made redundant by:', e.made_redundant_by, roa)]],
  ['roa_unseen', 'ROA configurations for which no announcements are seen (you may wish to remove these):', () => []],
  ['roa_not_held', 'ROA configurations for which no ROAs can be made - you do not have the prefix on your certificate(s):', () => []],
  ['roa_disallowing', 'ROA configurations only disallowing seen announcements. You may want to use AS0 ROAs instead:', (e) => list('Disallows:', e.disallows, announcement)],
  ['roa_too_permissive', 'ROA configurations which may be too permissive (RFC 9319: not every prefix they allow is announced):', (e) => details(e)],
  ['roa_as0', 'AS0 ROA configurations disallowing announcements for prefixes:', (e) => list('Disallows:', e.disallows, announcement)],
  ['roa_as0_redundant', 'AS0 ROA configurations which are made redundant by configuration(s) for the prefix from real ASNs:', (e) => list('Made redundant by ROA configuration(s):', e.made_redundant_by, roa)],
  ['announcement_valid', 'Announcements which are valid:', () => []],
  ['announcement_invalid_length', 'Announcements from an authorized ASN, which are too specific (not allowed by max length):', (e) => list('Disallowed by ROA configuration(s):', e.disallowed_by, roa)],
  ['announcement_invalid_asn', 'Announcements from an unauthorized ASN:', (e) => list('Disallowed by ROA configuration(s):', e.disallowed_by, roa)],
  ['announcement_disallowed', "Announcements disallowed by 'AS0' ROAs:", () => []],
  ['announcement_not_found', "Announcements which are 'not found' (not covered by any of your ROA configurations):", () => []],
]

function details(e: BgpAnalysisEntry): string[] {
  return [...list('Authorizes announcement(s):', e.authorizes, announcement), ...list('Disallows announcement(s):', e.disallows, announcement)]
}

function list<T>(heading: string, items: T[] | undefined, show: (x: T) => string): string[] {
  return items?.length ? [`\t\t${heading}`, ...items.map((x) => `\t\t${show(x)}`)] : []
}

/** The report as text; 'no ROAs configured' when it is empty. */
export function reportText(report: BgpAnalysisEntry[]): string {
  if (report.length === 0) return 'no ROAs configured'
  const out: string[] = []
  if (report.some((e) => e.state === 'roa_no_announcement_info')) out.push('no BGP announcements known', '')
  for (const [state, heading, below] of SECTIONS) {
    const entries = report.filter((e) => e.state === state)
    if (entries.length === 0) continue
    out.push(heading)
    for (const e of entries) {
      const isRoa = state.startsWith('roa_')
      out.push(`\t${isRoa ? 'Configuration' : 'Announcement'}: ${isRoa ? roa(e) : announcement(e)}`, ...below(e))
    }
    out.push('')
  }
  return out.join('\n').trimEnd()
}

/** The suggestion as text; 'no suggestions' when it is empty. */
export function suggestionText(s: BgpAnalysisSuggestion): string {
  const out: string[] = []
  const section = <T>(heading: string, items: T[] | undefined, show: (x: T) => string[]) => {
    if (items?.length) out.push(heading, ...items.flatMap(show), '')
  }
  section('Remove the following stale entries:', s.stale, (r) => [`  ${roa(r)}`])
  section('Replace the following too permissive entries:', s.too_permissive, (t) => [`  Remove: ${roa(t.current)}`, ...t.new.map((n) => `  Add: ${roa(n)}`)])
  section('Remove the following AS0 ROAs made redundant by ROAs for the same prefix and a real ASN:', s.as0_redundant, (r) => [`  ${roa(r)}`])
  section('Remove the following ROAs made redundant by a covering ROA using max length:', s.redundant, (r) => [`  ${roa(r)}`])
  section('Remove the following ROAs which only disallow announcements (did you use the wrong ASN?), if this is intended you may want to use AS0 instead:', s.disallowing, (r) => [`  ${roa(r)}`])
  section('Remove the following ROAs for prefixes you do not hold:', s.not_held, (r) => [`  ${roa(r)}`])
  section('Keep the following authorizations:', s.keep, (r) => [`  ${roa(r)}`])
  section('Authorize these announcements which are currently not covered:', s.not_found, (a) => [`  ${announcement(a)}`])
  section('Authorize these announcements which are currently invalid because they are too specific:', s.invalid_length, (a) => [`  ${announcement(a)}`])
  section('Authorize these announcements which are currently invalid because they are not allowed for these ASNs:', s.invalid_asn, (a) => [`  ${announcement(a)}`])
  section('These announcements are disallowed by AS0 ROAs (kept so):', s.keep_disallowing, (a) => [`  ${announcement(a)}`])
  return out.length ? out.join('\n').trimEnd() : 'no suggestions'
}
