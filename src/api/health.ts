/**
 * Wire types of the relying-party view (design.md §11, issue 26 §2): GET /api/v1/health/cas and …/cas/{ca}, POST
 * /api/v1/health/check. Each CA's liveness (liveness/model.ts CaLiveness) as snake_case JSON with ISO times and the
 * hours left before each expiry, and the page of the list (offset, limit, q, sort, order; ?functional=, ?ca=). Pure:
 * `now` is passed in. Used by http/routes/health.ts, svcc health and the console's Health page.
 */
import type { CaLiveness, ChildLiveness, Finding, FindingKind, PointLiveness, PointSeen, Transport } from '../liveness/model.js'
import type { ListQuery, PageInfo } from './paging.js'

/** What one transport served of a publication point at the last check. */
export interface HealthSeenJson {
  at: string
  reachable: boolean
  /** The manifest and its CRL present, current and valid. */
  valid: boolean
  manifest_number: string | null
  manifest_this_update: string | null
  manifest_next_update: string | null
  crl_next_update: string | null
  manifest_hash: string | null
}

/** One problem found (liveness/model.ts Finding). */
export interface HealthFindingJson {
  kind: FindingKind
  transport: Transport | null
  uri: string | null
  rule: string | null
  detail: string
}

/** The expiries and their countdowns in hours (negative once past; null when unknown). */
export interface HealthExpiryJson {
  manifest_expires: string | null
  crl_expires: string | null
  cert_expires: string | null
  hours_to_manifest_expiry: number | null
  hours_to_crl_expiry: number | null
  hours_to_cert_expiry: number | null
}

/** One publication point: a key of the CA, or a delegated child's point elsewhere. */
export interface HealthPointJson extends HealthExpiryJson {
  dir: string
  key_id: string | null
  functional: boolean
  rsync_lag_seconds: number | null
  seen: { rrdp: HealthSeenJson | null; rsync: HealthSeenJson | null }
  findings: HealthFindingJson[]
}

/** A delegated child that publishes outside this svcd, and when a registry policy would revoke it. */
export interface HealthChildJson {
  child: string
  functional: boolean
  non_functional_since: string | null
  revoke_at: string | null
  hours_to_revoke: number | null
  point: HealthPointJson
}

/** A CA's liveness; `functional` is null until its first check. The expiries are the earliest of its points. */
export interface HealthCaJson extends HealthExpiryJson {
  ca: string
  functional: boolean | null
  checked_at: string | null
  last_good_fetch: { rrdp: string | null; rsync: string | null }
  /** The longest rsync lag among its points (seconds), null when not measured. */
  rsync_lag_seconds: number | null
  /** Findings over all its points (the children's are under `children`). */
  findings_count: number
  points: HealthPointJson[]
  children: HealthChildJson[]
}

/** The CAs the caller may read, in figures (before ?functional=, ?ca= and q). */
export interface HealthSummaryJson {
  cas: number
  checked: number
  functional: number
  non_functional: number
  /** Delegated children elsewhere that are not functional. */
  children_non_functional: number
}

/** A page of GET /api/v1/health/cas (and the answer of POST /api/v1/health/check). */
export interface HealthPageJson extends PageInfo {
  summary: HealthSummaryJson
  cas: HealthCaJson[]
}

/** POST /api/v1/health/check: whether this call ran a check, joined one running, or found one asked moments ago ('recent'); then the page. */
export interface HealthCheckJson extends HealthPageJson {
  check: 'ran' | 'joined' | 'recent'
}

/** Sort keys: ca (default), functional (non-functional first), manifest_expiry (soonest first; unknown last). */
export const HEALTH_SORTS = ['ca', 'functional', 'manifest_expiry'] as const
export type HealthSort = (typeof HEALTH_SORTS)[number]

/** The paging parameters and the filters: only functional (true) or non-functional (false) CAs, one CA by handle. */
export interface HealthQuery extends ListQuery<HealthSort> {
  functional?: boolean
  ca?: string
}

//------------ JSON of the liveness shapes ------------------------------------------------------------------------------

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString())

/** Hours from `now` to `ms`, to a tenth (negative once past), or null. */
export function hoursUntil(ms: number | undefined, now: number): number | null {
  return ms === undefined ? null : Math.round((ms - now) / 360_000) / 10
}

function seenJson(s: PointSeen | undefined): HealthSeenJson | null {
  if (!s) return null
  return {
    at: iso(s.at)!, reachable: s.reachable, valid: s.valid, manifest_number: s.manifestNumber ?? null, manifest_this_update: iso(s.manifestThisUpdate),
    manifest_next_update: iso(s.manifestNextUpdate), crl_next_update: iso(s.crlNextUpdate), manifest_hash: s.manifestHash ?? null,
  }
}

export function findingJson(f: Finding): HealthFindingJson {
  return { kind: f.kind, transport: f.transport ?? null, uri: f.uri ?? null, rule: f.rule ?? null, detail: f.detail }
}

