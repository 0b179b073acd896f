/**
 * Change plans (design.md §12, issue 27): the pure rules. A plan is a ROA/ASPA change kept with the fingerprint of
 * the CA's configuration it was made against; it is stale once the configuration differs (it would then not do what
 * its impact says), and each step (approve, apply, reject, withdraw) is allowed or refused here with a labelled
 * error. Four-eyes: the approval must come from a different user than the plan's author. The impact (which BGP
 * announcements change state, which VRPs and ASPAs appear or go) is computed from two analyses by the functions below.
 */
import { sha256Hex } from '../crypto/digest.js'
import { AppError } from '../errors.js'
import type { AspaConfig } from './aspas.js'
import type { RoaConfig } from './roas.js'
import type { CaState } from './state.js'

export type PlanStatus = 'open' | 'approved' | 'applied' | 'rejected' | 'withdrawn'
export type PlanAction = 'approve' | 'apply' | 'reject' | 'withdraw'
export type RouteValidity = 'valid' | 'invalid' | 'not_found'

/** Who did a step and when (ISO 8601); `token`: the API token's name, when one was used. */
export interface PlanStamp {
  by: string
  provider: string
  token?: string
  at: string
}

export interface PlanRoa {
  asn: number
  prefix: string
  max_length?: number
  comment?: string | null
}

/** The change: a ROA delta and an ASPA update, in the API's shapes (api/plans.ts PlanChangeJson). */
export interface PlanChange {
  roas: { added: PlanRoa[]; removed: PlanRoa[] }
  aspas: { add_or_replace: AspaConfig[]; remove: number[] }
}

export interface PlanAnnouncement {
  asn: number
  prefix: string
  before: RouteValidity
  after: RouteValidity
  detail: string
}

export interface PlanVrp {
  asn: number
  prefix: string
  max_length: number
}

export interface PlanImpact {
  analysed_at: string
  bgp: { available: boolean; turned_valid: number; turned_invalid: number; turned_not_found: number; changes: PlanAnnouncement[]; truncated: boolean }
  vrps: { added: PlanVrp[]; removed: PlanVrp[]; added_count: number; removed_count: number; before: number; after: number }
  aspas: { added: number[]; changed: number[]; removed: number[] }
}

/** A plan as stored (the API adds `stale` and `needs_approval`, which depend on now). Changing it needs a migration. */
export interface PlanRecord {
  id: number
  ca: string
  status: PlanStatus
  comment: string
  source: string
  rollback_to?: number
  /** configFingerprint of the CA when the plan was made. */
  base: string
  change: PlanChange
  impact: PlanImpact
  created: PlanStamp
  approved?: PlanStamp
  applied?: PlanStamp & { version: number }
  rejected?: PlanStamp & { reason: string }
  withdrawn?: PlanStamp
}

/**
 * The fingerprint of what a plan changes: the ROA authorisations (ASN, prefix, max length; comments do not route) and
 * the ASPA definitions. Two states with the same configuration have the same fingerprint, whatever the order.
 */
export function configFingerprint(routes: Record<string, RoaConfig>, aspas: Record<string, AspaConfig> | undefined): string {
  const lines: string[] = []
  for (const key in routes) {
    const r = routes[key]!
    lines.push(`roa ${r.asn} ${r.prefix} ${r.maxLength}`)
  }
  for (const c of Object.values(aspas ?? {})) lines.push(`aspa ${c.customer} ${[...c.providers].sort((a, b) => a - b).join(',')}`)
  lines.sort()
  return sha256Hex(new TextEncoder().encode(lines.join('\n')))
}

export function stateFingerprint(s: CaState): string {
  return configFingerprint(s.routes, s.aspas)
}

/** Whether the CA's changes need a second user's approval: its own setting, or the configuration's for every CA. */
export function fourEyesRequired(s: CaState, everyCa: boolean): boolean {
  return everyCa || s.changeControl?.fourEyes === true
}

/** Who asks for a step. */
export interface PlanActor {
  id: string
  provider: string
}

const sameUser = (a: PlanActor, b: PlanStamp) => a.id === b.by && a.provider === b.provider

