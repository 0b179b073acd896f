/**
 * Change plans (design.md §12, api/plans.ts; beyond Krill): /api/v1/cas/{ca}/plans lists and makes plans, each plan
 * is shown and stepped (approve, apply, reject, withdraw); /api/v1/cas/{ca}/change-control shows and sets four-eyes.
 * The plan service decides everything (app/ca/plan-service.ts); a route reads its input and makes one call.
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import {
  checkChangeControl, checkPlanApply, checkPlanCreate, checkPlanReject, checkPlanSuggested, PLAN_STATUSES, planChange, type ChangeControlJson, type PlanApplyJson, type PlanCreateJson, type PlanRejectJson, type PlanStatus, type PlanSuggestedJson,
} from '../../api/plans.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { readJson, readNoBody, readOptionalJson } from '../body.js'
import { queryCount, queryText } from '../list-query.js'
import { ROUTER_OPTIONS } from '../path.js'
import { requirePermission } from '../route-permissions.js'

export const PLANS_PAGE_DEFAULT = 50
export const PLANS_PAGE_MAX = 500

export function plansRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  const plans = deps.services.plans
  const limit = deps.config.post_limit_api
  // A plan may carry as large a ROA delta as POST …/routes (config.ts post_limit_api_routes).
  const deltaLimit = deps.config.post_limit_api_routes
  const id = (ctx: Context) => planId(ctx.params.id!)

  r.get('/cas/:ca/plans', (ctx) => {
    const status = queryText(ctx, 'status')
    if (status !== undefined && !(PLAN_STATUSES as readonly string[]).includes(status)) throw new AppError('api-invalid-query', { name: 'status', reason: `must be one of ${PLAN_STATUSES.join(', ')}` })
    const q = { offset: queryCount(ctx, 'offset', 0, Number.MAX_SAFE_INTEGER), limit: queryCount(ctx, 'limit', PLANS_PAGE_DEFAULT, PLANS_PAGE_MAX, 1), ...(status ? { status: status as PlanStatus } : {}) }
    ctx.body = plans.list(ctx.params.ca!, q)
  })
  r.post('/cas/:ca/plans', async (ctx) => {
    const body = await readJson<PlanCreateJson>(ctx, deltaLimit, checkPlanCreate)
    const change = planChange(body)
    // The route needs routes-update; a plan that changes ASPAs needs aspas-update too.
    if (change.aspas.add_or_replace.length + change.aspas.remove.length > 0) requirePermission(ctx, 'aspas-update', ctx.params.ca)
    ctx.body = await plans.create(ctx.params.ca!, { ...body, change })
  })
  r.post('/cas/:ca/plans/suggested', async (ctx) => {
    const body = await readOptionalJson<PlanSuggestedJson>(ctx, limit, checkPlanSuggested, {})
    ctx.body = await plans.createSuggested(ctx.params.ca!, body)
  })
  r.get('/cas/:ca/plans/:id', (ctx) => void (ctx.body = plans.show(ctx.params.ca!, id(ctx))))
  r.post('/cas/:ca/plans/:id/approve', async (ctx) => {
    const body = await readOptionalJson<PlanApplyJson & { apply?: boolean }>(ctx, limit, checkPlanApprove, {})
    ctx.body = await plans.approve(ctx.params.ca!, id(ctx), body)
  })
  r.post('/cas/:ca/plans/:id/apply', async (ctx) => {
    ctx.body = await plans.apply(ctx.params.ca!, id(ctx), await readOptionalJson<PlanApplyJson>(ctx, limit, checkPlanApply, {}))
  })
  r.post('/cas/:ca/plans/:id/reject', async (ctx) => {
    const body = await readOptionalJson<PlanRejectJson>(ctx, limit, checkPlanReject, {})
    ctx.body = await plans.reject(ctx.params.ca!, id(ctx), body.reason)
  })
  r.post('/cas/:ca/plans/:id/withdraw', async (ctx) => {
    await readNoBody(ctx)
    ctx.body = await plans.withdraw(ctx.params.ca!, id(ctx))
  })
  r.get('/cas/:ca/change-control', (ctx) => void (ctx.body = plans.changeControl(ctx.params.ca!)))
  r.post('/cas/:ca/change-control', async (ctx) => {
    const body = await readJson<ChangeControlJson>(ctx, limit, checkChangeControl)
    ctx.body = await plans.setChangeControl(ctx.params.ca!, body.four_eyes)
  })
  return r
}

/** A plan id in a path: a positive integer, else 404 as an unknown plan would be (nothing is looked up). */
function planId(text: string): number {
  return /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : 0
}

function checkPlanApprove(v: unknown): string | undefined {
  const e = checkPlanApply(typeof v === 'object' && v !== null ? { ...(v as Record<string, unknown>), apply: undefined } : v)
  if (e) return 'expected {"apply": true|false, "accept_invalid": true|false}'
  const apply = (v as Record<string, unknown>).apply
  return apply === undefined || typeof apply === 'boolean' ? undefined : 'expected {"apply": true|false, "accept_invalid": true|false}'
}
