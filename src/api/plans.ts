/**
 * Wire types of change plans (design.md §12, issue 27): a ROA/ASPA change kept as a plan, shown with its diff, its
 * BGP impact and its effect on VRPs and ASPAs, approved by a second user when four-eyes is on, applied later and
 * refused when the CA's configuration changed after it was made. Paths: /api/v1/cas/{ca}/plans[/{id}[/approve|apply|reject]],
 * /api/v1/cas/{ca}/change-control.
 */
import { checkAspaDefinitionUpdates, type AspaDefinitionUpdatesJson } from './aspas.js'
import { checkRoaDelta, type RoaDeltaJson } from './cas.js'

/** A plan's life: open → approved → applied; open or approved → rejected (by a reviewer) or withdrawn (by its author). */
export const PLAN_STATUSES = ['open', 'approved', 'applied', 'rejected', 'withdrawn'] as const
export type PlanStatus = (typeof PLAN_STATUSES)[number]

/** Where a plan's change came from (shown; it changes nothing in how the plan is treated). */
export const PLAN_SOURCES = ['delta', 'csv', 'json', 'console', 'suggestion', 'rollback', 'import'] as const
export type PlanSource = (typeof PLAN_SOURCES)[number]

/** The change a plan makes: a ROA delta (Krill's shape) and an ASPA update (Krill's shape); either may be empty. */
export interface PlanChangeJson {
  roas: RoaDeltaJson
  aspas: AspaDefinitionUpdatesJson
}

/** POST /api/v1/cas/{ca}/plans. */
export interface PlanCreateJson {
  /** Why (shown in the list, the history and the audit). At most PLAN_COMMENT_MAX characters. */
  comment?: string
  source?: PlanSource
  roas?: Partial<RoaDeltaJson>
  aspas?: Partial<AspaDefinitionUpdatesJson>
  /** For `source: "rollback"`: the history version whose configuration the plan restores. */
  rollback_to?: number
}

/** Who did a step of a plan, and when (ISO 8601). `token` is the API token's name when one was used. */
export interface PlanStampJson {
  by: string
  provider: string
  token?: string
  at: string
}

/** An announcement whose RPKI state the plan changes (`valid`, `invalid`, `not_found`; RFC 6811 §2). */
export interface PlanAnnouncementJson {
  asn: number
  prefix: string
  before: RouteValidity
  after: RouteValidity
  /** The analysis's own state after the change (announcement_invalid_length, …). */
  detail: string
}

export type RouteValidity = 'valid' | 'invalid' | 'not_found'

/** A VRP (RFC 6811 §2's validated ROA payload) as the plan adds or removes it. */
export interface PlanVrpJson {
  asn: number
  prefix: string
  max_length: number
}

/** What the plan does, computed when it was made (`analysed_at`). Lists are cut at PLAN_IMPACT_LIST_MAX; counts are whole. */
export interface PlanImpactJson {
  analysed_at: string
  bgp: {
    /** False when svcd has no BGP announcements loaded (bgp_ris_* settings): then nothing is known of them. */
    available: boolean
    turned_valid: number
    turned_invalid: number
    turned_not_found: number
    /** The announcements whose state changes, the invalid ones first. */
    changes: PlanAnnouncementJson[]
    truncated: boolean
  }
  vrps: { added: PlanVrpJson[]; removed: PlanVrpJson[]; added_count: number; removed_count: number; before: number; after: number }
  aspas: { added: number[]; changed: number[]; removed: number[] }
}

export interface PlanJson {
  id: number
  ca: string
  status: PlanStatus
  /** True when the CA's ROA/ASPA configuration changed after the plan was made: it can no longer be applied. */
  stale: boolean
  comment: string
  source: PlanSource
  /** For a rollback: the history version restored. */
  rollback_to?: number
  change: PlanChangeJson
  impact: PlanImpactJson
  /** Whether applying needs a second user's approval (the CA's four-eyes setting, now). */
  needs_approval: boolean
  created: PlanStampJson
  approved?: PlanStampJson
  applied?: PlanStampJson & { version: number }
  rejected?: PlanStampJson & { reason: string }
  withdrawn?: PlanStampJson
}

/** GET /api/v1/cas/{ca}/plans: newest first; `?status=open` filters. */
export interface PlanListJson {
  total: number
  plans: PlanJson[]
}

/** POST …/plans/{id}/apply: `accept_invalid` must be true when the plan turns seen announcements invalid. */
export interface PlanApplyJson {
  accept_invalid?: boolean
}

