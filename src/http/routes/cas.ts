/**
 * CA routes under /api/v1/cas (spec §4 table, krill-reference.md §1.1): lifecycle, parents, children, ROAs,
 * repository, issues. Each handler reads and checks its input, makes one service call, and responds.
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { ROA_SORTS } from '../../api/cas.js'
import { CA_SORTS, CHILD_SORTS } from '../../api/paging.js'
import { checkAddCa, checkAddChild, checkResourcesJson, checkRoaDelta, checkUpdateChild, ROAS_PAGE_DEFAULT, ROAS_PAGE_MAX, TOTAL_COUNT_HEADER, type AddChildJson, type RoaDeltaJson, type UpdateChildJson } from '../../api/cas.js'
import { checkAspaDefinitionUpdates, checkAspaProvidersUpdate, customerFromPath, type AspaDefinitionUpdatesJson, type AspaProvidersUpdateJson } from '../../api/aspas.js'
import { checkBgpSecDefinitionUpdates, type BgpSecDefinitionUpdatesJson } from '../../api/bgpsec.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { readJson, readJsonOrXml, readNoBody, readOptionalJson } from '../body.js'
import { checkKeyRollInit, type KeyRollInitJson } from '../../api/signers.js'
import { sendJsonChunks } from '../json-array.js'
import { listQuery, queryCount, queryOrder, querySearch, wantsPage } from '../list-query.js'
import { rscRoutes } from './cas-rsc.js'
import { ROUTER_OPTIONS } from '../path.js'
import { callerMay, grantedOn, requirePermission, seenBy } from '../route-permissions.js'

const empty = (ctx: Context) => {
  ctx.status = 200
  ctx.body = ''
}

const xml = (ctx: Context, text: string) => {
  ctx.type = 'application/xml'
  ctx.body = text
}

export function casRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  lifecycleRoutes(r, deps)
  parentRoutes(r, deps)
  childRoutes(r, deps)
  roaAndRepoRoutes(r, deps)
  roaTableRoute(r, deps)
  aspaRoutes(r, deps)
  rscRoutes(r, deps)
  historyRoutes(r, deps)
  actionRoutes(r, deps)
  return r
}

/** CAs themselves and their RFC 8183 requests. */
function lifecycleRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  // Krill's list; with paging parameters a page of it (api/paging.ts).
  // Only the CAs the caller's role sees (route-permissions.ts); the paged total counts those.
  r.get('/cas', (ctx) => void (ctx.body = wantsPage(ctx) ? svc.cas.caList(listQuery(ctx, CA_SORTS), seenBy(ctx)) : svc.cas.caList(undefined, seenBy(ctx))))
  r.post('/cas', async (ctx) => {
    const body = await readJson<{ handle: string }>(ctx, limit, checkAddCa)
    // A role limited to a list of CAs creates only CAs on its list: the handle is in the body, so it is checked here.
    requirePermission(ctx, 'ca-create', body.handle)
    await svc.cas.caAdd(body.handle)
    empty(ctx)
  })
  r.get('/cas/:ca', (ctx) => void (ctx.body = svc.cas.caShow(ctx.params.ca)))
  r.delete('/cas/:ca', async (ctx) => {
    await svc.cas.caDelete(ctx.params.ca)
    empty(ctx)
  })
  r.get('/cas/:ca/child_request.json', (ctx) => void (ctx.body = svc.cas.caChildRequest(ctx.params.ca)))
  r.get('/cas/:ca/id/child_request.json', (ctx) => void (ctx.body = svc.cas.caChildRequest(ctx.params.ca)))
  r.get('/cas/:ca/id/child_request.xml', (ctx) => xml(ctx, svc.cas.caChildRequestXml(ctx.params.ca)))
  r.get('/cas/:ca/id/publisher_request.json', (ctx) => void (ctx.body = svc.cas.caPublisherRequest(ctx.params.ca)))
  r.get('/cas/:ca/id/publisher_request.xml', (ctx) => xml(ctx, svc.cas.caPublisherRequestXml(ctx.params.ca)))
}

