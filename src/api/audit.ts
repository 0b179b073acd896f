/**
 * The audit trail on the wire (design.md §9; issue 24, beyond Krill): GET /api/v1/audit?actor=&ca=&kind=&since=&until=
 * &offset=&limit=&order= answers `{total, offset, limit, records}`, each record `{seq, time, actor, provider, token,
 * kind, ca, success, source, details}` (times ISO 8601; token, ca and source null when absent). Bad or unknown
 * parameters are a 400 api-invalid-query naming the parameter (an audit query with a misspelt filter must not quietly
 * answer everything).
 *
 * Who sees what (`auditScope`), decided for a security team: the route is open to every authenticated caller, and
 * each one sees only
 * - records about a CA on which its role holds `ca-read` (the CA's history names the same actors already);
 * - records without a CA: the publication server's (`publisher-add`, `publisher-remove`) with `pub-admin`; the rest
 *   (logins, failed logins, logouts, tokens: they name every user and where they came from) only with a role that
 *   holds every permission on every CA (Krill's `admin`);
 * - its own records, always (what I did, my logins and tokens), matched by actor id, provider and token name.
 * A filter on a CA the caller cannot see answers nothing, as a CA that does not exist does: no existence leaks.
 */
import { holdsEverything, roleAllows, type Actor } from './access.js'
import { AppError } from '../errors.js'

export const AUDIT_PAGE_DEFAULT = 100
export const AUDIT_PAGE_MAX = 1_000
/** The longest actor, CA or kind filter. */
const FILTER_MAX = 255
export const AUDIT_PARAMS = ['actor', 'ca', 'kind', 'since', 'until', 'offset', 'limit', 'order'] as const

/** The filters and window of GET /api/v1/audit (times in ms since the epoch; `until` exclusive). */
export interface AuditQueryInput {
  actor?: string
  ca?: string
  kind?: string
  since?: number
  until?: number
  offset: number
  limit: number
  order: 'asc' | 'desc'
}

/** Which records a caller may see (the store's AuditVisibility). */
export interface AuditScope {
  cas: readonly string[] | 'all'
  withoutCa: 'all' | 'publishers' | 'none'
  own?: { actor: string; provider: string; token: string | undefined }
}

/** One record as read back from the store (store/interfaces.ts AuditRecord). */
export interface AuditRecordIn {
  seq: number
  time: number
  actor: string
  provider: string
  token: string | undefined
  kind: string
  ca: string | undefined
  success: boolean
  source: string | undefined
  details: Record<string, unknown>
}

export interface AuditRecordJson {
  seq: number
  /** ISO 8601. */
  time: string
  /** The user id, `admin-token`, `anonymous` (testbed), `svc`… */
  actor: string
  provider: string
  /** An API token's name, or null. */
  token: string | null
  kind: string
  ca: string | null
  success: boolean
  /** The peer address of the request, or null. */
  source: string | null
  details: Record<string, unknown>
}

export interface AuditPageJson {
  total: number
  offset: number
  limit: number
  records: AuditRecordJson[]
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

/** The query of GET /api/v1/audit, checked; throws 400 api-invalid-query naming the first bad parameter. */
export function auditQuery(query: Record<string, string | string[] | undefined>): AuditQueryInput {
  for (const name of Object.keys(query)) {
    if (!(AUDIT_PARAMS as readonly string[]).includes(name)) throw invalid(name, `unknown parameter; one of ${AUDIT_PARAMS.join(', ')}`)
  }
  const text = (name: string): string | undefined => {
    const v = query[name]
    if (v === undefined) return undefined
    if (typeof v !== 'string') throw invalid(name, 'given more than once')
    return v
  }
  const filter = (name: string): string | undefined => {
    const v = text(name)
    if (v === undefined) return undefined
    if (v.length === 0 || v.length > FILTER_MAX) throw invalid(name, `1 to ${FILTER_MAX} characters`)
    return v
  }
  const count = (name: string, dflt: number, min: number, max: number): number => {
    const v = text(name)
    if (v === undefined) return dflt
    if (!/^[0-9]{1,16}$/.test(v) || Number(v) < min || Number(v) > max) throw invalid(name, `a whole number from ${min} to ${max}`)
    return Number(v)
  }
  const time = (name: string): number | undefined => {
    const v = text(name)
    if (v === undefined) return undefined
    const ms = ISO_TIME.test(v) ? Date.parse(v) : NaN
    if (!Number.isFinite(ms)) throw invalid(name, 'an ISO 8601 time, e.g. 2026-11-27T09:00:00Z or 2026-11-27')
    return ms
  }
  const order = text('order') ?? 'asc'
  if (order !== 'asc' && order !== 'desc') throw invalid('order', 'asc or desc')
  const q: AuditQueryInput = { offset: count('offset', 0, 0, Number.MAX_SAFE_INTEGER), limit: count('limit', AUDIT_PAGE_DEFAULT, 1, AUDIT_PAGE_MAX), order }
  const actor = filter('actor')
  const ca = filter('ca')
  const kind = filter('kind')
  const since = time('since')
  const until = time('until')
  if (since !== undefined && until !== undefined && until < since) throw invalid('until', 'not before since')
  return { ...q, ...(actor === undefined ? {} : { actor }), ...(ca === undefined ? {} : { ca }), ...(kind === undefined ? {} : { kind }), ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) }
}

/** What `actor` may see of the audit trail (the rules at the top of this file). */
export function auditScope(actor: Actor): AuditScope {
  const role = actor.role
  const everything = holdsEverything(role)
  const cas = role.cas === undefined ? (roleAllows(role, 'ca-read') ? 'all' : []) : role.cas.filter((ca) => roleAllows(role, 'ca-read', ca))
  const withoutCa = everything ? 'all' : role.permissions.has('pub-admin') ? 'publishers' : 'none'
  return { cas, withoutCa, own: { actor: actor.id, provider: actor.provider, token: actor.token } }
}

export function auditRecordJson(r: AuditRecordIn): AuditRecordJson {
  return {
    seq: r.seq,
    time: new Date(r.time).toISOString(),
    actor: r.actor,
    provider: r.provider,
    token: r.token ?? null,
    kind: r.kind,
    ca: r.ca ?? null,
    success: r.success,
    source: r.source ?? null,
    details: r.details,
  }
}

export function auditPageJson(q: AuditQueryInput, page: { total: number; records: readonly AuditRecordIn[] }): AuditPageJson {
  return { total: page.total, offset: q.offset, limit: q.limit, records: page.records.map(auditRecordJson) }
}

/** An actor as svcc prints it: `id (provider)`, or `id (api-token/<token name>)` for an API token. */
export function actorLabel(actor: string, provider: string, token: string | null | undefined): string {
  return `${actor} (${provider}${token ? `/${token}` : ''})`
}

function invalid(name: string, reason: string): AppError {
  return new AppError('api-invalid-query', { name, reason })
}
