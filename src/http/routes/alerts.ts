/**
 * The alarms (design.md §11, issue 26 §3; api/alerts.ts): GET /api/v1/alerts (`ca-list`; a role limited to some CAs
 * sees their alarms and the CA-less ones), with ?active=true for the active alarms only and ?offset/?limit for the
 * window of cleared alarms and deliveries; POST /api/v1/alerts/test (`ca-admin`) queues a signed test event to every
 * webhook or the one named, 404 alert-webhook-unknown for a name that is not configured.
 */
import { Router } from '@koa/router'
import { checkAlertTest, type AlertTestJson, type AlertTestResultJson } from '../../api/alerts.js'
import type { Actor } from '../../api/access.js'
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from '../../api/paging.js'
import { AppError } from '../../errors.js'
import { readOptionalJson } from '../body.js'
import type { HttpDeps } from '../deps.js'
import { queryCount, queryText } from '../list-query.js'
import { seenBy } from '../route-permissions.js'
import { ROUTER_OPTIONS } from '../path.js'

const MAX_OFFSET = 100_000

export function alertsRouter(deps: HttpDeps): Router {
  const router = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  const alerts = deps.services.alerts
  router.get('/alerts', (ctx) => {
    const active = queryText(ctx, 'active') ?? 'false'
    if (active !== 'true' && active !== 'false') throw new AppError('api-invalid-query', { name: 'active', reason: 'true or false' })
    const offset = queryCount(ctx, 'offset', 0, MAX_OFFSET)
    const limit = queryCount(ctx, 'limit', LIST_PAGE_DEFAULT, LIST_PAGE_MAX, 1)
    const scoped = (ctx.state.actor as Actor | undefined)?.role.cas !== undefined
    ctx.set('Cache-Control', 'no-store')
    ctx.body = alerts.list({ activeOnly: active === 'true', offset, limit }, seenBy(ctx), scoped)
  })
  router.post('/alerts/test', async (ctx) => {
    const body = await readOptionalJson<AlertTestJson>(ctx, deps.config.post_limit_api, checkAlertTest, {})
    const known = alerts.webhookNames()
    if (body.webhook !== undefined && !known.includes(body.webhook)) throw new AppError('alert-webhook-unknown', { webhook: body.webhook, known: known.join(', ') || '(none)' })
    const result: AlertTestResultJson = { queued: alerts.test(body.webhook) }
    ctx.set('Cache-Control', 'no-store')
    ctx.body = result
  })
  return router
}