/** Parents (RFC 6492 client side). */
function parentRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  r.get('/cas/:ca/parents', (ctx) => void (ctx.body = svc.parents.caParentStatuses(ctx.params.ca)))
  r.post('/cas/:ca/parents', async (ctx) => {
    await svc.parents.caParentAdd(ctx.params.ca, await readJsonOrXml(ctx, limit))
    empty(ctx)
  })
  r.post('/cas/:ca/parents/:parent', async (ctx) => {
    await svc.parents.caParentAdd(ctx.params.ca, await readJsonOrXml(ctx, limit), { name: ctx.params.parent })
    empty(ctx)
  })
  r.get('/cas/:ca/parents/:parent', (ctx) => void (ctx.body = svc.parents.caParentContact(ctx.params.ca, ctx.params.parent)))
  r.delete('/cas/:ca/parents/:parent', async (ctx) => {
    await svc.parents.caParentRemove(ctx.params.ca, ctx.params.parent)
    empty(ctx)
  })

  r.post('/cas/:ca/sync/parents', action((ctx) => svc.parents.caSyncParents(ctx.params.ca)))
}

/** Children (RFC 6492 server side). */
function childRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  r.post('/cas/:ca/children', async (ctx) => {
    ctx.body = await svc.children.caChildAdd(ctx.params.ca, await readJson<AddChildJson>(ctx, limit, checkAddChild))
  })
  // The children a page at a time, searched and sorted by svcd (api/paging.ts); Krill lists them in GET /cas/{ca}.
  r.get('/cas/:ca/children', (ctx) => void (ctx.body = svc.children.caChildren(ctx.params.ca, listQuery(ctx, CHILD_SORTS))))
  r.get('/cas/:ca/children/:child', (ctx) => void (ctx.body = svc.children.caChildInfo(ctx.params.ca, ctx.params.child)))
  r.post('/cas/:ca/children/:child', async (ctx) => {
    await svc.children.caChildUpdate(ctx.params.ca, ctx.params.child, await readJson<UpdateChildJson>(ctx, limit, checkUpdateChild))
    empty(ctx)
  })
  r.delete('/cas/:ca/children/:child', async (ctx) => {
    await svc.children.caChildRemove(ctx.params.ca, ctx.params.child)
    empty(ctx)
  })
  r.get('/cas/:ca/children/:child/contact', (ctx) => void (ctx.body = svc.children.caChildContact(ctx.params.ca, ctx.params.child)))
  r.get('/cas/:ca/children/:child/parent_response.json', (ctx) => void (ctx.body = svc.children.caChildContact(ctx.params.ca, ctx.params.child)))
  r.get('/cas/:ca/children/:child/parent_response.xml', (ctx) => xml(ctx, svc.children.caChildContactXml(ctx.params.ca, ctx.params.child)))
}

