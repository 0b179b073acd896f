/**
 * POST /api/v1/cas/{ca}/rsc (RFC 9323): the CA signs a checklist of file digests and answers the RSC (base64 DER in
 * JSON). Registered by routes/cas.ts; check, call, respond.
 */
import type { Router } from '@koa/router'
import { checkRscSign, type RscSignJson } from '../../api/rsc.js'
import type { HttpDeps } from '../deps.js'
import { readJson } from '../body.js'

export function rscRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  r.post('/cas/:ca/rsc', async (ctx) => {
    ctx.body = await svc.rsc.caRscSign(ctx.params.ca, await readJson<RscSignJson>(ctx, limit, checkRscSign))
  })
}
