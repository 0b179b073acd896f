/**
 * What each route needs (design.md §9): one table from every authenticated route (method and router path) to the
 * permission it needs, with Krill's names (api/access.ts), and which path parameter names the CA the request is about
 * (a role limited to a list of CAs holds nothing on another CA). `authorize()` checks it in front of routing, on the
 * same canonical path the routers and default deny see (http/path.ts). A route that is not in the table is refused to
 * everyone whose role does not hold every permission on every CA, so a route added without an entry is never open by accident;
 * test/unit/http/route-permissions.test.ts fails on any router path without an entry.
 */
import type { Context, Next } from 'koa'
import { holdsEverything, PERMISSIONS, roleAllows, roleSeesCa, type Actor, type Permission } from '../api/access.js'
import { AppError } from '../errors.js'
import { withoutTrailingSlash } from './path.js'

/** Any authenticated caller may: the route answers about the caller only (who am I, log out, own tokens). */
export type Need = Permission | 'authenticated'

export interface RoutePermission {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** The router's path, with `:name` parameters. */
  readonly path: string
  readonly need: Need
  /** The parameter that names the CA the request is about (`ca` for /api/v1/cas/:ca/…). */
  readonly ca?: string
  /** The CA the route is always about (the embedded trust anchor `ta` for its key roll), when no parameter names it. */
  readonly fixedCa?: string
}

const CA = '/api/v1/cas/:ca'

/**
 * The table. Every route of every router is here, or it is refused to all but a role with every permission. The
 * permissions are Krill's (krill:src/daemon/http/dispatch/{cas,bulk,pubd,ta}.rs), one line per route so that new
 * routes are added by one line each. Decisions beyond Krill:
 * - GET /api/v1/cas and GET /api/v1/bulk/cas/issues need `ca-list` and list only the CAs the role sees (roleSeesCa,
 *   in the route and CaService); the bulk actions need `ca-update` and touch only the CAs on which the role holds it.
 * - POST /api/v1/cas needs `ca-create`; for a role limited to a list of CAs, only for a handle on its list: the
 *   handle is in the body, so the route checks it (routes/cas.ts), not this table.
 * - The embedded TA's key roll is about CA `ta`: reading it needs `ca-read` on `ta`, rolling it `ca-admin` on `ta`.
 * - Server information that names no CA and changes nothing (the cluster's instances, the OpenAPI description, the
 *   metrics when they are not public) needs only a valid login: 'authenticated'. GET /stats/info is public (Krill).
 * - Under /api/v1/pubd each route needs its own permission (pub-list, pub-read, pub-create, pub-delete; pub-admin for
 *   release and session reset), where Krill asks pub-admin in front of all of them.
 */