/**
 * Whether `actor` may take `action` on the plan now (`current`: the CA's fingerprint now). Throws the labelled refusal:
 * ca-plan-status (already applied, rejected or withdrawn; or approving twice), ca-plan-stale, ca-plan-own-approval
 * (four-eyes: the author approving), ca-plan-not-approved (four-eyes: applying before an approval), ca-plan-invalidates
 * (seen announcements would turn invalid and `acceptInvalid` was not given). A stale plan may still be rejected or
 * withdrawn; only its author withdraws it.
 */
export function checkPlanStep(p: PlanRecord, action: PlanAction, o: { actor: PlanActor; fourEyes: boolean; current: string; acceptInvalid?: boolean }): void {
  const args = { ca: p.ca, plan: String(p.id) }
  const refuse = () => new AppError('ca-plan-status', { ...args, status: p.status, action: ACTION_TEXT[action] })
  const live = p.status === 'open' || p.status === 'approved'
  if (!live) throw refuse()
  if (action === 'withdraw') {
    if (!sameUser(o.actor, p.created)) throw new AppError('api-insufficient-rights', { permission: 'plans-approve', ca: p.ca })
    return
  }
  if (action === 'reject') return
  if (action === 'approve' && p.status !== 'open') throw refuse()
  if (p.base !== o.current) throw new AppError('ca-plan-stale', args)
  if (action === 'approve') {
    if (o.fourEyes && sameUser(o.actor, p.created)) throw new AppError('ca-plan-own-approval', { ...args, user: p.created.by })
    return
  }
  if (o.fourEyes && p.status !== 'approved') throw new AppError('ca-plan-not-approved', args)
  if (p.impact.bgp.turned_invalid > 0 && !o.acceptInvalid) throw new AppError('ca-plan-invalidates', { ...args, count: String(p.impact.bgp.turned_invalid) })
}

const ACTION_TEXT: Record<PlanAction, string> = { approve: 'approved', apply: 'applied', reject: 'rejected', withdraw: 'withdrawn' }

/** The plan after a step (a copy). */
export function planAfter(p: PlanRecord, action: Exclude<PlanAction, 'apply'>, stamp: PlanStamp, reason?: string): PlanRecord
export function planAfter(p: PlanRecord, action: 'apply', stamp: PlanStamp & { version: number }): PlanRecord
export function planAfter(p: PlanRecord, action: PlanAction, stamp: PlanStamp & { version?: number }, reason?: string): PlanRecord {
  switch (action) {
    case 'approve': return { ...p, status: 'approved', approved: stamp }
    case 'apply': return { ...p, status: 'applied', applied: { ...stamp, version: stamp.version ?? 0 } }
    case 'reject': return { ...p, status: 'rejected', rejected: { ...stamp, reason: reason ?? '' } }
    case 'withdraw': return { ...p, status: 'withdrawn', withdrawn: stamp }
  }
}

/** RFC 6811 §2's three outcomes, from the BGP analysis's announcement states (app/ca/bgp-analysis.ts). */
export function routeValidity(state: string): RouteValidity {
  if (state === 'announcement_valid') return 'valid'
  if (state === 'announcement_not_found') return 'not_found'
  return 'invalid' // announcement_invalid_asn, announcement_invalid_length, announcement_disallowed (AS0)
}

/**
 * The announcements whose outcome changes between two analyses (entries whose state starts with `announcement_`),
 * the ones turning invalid first, then by prefix and ASN; with the counts of each new outcome. At most `max` listed.
 */
export function announcementChanges(before: readonly { asn: number; prefix: string; state: string }[], after: readonly { asn: number; prefix: string; state: string }[], max: number): Pick<PlanImpact['bgp'], 'turned_valid' | 'turned_invalid' | 'turned_not_found' | 'changes' | 'truncated'> {
  const key = (e: { asn: number; prefix: string }) => `${e.asn} ${e.prefix}`
  const was = new Map<string, string>()
  for (const e of before) if (e.state.startsWith('announcement_')) was.set(key(e), e.state)
  const changes: PlanAnnouncement[] = []
  const count = { valid: 0, invalid: 0, not_found: 0 }
  for (const e of after) {
    if (!e.state.startsWith('announcement_')) continue
    const b = was.get(key(e))
    if (b === undefined) continue // an announcement is in both analyses: the same dump, the same resources
    const from = routeValidity(b)
    const to = routeValidity(e.state)
    if (from === to) continue
    count[to]++
    changes.push({ asn: e.asn, prefix: e.prefix, before: from, after: to, detail: e.state })
  }
  const rank = (c: PlanAnnouncement) => (c.after === 'invalid' ? 0 : c.after === 'not_found' ? 1 : 2)
  changes.sort((a, b) => rank(a) - rank(b) || a.prefix.localeCompare(b.prefix) || a.asn - b.asn)
  return { turned_valid: count.valid, turned_invalid: count.invalid, turned_not_found: count.not_found, changes: changes.slice(0, max), truncated: changes.length > max }
}