/** POST …/plans/{id}/reject. */
export interface PlanRejectJson {
  reason?: string
}

/** GET/PUT /api/v1/cas/{ca}/change-control. `enforced` is true when the configuration forces four-eyes on every CA. */
export interface ChangeControlJson {
  four_eyes: boolean
  enforced?: boolean
}

/**
 * POST …/plans/suggested: a plan of the BGP analysis's suggestion. `asn`/`ipv4`/`ipv6` limit it to part of the
 * resources (as POST …/routes/analysis/suggest); `comment` as for any plan.
 */
export interface PlanSuggestedJson {
  comment?: string
  asn?: string
  ipv4?: string
  ipv6?: string
}

export const PLAN_COMMENT_MAX = 1000
export const PLAN_IMPACT_LIST_MAX = 1000
/** At most this many plans are kept open per CA (each holds a copy of its change). */
export const PLAN_OPEN_MAX = 100

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The body of POST …/plans, or what is wrong with it. */
export function checkPlanCreate(v: unknown): string | undefined {
  if (!obj(v)) return 'expected {"comment":…,"roas":{"added":[…],"removed":[…]},"aspas":{"add_or_replace":[…],"remove":[…]}}'
  if (v.comment !== undefined && (typeof v.comment !== 'string' || v.comment.length > PLAN_COMMENT_MAX)) return `"comment" must be a string of at most ${PLAN_COMMENT_MAX} characters`
  if (v.source !== undefined && !(PLAN_SOURCES as readonly unknown[]).includes(v.source)) return `"source" must be one of ${PLAN_SOURCES.join(', ')}`
  if (v.rollback_to !== undefined && (typeof v.rollback_to !== 'number' || !Number.isSafeInteger(v.rollback_to) || v.rollback_to < 1)) return '"rollback_to" must be a history version (1 or more)'
  if (v.roas !== undefined) {
    const e = checkRoaDelta(v.roas)
    if (e) return `roas: ${e}`
  }
  if (v.aspas !== undefined) {
    if (!obj(v.aspas)) return '"aspas" must be {"add_or_replace":[…],"remove":[…]}'
    const e = checkAspaDefinitionUpdates({ add_or_replace: v.aspas.add_or_replace ?? [], remove: v.aspas.remove ?? [] })
    if (e) return `aspas: ${e}`
  }
  return undefined
}

export function checkPlanApply(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (!obj(v) || (v.accept_invalid !== undefined && typeof v.accept_invalid !== 'boolean')) return 'expected {"accept_invalid": true|false}'
  return undefined
}

export function checkPlanReject(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (!obj(v) || (v.reason !== undefined && (typeof v.reason !== 'string' || v.reason.length > PLAN_COMMENT_MAX))) return `expected {"reason": "…"} (at most ${PLAN_COMMENT_MAX} characters)`
  return undefined
}

export function checkPlanSuggested(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (!obj(v)) return 'expected {"comment": "…", "asn": "…", "ipv4": "…", "ipv6": "…"} (every field optional)'
  if (v.comment !== undefined && (typeof v.comment !== 'string' || v.comment.length > PLAN_COMMENT_MAX)) return `"comment" must be a string of at most ${PLAN_COMMENT_MAX} characters`
  for (const k of ['asn', 'ipv4', 'ipv6']) if (v[k] !== undefined && typeof v[k] !== 'string') return `"${k}" must be a string of resources`
  const unknown = Object.keys(v).find((k) => !['comment', 'asn', 'ipv4', 'ipv6'].includes(k))
  return unknown === undefined ? undefined : `unknown field "${unknown}"`
}

export function checkChangeControl(v: unknown): string | undefined {
  if (!obj(v) || typeof v.four_eyes !== 'boolean') return 'expected {"four_eyes": true|false}'
  return undefined
}

/** The change with every list present. */
export function planChange(body: Pick<PlanCreateJson, 'roas' | 'aspas'>): PlanChangeJson {
  return {
    roas: { added: [...(body.roas?.added ?? [])], removed: [...(body.roas?.removed ?? [])] },
    aspas: { add_or_replace: [...(body.aspas?.add_or_replace ?? [])], remove: [...(body.aspas?.remove ?? [])] },
  }
}

export function emptyChange(c: PlanChangeJson): boolean {
  return c.roas.added.length + c.roas.removed.length + c.aspas.add_or_replace.length + c.aspas.remove.length === 0
}
