/** GET /ta/ta.tal and /ta/ta.cer: the embedded trust anchor's TAL (RFC 8630) and certificate, when testbed is on. */
import { Router } from '@koa/router'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function taRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/ta/ta.tal', (ctx) => {
    const tal = deps.services.testbed.taTal()
    if (!tal) throw new AppError('api-unknown-resource', { path: ctx.path })
    ctx.type = 'text/plain'
    ctx.body = tal
  })
  router.get('/ta/ta.cer', (ctx) => {
    const cer = deps.services.testbed.taCert()
    if (!cer) throw new AppError('api-unknown-resource', { path: ctx.path })
    ctx.type = 'application/pkix-cert'
    ctx.body = Buffer.from(cer)
  })
  return router
}
