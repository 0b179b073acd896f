/** GET /api/v1/signers (issue 25): the configured signers, their tokens, keys held and problems (app/signers/signer-service.ts). */
import { Router } from '@koa/router'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function signersRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/api/v1/signers', (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.body = deps.services.signers.list()
  })
  return router
}
