/**
 * GET /api/v1/audit (design.md §9; issue 24, beyond Krill): the audit trail across CAs and the publication server,
 * filtered by actor, CA, kind and time and paged on the server; each caller sees only what its role may (api/audit.ts
 * auditScope: the rules, and why).
 */
import { Router } from '@koa/router'
import type { Actor } from '../../api/access.js'
import { auditPageJson, auditQuery, auditScope } from '../../api/audit.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function auditRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/api/v1/audit', (ctx) => {
    const actor = ctx.state.actor as Actor | undefined
    if (!actor) throw new AppError('api-invalid-credentials', { reason: 'no caller' }) // default deny has set it
    const q = auditQuery(ctx.query)
    ctx.set('Cache-Control', 'no-store')
    ctx.body = auditPageJson(q, deps.services.audit.list({ ...q, visible: auditScope(actor) }))
  })
  return router
}