/** ROAs, the repository, issues. */
function roaAndRepoRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  r.get('/cas/:ca/routes', async (ctx) => {
    const offset = queryCount(ctx, 'offset', 0, Number.MAX_SAFE_INTEGER)
    const limit = queryCount(ctx, 'limit', ROAS_PAGE_DEFAULT, ROAS_PAGE_MAX, 1)
    const page = await svc.cas.caRoas(ctx.params.ca, { offset, limit })
    ctx.set(TOTAL_COUNT_HEADER, String(page.total))
    if (offset + page.items.length < page.total) ctx.set('Link', `<${ctx.path}?offset=${offset + page.items.length}&limit=${limit}>; rel="next"`)
    ctx.body = page.items
  })
  // ROA deltas have their own, larger limit: 50,000 authorisations are several MB of JSON (config.ts post_limit_api_routes).
  const deltaLimit = deps.config.post_limit_api_routes
  r.post('/cas/:ca/routes', async (ctx) => {
    await svc.cas.caRoasUpdate(ctx.params.ca, await readJson<RoaDeltaJson>(ctx, deltaLimit, checkRoaDelta))
    empty(ctx)
  })
  // The analyses may list hundreds of thousands of entries: their JSON streamed as the analysis worker writes it.
  r.get('/cas/:ca/routes/analysis/full', async (ctx) => sendJsonChunks(ctx, await svc.cas.caRoutesAnalysis(ctx.params.ca)))
  r.get('/cas/:ca/routes/analysis/suggest', async (ctx) => sendJsonChunks(ctx, await svc.cas.caRoutesSuggestJson(ctx.params.ca)))
  r.post('/cas/:ca/routes/analysis/suggest', async (ctx) => {
    sendJsonChunks(ctx, await svc.cas.caRoutesSuggestJson(ctx.params.ca, await readJson<{ asn?: string; ipv4?: string; ipv6?: string }>(ctx, limit, checkResourcesJson)))
  })
  r.post('/cas/:ca/routes/analysis/dryrun', async (ctx) => {
    sendJsonChunks(ctx, await svc.cas.caRoutesDryRun(ctx.params.ca, await readJson<RoaDeltaJson>(ctx, deltaLimit, checkRoaDelta)))
  })

  r.get('/cas/:ca/repo', (ctx) => void (ctx.body = svc.repo.caRepo(ctx.params.ca)))
  r.post('/cas/:ca/repo', async (ctx) => {
    await svc.repo.caRepoUpdate(ctx.params.ca, await readJsonOrXml(ctx, limit))
    empty(ctx)
  })
  r.get('/cas/:ca/repo/status', async (ctx) => void (ctx.body = await svc.repo.caRepoStatus(ctx.params.ca)))
  r.get('/cas/:ca/issues', (ctx) => void (ctx.body = svc.cas.caIssues(ctx.params.ca)))
  // The issues of the CAs the caller sees; the publication server's own problems for a caller that may list publishers.
  r.get('/bulk/cas/issues', (ctx) => void (ctx.body = svc.cas.bulkIssues({ sees: seenBy(ctx), publicationServer: callerMay(ctx, 'pub-list') })))
}

/** GET …/routes/page: the web console's ROA table (issue 15), searched, sorted and paged on the server. */
function roaTableRoute(r: Router, deps: HttpDeps): void {
  r.get('/cas/:ca/routes/page', async (ctx) => {
    ctx.body = await deps.services.cas.caRoasQuery(ctx.params.ca, listQuery(ctx, ROA_SORTS, { dflt: 100, max: ROAS_PAGE_MAX }))
  })
}

/** ASPA definitions and BGPsec router keys (krill-reference.md §1.1 "ASPA", "BGPsec"). */
function aspaRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const limit = deps.config.post_limit_api
  const customer = (ctx: Context): number => {
    const asn = customerFromPath(ctx.params.customer)
    if (asn === undefined) throw new AppError('api-invalid-path', { reason: `'${ctx.params.customer}' is not an AS number` })
    return asn
  }
  r.get('/cas/:ca/aspas', (ctx) => void (ctx.body = svc.cas.caAspas(ctx.params.ca)))
  r.post('/cas/:ca/aspas', async (ctx) => {
    await svc.cas.caAspasUpdate(ctx.params.ca, await readJson<AspaDefinitionUpdatesJson>(ctx, limit, checkAspaDefinitionUpdates))
    empty(ctx)
  })
  r.post('/cas/:ca/aspas/as/:customer', async (ctx) => {
    const asn = customer(ctx)
    await svc.cas.caAspaProvidersUpdate(ctx.params.ca, asn, await readJson<AspaProvidersUpdateJson>(ctx, limit, checkAspaProvidersUpdate))
    empty(ctx)
  })
  r.delete('/cas/:ca/aspas/as/:customer', async (ctx) => {
    await svc.cas.caAspaRemove(ctx.params.ca, customer(ctx))
    empty(ctx)
  })

  // BGPsec router keys (krill-reference.md §1.1 "BGPsec").
  r.get('/cas/:ca/bgpsec', (ctx) => void (ctx.body = svc.cas.caBgpSecList(ctx.params.ca)))
  r.post('/cas/:ca/bgpsec', async (ctx) => {
    await svc.cas.caBgpSecUpdate(ctx.params.ca, await readJson<BgpSecDefinitionUpdatesJson>(ctx, limit, checkBgpSecDefinitionUpdates))
    empty(ctx)
  })
}

