/**
 * Server status routes: GET /health (public: the process and its store are alive), GET /ready (public: 200 when the
 * store answers and the repository output holds everything accepted, else 503 with the problems), GET /stats/info
 * (public: version and start time, as Krill serves it), GET /api/v1/authorized (200 when the bearer token is valid),
 * GET /api/v1/whoami (who the bearer is and what the role allows, api/access.ts: the console hides what the role
 * cannot do), GET /api/v1/cluster (the instances on the database, app/shared/cluster.ts), and GET
 * /api/v1/openapi.json (the OpenAPI description of all routes, api/openapi.ts).
 */
import { Router } from '@koa/router'
import { whoAmIJson, type Actor } from '../../api/access.js'
import { OPENAPI } from '../../api/openapi.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function statusRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/health', (ctx) => {
    if (!deps.services.status.health()) throw new AppError('sys-storage-unavailable')
    ctx.status = 200
    ctx.body = ''
  })
  router.get('/ready', (ctx) => {
    const ready = deps.services.status.ready()
    ctx.status = ready.ready ? 200 : 503
    ctx.body = ready
  })
  router.get('/stats/info', (ctx) => {
    ctx.body = deps.services.status.serverInfo()
  })
  router.get('/api/v1/authorized', (ctx) => {
    ctx.status = 200
    ctx.body = ''
  })
  router.get('/api/v1/whoami', (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.body = whoAmIJson(ctx.state.actor as Actor)
  })
  router.get('/api/v1/cluster', async (ctx) => {
    ctx.body = await deps.services.cluster.view()
  })
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = OPENAPI
  })
  return router
}
