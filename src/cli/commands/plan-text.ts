/**
 * `svcc plan …` as text (api/plans.ts PlanJson): the plan's id and status, its diff as +/- lines, its BGP impact (the
 * counts, then the announcements turning invalid first), its VRP and ASPA effect, and whether it needs approval.
 */
import type { PlanJson, PlanStampJson } from '../../api/plans.js'

/** As `roas list` writes an authorisation: the max length only when it is not the prefix length. */
const payload = (r: { asn: number; prefix: string; max_length?: number }) => `${r.prefix}${r.max_length === undefined || r.max_length === Number(r.prefix.split('/')[1]) ? '' : `-${r.max_length}`} => ${r.asn}`
const roaLine = (r: { asn: number; prefix: string; max_length?: number; comment?: string | null }) => `${payload(r)}${r.comment ? ` # ${r.comment}` : ''}`
const asns = (l: readonly number[]) => (l.length ? l.map((a) => `AS${a}`).join(', ') : '-')
const who = (s: PlanStampJson) => `${s.by} (${s.provider}${s.token === undefined ? '' : `, token ${s.token}`}) at ${s.at}`

export function planText(p: PlanJson): string {
  const lines = [`plan ${p.id} of ${p.ca}: ${p.status}${p.stale ? ' (stale: the CA changed since it was made; it cannot be applied)' : ''}`]
  lines.push(`made by ${who(p.created)}${p.source === 'delta' ? '' : `, from ${p.source}${p.rollback_to === undefined ? '' : ` (history version ${p.rollback_to})`}`}`)
  if (p.comment) lines.push(`comment: ${p.comment}`)
  lines.push('', 'change:')
  for (const r of p.change.roas.added) lines.push(`+ ${roaLine(r)}`)
  for (const r of p.change.roas.removed) lines.push(`- ${roaLine(r)}`)
  for (const a of p.change.aspas.add_or_replace) lines.push(`+ ASPA AS${a.customer} => ${asns(a.providers)}`)
  for (const c of p.change.aspas.remove) lines.push(`- ASPA AS${c}`)
  const b = p.impact.bgp
  lines.push('')
  if (!b.available) lines.push('BGP impact: unknown (no BGP announcements loaded)')
  else {
    lines.push(`BGP impact: ${b.turned_invalid} turn invalid, ${b.turned_valid} turn valid, ${b.turned_not_found} turn not found`)
    for (const c of b.changes) lines.push(`  ${c.after === 'invalid' ? 'INVALID' : c.after}: ${c.prefix} AS${c.asn} (was ${c.before}; ${c.detail})`)
    if (b.truncated) lines.push('  … (more; --format json lists them up to the limit)')
  }
  const v = p.impact.vrps
  lines.push(`VRPs: ${v.added_count} added, ${v.removed_count} removed (${v.before} before, ${v.after} after)`)
  for (const x of v.added) lines.push(`  + ${payload(x)}`)
  for (const x of v.removed) lines.push(`  - ${payload(x)}`)
  const a = p.impact.aspas
  if (a.added.length + a.changed.length + a.removed.length) lines.push(`ASPAs: added ${asns(a.added)}; changed ${asns(a.changed)}; removed ${asns(a.removed)}`)
  lines.push(`needs approval: ${p.needs_approval ? 'yes (four-eyes: another user approves)' : 'no'}`)
  if (p.approved) lines.push(`approved by ${who(p.approved)}`)
  if (p.applied) lines.push(`applied by ${who(p.applied)}, history version ${p.applied.version}`)
  if (p.rejected) lines.push(`rejected by ${who(p.rejected)}${p.rejected.reason ? `: ${p.rejected.reason}` : ''}`)
  if (p.withdrawn) lines.push(`withdrawn by ${who(p.withdrawn)}`)
  return lines.join('\n')
}

/** One line per plan: id, status, author, when, the size of the change, the comment. */
export function planListText(total: number, plans: readonly PlanJson[]): string {
  if (plans.length === 0) return total === 0 ? 'no plans' : `no plans on this page (${total} in all)`
  const size = (p: PlanJson) => {
    const c = p.change
    const parts = [`+${c.roas.added.length} -${c.roas.removed.length} ROAs`]
    if (c.aspas.add_or_replace.length + c.aspas.remove.length) parts.push(`+${c.aspas.add_or_replace.length} -${c.aspas.remove.length} ASPAs`)
    if (p.impact.bgp.turned_invalid) parts.push(`${p.impact.bgp.turned_invalid} turn invalid`)
    return parts.join(', ')
  }
  const status = (p: PlanJson) => `${p.status}${p.stale ? ' (stale)' : ''}`
  const rows = plans.map((p) => [String(p.id), status(p), p.created.by, p.created.at, size(p), p.comment].join('\t'))
  return [['id', 'status', 'by', 'made', 'change', 'comment'].join('\t'), ...rows, ...(total > plans.length ? [`(${plans.length} of ${total})`] : [])].join('\n')
}
