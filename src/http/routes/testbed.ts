/**
 * The testbed self-service (krill-reference.md §1.1 "Testbed"; krill:src/daemon/http/dispatch/testbed.rs), public by
 * design: a testbed lets anyone register a child of CA `testbed` or a publisher in the embedded repository, and
 * remove one again. GET /testbed/enabled answers 200 when `[testbed]` is on; with it off every route answers 404.
 * The writes go through the same service calls as the authenticated API (same checks, same errors); every route is
 * rate-limited per source (an IPv4 address or an IPv6 /64, `[testbed] self_service_per_minute`) and over all sources
 * together (`self_service_total_per_minute`; http/rate-limit.ts).
 */
import { Router } from '@koa/router'
import type { Context, Next } from 'koa'
import { checkAddChild, type AddChildJson } from '../../api/cas.js'
import { isPublisherRequestJson, type PublisherRequestJson } from '../../api/pubd.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { readJson, readNoBody } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'
import { rateLimit } from '../rate-limit.js'

export function testbedRouter(deps: HttpDeps): Router {
  const router = new Router({ ...ROUTER_OPTIONS, prefix: '/testbed' })
  const testbed = () => deps.services.testbed
  const limit = deps.config.post_limit_api
  const limited = rateLimit({ perMinute: deps.config.testbed?.self_service_per_minute ?? 20, totalPerMinute: deps.config.testbed?.self_service_total_per_minute ?? 200, clock: deps.clock, source: deps.addressSource })
  // Off: 404 before anything is read or counted, as Krill answers when testbed mode is not configured.
  const on = async (ctx: Context, next: Next) => {
    if (!testbed().testbedEnabled()) throw new AppError('api-unknown-resource', { path: ctx.path })
    await next()
  }
  router.get('/enabled', on, limited, (ctx) => {
    ctx.status = 200
    ctx.body = ''
  })
  router.post('/children', on, limited, async (ctx) => {
    ctx.body = await testbed().testbedChildAdd(await readJson<AddChildJson>(ctx, limit, checkAddChild), ctx.ip)
  })
  router.delete('/children/:child', on, limited, async (ctx) => {
    await readNoBody(ctx)
    await testbed().testbedChildRemove(ctx.params.child, ctx.ip)
    ctx.status = 200
    ctx.body = ''
  })
  router.post('/publishers', on, limited, async (ctx) => {
    ctx.body = testbed().testbedPublisherAdd(await readJson<PublisherRequestJson>(ctx, limit, isPublisherRequestJson), ctx.ip)
  })
  router.delete('/publishers/:publisher', on, limited, async (ctx) => {
    await readNoBody(ctx)
    testbed().testbedPublisherRemove(ctx.params.publisher, ctx.ip)
    ctx.status = 200
    ctx.body = ''
  })
  return router
}
