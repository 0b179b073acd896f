/**
 * What was set aside because it cannot be decoded or run (issue 26 §5; app/shared/quarantine.ts): GET
 * /api/v1/quarantine lists it, DELETE /api/v1/quarantine/{id} drops an item (ca-admin).
 */
import { Router } from '@koa/router'
import { AppError } from '../../errors.js'
import { readNoBody } from '../body.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function quarantineRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/api/v1/quarantine', (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.body = { items: deps.services.quarantine.list() }
  })
  router.delete('/api/v1/quarantine/:id', async (ctx) => {
    await readNoBody(ctx)
    const id = ctx.params.id ?? ''
    if (!/^[0-9]{1,15}$/.test(id) || !deps.services.quarantine.drop(Number(id))) throw new AppError('api-unknown-resource', { path: ctx.path })
    ctx.status = 200
    ctx.body = ''
  })
  return router
}
