/**
 * The relying-party view over HTTP (design.md §11, issue 26 §2; api/health.ts): GET /api/v1/health/cas (a page of the
 * CAs the caller may read), GET /api/v1/health/cas/{ca}, POST /api/v1/health/check (check now, answer the fresh page).
 * A check asked while one runs joins it; one asked within CHECK_GAP_MS of the last asked check runs no new one, so
 * the API cannot make svcd hammer remote repositories.
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { HEALTH_SORTS, caHealthJson, healthPage, type HealthCheckJson, type HealthQuery } from '../../api/health.js'
import type { LivenessView } from '../../app/liveness/ports.js'
import type { CaLiveness } from '../../liveness/model.js'
import { AppError } from '../../errors.js'
import type { Clock } from '../../util/clock.js'
import type { HttpDeps } from '../deps.js'
import { readNoBody } from '../body.js'
import { listQuery, queryText } from '../list-query.js'
import { ROUTER_OPTIONS } from '../path.js'
import { seenBy } from '../route-permissions.js'

/** How long after an asked check another ask runs no new check (it answers what that one found). */
export const CHECK_GAP_MS = 10_000

export type CheckOutcome = HealthCheckJson['check']

/**
 * Runs `check` at most once at a time and at most once per `gapMs` (from the start of the last one it ran): a caller
 * that arrives while one runs waits for it ('joined'); one that arrives soon after waits for nothing ('recent').
 */
export function coalescedCheck(check: () => Promise<void>, clock: Pick<Clock, 'now'>, gapMs = CHECK_GAP_MS): () => Promise<CheckOutcome> {
  let running: Promise<void> | undefined
  let lastStart = -Infinity
  return async () => {
    if (running) {
      await running
      return 'joined'
    }
    if (clock.now() - lastStart < gapMs) return 'recent'
    lastStart = clock.now()
    running = check().finally(() => (running = undefined))
    await running
    return 'ran'
  }
}

/** ?functional=true|false, ?ca=<handle> and the paging parameters. */
function healthQuery(ctx: Context): HealthQuery {
  const q: HealthQuery = listQuery(ctx, HEALTH_SORTS)
  const f = queryText(ctx, 'functional')
  if (f !== undefined) {
    if (f !== 'true' && f !== 'false') throw new AppError('api-invalid-query', { name: 'functional', reason: 'true or false' })
    q.functional = f === 'true'
  }
  const ca = queryText(ctx, 'ca')
  if (ca !== undefined) q.ca = ca
  return q
}

export function healthRouter(deps: HttpDeps): Router {
  const router = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1/health' })
  const svc = deps.services
  // Without the liveness service ([liveness] enabled = false) every CA is listed as never checked.
  const view: Pick<LivenessView, 'all' | 'get'> = svc.liveness ?? {
    all: () => svc.cas.caList(undefined).cas.map((c) => unchecked(c.handle)),
    get: (ca) => (svc.cas.caList(undefined).cas.some((c) => c.handle === ca) ? unchecked(ca) : undefined),
  }
  const check = coalescedCheck(() => svc.liveness?.checkNow() ?? Promise.resolve(), deps.clock)
  const page = (ctx: Context, q: HealthQuery) => {
    const sees = seenBy(ctx)
    return healthPage(view.all().filter((c) => sees(c.ca)), q, deps.clock.now())
  }
  router.get('/cas', (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    ctx.body = page(ctx, healthQuery(ctx))
  })
  router.get('/cas/:ca', (ctx) => {
    const c = view.get(ctx.params.ca!)
    if (!c) throw new AppError('ca-unknown', { ca: ctx.params.ca! })
    ctx.set('Cache-Control', 'no-store')
    ctx.body = caHealthJson(c, deps.clock.now())
  })
  router.post('/check', async (ctx) => {
    await readNoBody(ctx)
    const q = healthQuery(ctx)
    const outcome = await check()
    ctx.set('Cache-Control', 'no-store')
    ctx.body = { check: outcome, ...page(ctx, q) } satisfies HealthCheckJson
  })
  return router
}

function unchecked(ca: string): CaLiveness {
  return { ca, lastGoodFetch: {}, points: [], children: [], functional: false }
}