/** The VRPs (ASN, prefix, max length) in `after` and not in `before`, and the reverse; at most `max` of each listed. */
export function vrpEffect(before: readonly PlanVrp[], after: readonly PlanVrp[], max: number): PlanImpact['vrps'] {
  const key = (v: PlanVrp) => `${v.asn} ${v.prefix} ${v.max_length}`
  const b = new Set(before.map(key))
  const a = new Set(after.map(key))
  const added = after.filter((v) => !b.has(key(v)))
  const removed = before.filter((v) => !a.has(key(v)))
  return { added: added.slice(0, max), removed: removed.slice(0, max), added_count: added.length, removed_count: removed.length, before: b.size, after: a.size }
}

/** Which ASPA customers the change adds, changes (other providers) or removes, against the configuration `current`. */
export function aspaEffect(current: Record<string, AspaConfig> | undefined, change: PlanChange['aspas']): PlanImpact['aspas'] {
  const now = current ?? {}
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && [...a].sort((x, y) => x - y).every((v, i) => v === [...b].sort((x, y) => x - y)[i])
  const added: number[] = []
  const changed: number[] = []
  for (const d of change.add_or_replace) {
    const c = now[d.customer]
    if (!c) added.push(d.customer)
    else if (!same(c.providers, d.providers)) changed.push(d.customer)
  }
  const removed = change.remove.filter((c) => now[c] !== undefined)
  const asc = (a: number, b: number) => a - b
  return { added: added.sort(asc), changed: changed.sort(asc), removed: removed.sort(asc) }
}

/**
 * The change that turns the configuration `current` into `target` (a rollback, an import that replaces): ROAs to
 * remove and add (comments kept from the target), ASPA definitions to replace and customers to remove.
 */
export function changeToReach(current: { routes: Record<string, RoaConfig>; aspas?: Record<string, AspaConfig> }, target: { routes: Record<string, RoaConfig>; aspas?: Record<string, AspaConfig> }): PlanChange {
  const key = (r: RoaConfig) => `${r.asn} ${r.prefix} ${r.maxLength}`
  const now = new Map(Object.values(current.routes).map((r) => [key(r), r]))
  const want = new Map(Object.values(target.routes).map((r) => [key(r), r]))
  const line = (r: RoaConfig): PlanRoa => ({ asn: r.asn, prefix: r.prefix, max_length: r.maxLength, ...(r.comment ? { comment: r.comment } : {}) })
  const added = [...want].filter(([k]) => !now.has(k)).map(([, r]) => line(r))
  const removed = [...now].filter(([k]) => !want.has(k)).map(([, r]) => ({ asn: r.asn, prefix: r.prefix, max_length: r.maxLength }))
  const nowAspas = current.aspas ?? {}
  const wantAspas = target.aspas ?? {}
  const sameProviders = (a: AspaConfig, b: AspaConfig) => a.providers.length === b.providers.length && a.providers.every((p) => b.providers.includes(p))
  const addOrReplace = Object.values(wantAspas).filter((c) => !nowAspas[c.customer] || !sameProviders(nowAspas[c.customer]!, c)).map((c) => ({ customer: c.customer, providers: [...c.providers] }))
  const remove = Object.values(nowAspas).filter((c) => !wantAspas[c.customer]).map((c) => c.customer)
  return { roas: { added, removed }, aspas: { add_or_replace: addOrReplace.sort((a, b) => a.customer - b.customer), remove: remove.sort((a, b) => a - b) } }
}
