/**
 * What each route needs (design.md §9): one table from every authenticated route (method and router path) to the
 * permission it needs, with Krill's names (api/access.ts), and which path parameter names the CA the request is about
 * (a role limited to a list of CAs holds nothing on another CA). `authorize()` checks it in front of routing, on the
 * same canonical path the routers and default deny see (http/path.ts). A route that is not in the table is refused to
 * everyone whose role does not hold every permission, so a route added without an entry is never open by accident;
 * test/unit/http/route-permissions.test.ts fails on any router path without an entry.
 */
import type { Context, Next } from 'koa'
import { PERMISSIONS, roleAllows, type Actor, type Permission } from '../api/access.js'
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
}

/** The table. Every route of every router is here, or it is refused to all but a role with every permission. */
export const ROUTE_PERMISSIONS: readonly RoutePermission[] = [
  { method: 'GET', path: '/api/v1/authorized', need: 'authenticated' },
  { method: 'GET', path: '/api/v1/whoami', need: 'authenticated' },
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
    return { entry: c.entry, ca: i < 0 ? undefined : safeDecode(hit[i + 1]!) }
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
        const missing = PERMISSIONS.find((p) => !actor.role.permissions.has(p))
        if (missing) throw new AppError('api-insufficient-rights', { permission: missing })
      } else if (!allowed(actor, hit.entry.need, hit.ca)) {
        throw new AppError('api-insufficient-rights', { permission: hit.entry.need, ...(hit.ca === undefined ? {} : { ca: hit.ca }) })
      }
    }
    await next()
  }
}
