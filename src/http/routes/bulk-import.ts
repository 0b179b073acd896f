/**
 * POST /api/v1/bulk/cas/import: Krill's CA structure import (krill:src/daemon/http/dispatch/bulk.rs `cas_import`;
 * api/structure.ts, app/ca/structure-import.ts). Needs `ca-admin` (ROUTE_PERMISSIONS) on every CA it creates: a role
 * limited to some CAs may import only CAs of its list (and the trust anchor `ta`). Answers 200 with an empty body.
 */
import { Router } from '@koa/router'
import type { HttpDeps } from '../deps.js'
import { readJson } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'
import { requirePermission } from '../route-permissions.js'

export function bulkImportRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  // A structure of many CAs with their ROAs is as large as a large ROA delta (config.ts post_limit_api_routes).
  const limit = deps.config.post_limit_api_routes
  r.post('/bulk/cas/import', async (ctx) => {
    const body = await readJson<unknown>(ctx, limit, () => undefined) // the service checks it, reporting every problem
    for (const ca of handlesIn(body)) requirePermission(ctx, 'ca-admin', ca) // and on 'ta': ROUTE_PERMISSIONS
    await deps.services.structureImport.bulkImport(body)
    ctx.status = 200
    ctx.body = ''
  })
  return r
}

/** The CA handles a structure names (those that are strings; the service reports the others). */
function handlesIn(body: unknown): string[] {
  const cas = typeof body === 'object' && body !== null ? (body as { cas?: unknown }).cas : undefined
  return Array.isArray(cas) ? cas.flatMap((c: unknown) => (typeof c === 'object' && c !== null && typeof (c as { handle?: unknown }).handle === 'string' ? [(c as { handle: string }).handle] : [])) : []
}
