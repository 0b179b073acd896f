/**
 * GET /metrics: Prometheus text format (version 0.0.4) from the metrics service (app/metrics/), behind the token
 * unless `metrics_public` puts it on the public list (http/auth.ts); and the middleware that counts every request
 * with its latency under the router's route pattern (never the raw path: the label values stay few).
 */
import { Router } from '@koa/router'
import type { Context, Next } from 'koa'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

/** The path of the metrics route, also on the public list when the config opens it. */
export const METRICS_PATH = '/metrics'

export function metricsRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get(METRICS_PATH, async (ctx) => {
    const scrape = await deps.services.metrics.scrape()
    ctx.type = scrape.contentType
    ctx.body = scrape.body
  })
  return router
}

/**
 * Count each request under the pattern of the route that answered it: a router's pattern, a label a middleware set
 * in `ctx.state.route` (RRDP files), or `unmatched` (unknown paths, and requests refused before routing).
 */
export function requestMetrics(deps: HttpDeps) {
  return async function countRequest(ctx: Context, next: Next): Promise<void> {
    const start = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9
      const matched = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute
      const route = typeof ctx.state.route === 'string' ? ctx.state.route : matched !== undefined ? String(matched) : 'unmatched'
      deps.services.metrics.observeRequest(ctx.method, route, ctx.status, seconds)
    }
  }
}