/**
 * History (krill-reference.md §1.1): /history/commands[/rows[/offset[/after[/before]]]] and /history/details/{key}.
 * Beyond Krill (api/paging.ts): ?q= keeps the actions whose label, message or actor hold the text, ?order=desc
 * lists the newest first (the offset counts from the newest); without them the answer is Krill's.
 */
function historyRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  const history = (ctx: Context) => {
    const p = ctx.params
    const num = (name: string, v: string | undefined, dflt?: number) => {
      if (v === undefined) return dflt
      if (!/^[0-9]{1,12}$/.test(v)) throw new AppError('api-invalid-query', { name, reason: 'must be a non-negative number' })
      return Number(v)
    }
    ctx.body = svc.cas.caHistory(p.ca, { rows: num('rows', p.rows, 100)!, offset: num('offset', p.offset, 0)!, after: num('after', p.after), before: num('before', p.before), full: ctx.query.full === 'true', q: querySearch(ctx), order: queryOrder(ctx) })
  }
  r.get('/cas/:ca/history/commands', history)
  r.get('/cas/:ca/history/commands/:rows', history)
  r.get('/cas/:ca/history/commands/:rows/:offset', history)
  r.get('/cas/:ca/history/commands/:rows/:offset/:after', history)
  r.get('/cas/:ca/history/commands/:rows/:offset/:after/:before', history)
  r.get('/cas/:ca/history/details/:key', (ctx) => void (ctx.body = svc.cas.caHistoryDetails(ctx.params.ca, ctx.params.key)))
}

/** Body-less POSTs that trigger work: key rolls, syncs, bulk operations. */
function actionRoutes(r: Router, deps: HttpDeps): void {
  const svc = deps.services
  // An optional body names the signer of the new keys (issue 25: keys move between signers by key roll); Krill sends none.
  r.post('/cas/:ca/keys/roll_init', async (ctx) => {
    const body = await readOptionalJson<KeyRollInitJson>(ctx, 1024, checkKeyRollInit, {})
    await svc.cas.caKeyRollInit(ctx.params.ca, body.signer)
    empty(ctx)
  })
  r.get('/cas/:ca/keys', (ctx) => void (ctx.body = svc.cas.caKeys(ctx.params.ca)))
  r.post('/cas/:ca/keys/roll_activate', action((ctx) => svc.cas.caKeyRollActivate(ctx.params.ca)))
  r.post('/cas/:ca/sync/repo', action((ctx) => svc.repo.caSyncRepo(ctx.params.ca)))
  // Bulk actions touch only the CAs on which the caller may act (ca-update on each).
  r.post('/bulk/cas/publish', action((ctx) => svc.cas.bulkPublish(grantedOn(ctx, 'ca-update'))))
  r.post('/bulk/cas/sync/parent', action((ctx) => svc.cas.bulkRefresh(grantedOn(ctx, 'ca-update'))))
  r.post('/bulk/cas/sync/repo', action((ctx) => svc.cas.bulkSyncRepo(grantedOn(ctx, 'ca-update'))))
}

/** A POST that takes no body: run `fn`, answer 200 with an empty body. */
function action(fn: (ctx: Context) => Promise<void>) {
  return async (ctx: Context) => {
    await readNoBody(ctx)
    await fn(ctx)
    empty(ctx)
  }
}
