/**
 * Scoped API tokens (beyond Krill; design.md §9, api/tokens.ts): GET /api/v1/tokens lists the caller's tokens (every
 * token for an administrator), POST creates one and answers its secret this once, DELETE revokes one. Who may do
 * what is the token service's (app/access/token-service.ts); the route permission is `authenticated`.
 */
import { Router } from '@koa/router'
import type { Actor } from '../../api/access.js'
import { addTokenProblem, type AddTokenJson } from '../../api/tokens.js'
import type { HttpDeps } from '../deps.js'
import { readJson, readNoBody } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'

export function tokensRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  const tokens = deps.services.tokens
  const actor = (state: Record<string, unknown>) => state.actor as Actor
  r.get('/tokens', (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.body = { tokens: tokens.list(actor(ctx.state)) }
  })
  r.post('/tokens', async (ctx) => {
    const body = await readJson<AddTokenJson>(ctx, deps.config.post_limit_api, addTokenProblem)
    ctx.set('Cache-Control', 'no-store')
    ctx.body = tokens.create(actor(ctx.state), body)
  })
  r.delete('/tokens/:id', async (ctx) => {
    await readNoBody(ctx)
    tokens.revoke(actor(ctx.state), ctx.params.id!)
    ctx.status = 200
    ctx.body = ''
  })
  return r
}
