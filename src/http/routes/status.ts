/**
 * Server status routes: GET /health (no auth: the process and its store are alive), GET /ready (no auth: 200 when
 * the store answers and the repository output holds everything accepted, else 503 with the problems), GET /stats/info (version and start time, as Krill serves it),
 * GET /api/v1/authorized (200 when the bearer token is valid; app.ts checks it for all of /api/), and
 * GET /api/v1/openapi.json (the OpenAPI description of all routes, api/openapi.ts).
 */
import { Router } from '@koa/router'
import { OPENAPI } from '../../api/openapi.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../app.js'

export function statusRouter(deps: HttpDeps): Router {
  const router = new Router()
  router.get('/health', (ctx) => {
    if (!deps.manager.health()) throw new AppError('sys-store', { reason: 'database not available' })
    ctx.status = 200
    ctx.body = ''
  })
  router.get('/ready', (ctx) => {
    const ready = deps.manager.ready()
    ctx.status = ready.ready ? 200 : 503
    ctx.body = ready
  })
  router.get('/stats/info', (ctx) => {
    ctx.body = deps.manager.serverInfo()
  })
  router.get('/api/v1/authorized', (ctx) => {
    ctx.status = 200
    ctx.body = ''
  })
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = OPENAPI
  })
  return router
}