export const ROUTE_PERMISSIONS: readonly RoutePermission[] = [
  // status
  { method: 'GET', path: '/api/v1/authorized', need: 'authenticated' },
  { method: 'GET', path: '/api/v1/cluster', need: 'authenticated' },
  { method: 'GET', path: '/api/v1/openapi.json', need: 'authenticated' },
  { method: 'GET', path: '/metrics', need: 'authenticated' },
  // CAs
  { method: 'GET', path: '/api/v1/cas', need: 'ca-list' },
  { method: 'POST', path: '/api/v1/cas', need: 'ca-create' },
  { method: 'GET', path: CA, need: 'ca-read', ca: 'ca' },
  { method: 'DELETE', path: CA, need: 'ca-delete', ca: 'ca' },
  { method: 'GET', path: `${CA}/child_request.json`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/id/child_request.json`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/id/child_request.xml`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/id/publisher_request.json`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/id/publisher_request.xml`, need: 'ca-read', ca: 'ca' },
  // parents
  { method: 'GET', path: `${CA}/parents`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/parents`, need: 'ca-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/parents/:parent`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/parents/:parent`, need: 'ca-update', ca: 'ca' },
  { method: 'DELETE', path: `${CA}/parents/:parent`, need: 'ca-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/sync/parents`, need: 'ca-update', ca: 'ca' },
  // children
  { method: 'GET', path: `${CA}/children`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/children`, need: 'ca-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/children/:child`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/children/:child`, need: 'ca-update', ca: 'ca' },
  { method: 'DELETE', path: `${CA}/children/:child`, need: 'ca-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/children/:child/contact`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/children/:child/parent_response.json`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/children/:child/parent_response.xml`, need: 'ca-read', ca: 'ca' },
  // ROAs
  { method: 'GET', path: `${CA}/routes`, need: 'routes-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/routes`, need: 'routes-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/routes/page`, need: 'routes-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/routes/analysis/full`, need: 'routes-analysis', ca: 'ca' },
  { method: 'GET', path: `${CA}/routes/analysis/suggest`, need: 'routes-analysis', ca: 'ca' },
  { method: 'POST', path: `${CA}/routes/analysis/suggest`, need: 'routes-analysis', ca: 'ca' },
  { method: 'POST', path: `${CA}/routes/analysis/dryrun`, need: 'routes-analysis', ca: 'ca' },
  // Change plans (design.md §12): made by those who may change ROAs (a plan with ASPAs also needs aspas-update,
  // checked by the route), approved or rejected by plans-approve; four-eyes is set by ca-admin.
  { method: 'GET', path: `${CA}/plans`, need: 'routes-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans`, need: 'routes-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/plans/:id`, need: 'routes-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/:id/approve`, need: 'plans-approve', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/:id/apply`, need: 'routes-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/:id/reject`, need: 'plans-approve', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/:id/withdraw`, need: 'routes-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/change-control`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/change-control`, need: 'ca-admin', ca: 'ca' },
  // ASPAs, BGPsec, RSC
  { method: 'GET', path: `${CA}/aspas`, need: 'aspas-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/aspas`, need: 'aspas-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/aspas/as/:customer`, need: 'aspas-update', ca: 'ca' },
  { method: 'DELETE', path: `${CA}/aspas/as/:customer`, need: 'aspas-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/bgpsec`, need: 'bgpsec-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/bgpsec`, need: 'bgpsec-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/rsc`, need: 'rta-update', ca: 'ca' },
  // repository, issues, history, keys
  { method: 'GET', path: `${CA}/repo`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/repo`, need: 'ca-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/repo/status`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/sync/repo`, need: 'ca-update', ca: 'ca' },
  { method: 'GET', path: `${CA}/issues`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/commands`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/commands/:rows`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/commands/:rows/:offset`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/commands/:rows/:offset/:after`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/commands/:rows/:offset/:after/:before`, need: 'ca-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/history/details/:key`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/keys/roll_init`, need: 'ca-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/keys/roll_activate`, need: 'ca-update', ca: 'ca' },
  // bulk: filtered per CA where they are served
  { method: 'GET', path: '/api/v1/bulk/cas/issues', need: 'ca-list' },
  { method: 'POST', path: '/api/v1/bulk/cas/publish', need: 'ca-update' },
  { method: 'POST', path: '/api/v1/bulk/cas/sync/parent', need: 'ca-update' },
  { method: 'POST', path: '/api/v1/bulk/cas/sync/repo', need: 'ca-update' },
  // the embedded TA's key roll (CA `ta`)
  { method: 'GET', path: '/api/v1/ta/keyroll', need: 'ca-read', fixedCa: 'ta' },
  { method: 'POST', path: '/api/v1/ta/keyroll/init', need: 'ca-admin', fixedCa: 'ta' },
  { method: 'POST', path: '/api/v1/ta/keyroll/activate', need: 'ca-admin', fixedCa: 'ta' },
  // the publication server
  { method: 'GET', path: '/api/v1/pubd/publishers', need: 'pub-list' },
  { method: 'POST', path: '/api/v1/pubd/publishers', need: 'pub-create' },
  { method: 'GET', path: '/api/v1/pubd/publishers/:publisher', need: 'pub-read' },
  { method: 'DELETE', path: '/api/v1/pubd/publishers/:publisher', need: 'pub-delete' },
  { method: 'GET', path: '/api/v1/pubd/publishers/:publisher/response.json', need: 'pub-read' },
  { method: 'GET', path: '/api/v1/pubd/publishers/:publisher/response.xml', need: 'pub-read' },
  { method: 'GET', path: '/api/v1/pubd/stale/:seconds', need: 'pub-list' },
  { method: 'GET', path: '/api/v1/pubd/stats', need: 'pub-list' },
  { method: 'POST', path: '/api/v1/pubd/release', need: 'pub-admin' },
  { method: 'POST', path: '/api/v1/pubd/session_reset', need: 'pub-admin' },
  // Every caller sees only what its role may of the audit trail (api/audit.ts auditScope), its own records at least.
  { method: 'GET', path: '/api/v1/audit', need: 'authenticated' },
  // Scoped API tokens: the token service decides (own tokens; every token for an administrator; none for a token).
  { method: 'GET', path: '/api/v1/tokens', need: 'authenticated' },
  { method: 'POST', path: '/api/v1/tokens', need: 'authenticated' },
  { method: 'DELETE', path: '/api/v1/tokens/:id', need: 'authenticated' },
  { method: 'GET', path: '/api/v1/whoami', need: 'authenticated' },
  { method: 'POST', path: `${CA}/plans/suggested`, need: 'routes-update', ca: 'ca' },
  // ROA/ASPA export and import, rollback (design.md §12): an import or rollback that changes ASPAs also needs aspas-update (checked by the route).
  { method: 'GET', path: `${CA}/routes/export`, need: 'routes-read', ca: 'ca' },
  { method: 'GET', path: `${CA}/aspas/export`, need: 'aspas-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/import`, need: 'routes-update', ca: 'ca' },
  { method: 'POST', path: `${CA}/plans/rollback`, need: 'routes-update', ca: 'ca' },
  // Moving a delegated child (Krill's dispatch: export needs ca-read, import ca-admin).
  { method: 'GET', path: `${CA}/children/:child/export`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/children/:child/import`, need: 'ca-admin', ca: 'ca' },
  { method: 'POST', path: '/api/v1/bulk/cas/import', need: 'ca-admin', fixedCa: 'ta' }, // on the TA it creates, and on each CA (routes/bulk-import.ts)
  { method: 'GET', path: `${CA}/id`, need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: `${CA}/id/roll`, need: 'ca-admin', ca: 'ca' },
  { method: 'POST', path: `${CA}/id/roll/finish`, need: 'ca-admin', ca: 'ca' },
  { method: 'POST', path: '/api/v1/pubd/publishers/:publisher/id_cert', need: 'pub-create' },
  { method: 'GET', path: `${CA}/keys`, need: 'ca-read', ca: 'ca' }, // a CA's keys and their signers (issue 25)
  { method: 'GET', path: '/api/v1/signers', need: 'ca-admin' }, // the signers of every CA: CA internals (issue 25)
  { method: 'GET', path: '/api/v1/alerts', need: 'ca-list' }, // alarms (issue 26): a role limited to some CAs sees theirs and the CA-less ones (routes/alerts.ts)
  { method: 'POST', path: '/api/v1/alerts/test', need: 'ca-admin' }, // a signed test event to the webhooks (issue 26)
  { method: 'GET', path: '/api/v1/health/cas', need: 'ca-list' }, // liveness (issue 26): only the CAs the role sees, as GET /api/v1/cas
  { method: 'GET', path: '/api/v1/health/cas/:ca', need: 'ca-read', ca: 'ca' },
  { method: 'POST', path: '/api/v1/health/check', need: 'ca-admin' }, // makes svcd fetch its repositories now (coalesced, routes/health.ts)
  { method: 'GET', path: '/api/v1/quarantine', need: 'ca-admin' }, // what was set aside, of any CA (issue 26)
  { method: 'DELETE', path: '/api/v1/quarantine/:id', need: 'ca-admin' },
]

interface Compiled {
  entry: RoutePermission
  regex: RegExp
  params: string[]
}

/** A router path as a regular expression over the raw (percent-encoded) path without its trailing slash. */
export function compile(entry: RoutePermission): Compiled {
  const params: string[] = []
  const source = entry.path
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        params.push(seg.slice(1))
        return '([^/]+)'
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return { entry, regex: new RegExp(`^${source}$`), params }
}

/** The entry for a request and the CA it is about, or undefined when no entry matches. */
export function routePermission(table: readonly Compiled[], method: string, path: string): { entry: RoutePermission; ca: string | undefined } | undefined {
  const p = withoutTrailingSlash(path)
  const m = method === 'HEAD' ? 'GET' : method
  for (const c of table) {
    if (c.entry.method !== m) continue
    const hit = c.regex.exec(p)
    if (!hit) continue
    const i = c.entry.ca === undefined ? -1 : c.params.indexOf(c.entry.ca)
    return { entry: c.entry, ca: i < 0 ? c.entry.fixedCa : safeDecode(hit[i + 1]!) }
  }
  return undefined
}

/** The router decodes parameters with decodeURIComponent; the check must see the same handle. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** The actor of a request (set by default deny; absent only on a public route). */
function actorOf(ctx: Context): Actor {
  const actor = ctx.state.actor as Actor | undefined
  if (!actor) throw new AppError('api-invalid-credentials', { reason: 'no credentials' })
  return actor
}

/** The CAs the caller may see (lists of CAs, bulk issues): the filter routes pass to the services. */
export function seenBy(ctx: Context): (ca: string) => boolean {
  const role = actorOf(ctx).role
  return (ca) => roleSeesCa(role, ca)
}

/** The CAs on which the caller holds `permission` (the CAs a bulk action touches). */
export function grantedOn(ctx: Context, permission: Permission): (ca: string) => boolean {
  const role = actorOf(ctx).role
  return (ca) => roleAllows(role, permission, ca)
}

/** Whether the caller holds `permission` (on `ca`, when given). */
export function callerMay(ctx: Context, permission: Permission, ca?: string): boolean {
  return roleAllows(actorOf(ctx).role, permission, ca)
}

/** Refuse with 403, naming the permission (and the CA), unless the caller holds it: checks that depend on a body. */
export function requirePermission(ctx: Context, permission: Permission, ca?: string): void {
  if (!callerMay(ctx, permission, ca)) throw new AppError('api-insufficient-rights', { permission, ...(ca === undefined ? {} : { ca }) })
}

/** Whether `actor` may make the request `entry` matched. */
export function allowed(actor: Actor, need: Need, ca: string | undefined): boolean {
  return need === 'authenticated' || roleAllows(actor.role, need, ca)
}

/**
 * Refuse with 403 `api-insufficient-rights` (naming the missing permission, and the CA) a request whose actor lacks
 * the permission of its route; runs after default deny, so `ctx.state.actor` is set unless the route is public.
 */
export function authorize(table: readonly RoutePermission[] = ROUTE_PERMISSIONS) {
  const compiled = table.map(compile)
  return async function checkPermission(ctx: Context, next: Next): Promise<void> {
    const actor = ctx.state.actor as Actor | undefined
    if (actor) {
      const hit = routePermission(compiled, ctx.method, ctx.path)
      if (!hit) {
        // No entry: only a role that may do everything everywhere (every permission, on every CA) gets past.
        if (!holdsEverything(actor.role)) throw new AppError('api-insufficient-rights', { permission: PERMISSIONS.find((p) => !actor.role.permissions.has(p)) ?? 'any' })
      } else if (!allowed(actor, hit.entry.need, hit.ca)) {
        throw new AppError('api-insufficient-rights', { permission: hit.entry.need, ...(hit.ca === undefined ? {} : { ca: hit.ca }) })
      }
    }
    await next()
  }
}