function expiryJson(e: { manifestExpires?: number | undefined; crlExpires?: number | undefined; certExpires?: number | undefined }, now: number): HealthExpiryJson {
  return {
    manifest_expires: iso(e.manifestExpires), crl_expires: iso(e.crlExpires), cert_expires: iso(e.certExpires),
    hours_to_manifest_expiry: hoursUntil(e.manifestExpires, now), hours_to_crl_expiry: hoursUntil(e.crlExpires, now), hours_to_cert_expiry: hoursUntil(e.certExpires, now),
  }
}

const seconds = (ms: number | undefined): number | null => (ms === undefined ? null : Math.round(ms / 100) / 10)

export function pointJson(p: PointLiveness, now: number): HealthPointJson {
  return {
    dir: p.dir, key_id: p.keyId ?? null, functional: p.functional, ...expiryJson(p, now), rsync_lag_seconds: seconds(p.rsyncLagMs),
    seen: { rrdp: seenJson(p.seen.rrdp), rsync: seenJson(p.seen.rsync) }, findings: p.findings.map(findingJson),
  }
}

export function childJson(c: ChildLiveness, now: number): HealthChildJson {
  return {
    child: c.child, functional: c.point.functional, non_functional_since: iso(c.nonFunctionalSince), revoke_at: iso(c.revokeAt),
    hours_to_revoke: hoursUntil(c.revokeAt, now), point: pointJson(c.point, now),
  }
}

/** The earliest of the defined values. */
function earliest(values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined)
  return known.length ? Math.min(...known) : undefined
}

/** The CA's expiries: the earliest among its points. */
export function caExpiries(c: CaLiveness): { manifestExpires?: number; crlExpires?: number; certExpires?: number } {
  const out: { manifestExpires?: number; crlExpires?: number; certExpires?: number } = {}
  const m = earliest(c.points.map((p) => p.manifestExpires))
  const r = earliest(c.points.map((p) => p.crlExpires))
  const x = earliest(c.points.map((p) => p.certExpires))
  if (m !== undefined) out.manifestExpires = m
  if (r !== undefined) out.crlExpires = r
  if (x !== undefined) out.certExpires = x
  return out
}

/** Whether the CA was checked and found non-functional (an unchecked CA is neither functional nor not). */
export function caFunctional(c: CaLiveness): boolean | null {
  return c.checkedAt === undefined ? null : c.functional
}

export function caHealthJson(c: CaLiveness, now: number): HealthCaJson {
  const lags = c.points.map((p) => p.rsyncLagMs).filter((v): v is number => v !== undefined)
  return {
    ca: c.ca, functional: caFunctional(c), checked_at: iso(c.checkedAt), last_good_fetch: { rrdp: iso(c.lastGoodFetch.rrdp), rsync: iso(c.lastGoodFetch.rsync) },
    ...expiryJson(caExpiries(c), now), rsync_lag_seconds: lags.length ? seconds(Math.max(...lags)) : null,
    findings_count: c.points.reduce((n, p) => n + p.findings.length, 0), points: c.points.map((p) => pointJson(p, now)), children: c.children.map((ch) => childJson(ch, now)),
  }
}

//------------ The page -------------------------------------------------------------------------------------------------

export function healthSummary(cas: readonly CaLiveness[]): HealthSummaryJson {
  let checked = 0
  let functional = 0
  let children = 0
  for (const c of cas) {
    if (c.checkedAt !== undefined) checked++
    if (caFunctional(c) === true) functional++
    for (const ch of c.children) if (!ch.point.functional) children++
  }
  return { cas: cas.length, checked, functional, non_functional: checked - functional, children_non_functional: children }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
/** Non-functional first, then unchecked, then functional. */
const rank = (c: CaLiveness): number => ({ false: 0, null: 1, true: 2 })[String(caFunctional(c)) as 'false' | 'null' | 'true']
const COMPARE: Record<HealthSort, (a: CaLiveness, b: CaLiveness) => number> = {
  ca: (a, b) => compareText(a.ca, b.ca),
  functional: (a, b) => rank(a) - rank(b) || compareText(a.ca, b.ca),
  manifest_expiry: (a, b) => (caExpiries(a).manifestExpires ?? Infinity) - (caExpiries(b).manifestExpires ?? Infinity) || compareText(a.ca, b.ca),
}

/**
 * One page of the CAs `cas` (already narrowed to those the caller may read): filtered by `q` (in the handle),
 * `functional` and `ca`, sorted, and only the page's rows turned into JSON (1,000 CAs cost one sort).
 */
export function healthPage(cas: readonly CaLiveness[], q: HealthQuery, now: number): HealthPageJson {
  const needle = q.q.toLowerCase()
  const matches = cas.filter((c) =>
    (!needle || c.ca.toLowerCase().includes(needle)) && (q.ca === undefined || c.ca === q.ca) && (q.functional === undefined || caFunctional(c) === q.functional))
  const by = COMPARE[q.sort]
  const sign = q.order === 'desc' ? -1 : 1
  matches.sort((a, b) => sign * by(a, b))
  return { total: matches.length, offset: q.offset, limit: q.limit, summary: healthSummary(cas), cas: matches.slice(q.offset, q.offset + q.limit).map((c) => caHealthJson(c, now)) }
}
