/**
 * Publication-server routes (krill-reference.md §1.1 "Publication server"): /api/v1/pubd/… for publishers, stats
 * and session reset; POST /rfc8181/{publisher} for RFC 8181 messages (application/rpki-publication, answered
 * with a signed CMS reply); GET /rrdp/… for the RRDP files, with caching headers and conditional requests. Each
 * route makes one call of the publication server (deps.services.pubd): its publisher side (publishers, RFC 8181,
 * stats) or its output side (release, session reset, the RRDP files); without [repository] they answer
 * pub-repo-not-initialized and /rrdp/ answers 404.
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { PUBLISHER_SORTS } from '../../api/paging.js'
import { PUBLICATION_CONTENT_TYPE } from '../../api/media-types.js'
import { isPublisherRequestJson, type PublisherRequestJson } from '../../api/pubd.js'
import type { PublicationService } from '../../app/pubd/publication-service.js'
import { AppError } from '../../errors.js'
import type { HttpDeps } from '../deps.js'
import { readBytes, readJsonOrXml, readNoBody } from '../body.js'
import { listQuery, queryCount, wantsPage } from '../list-query.js'
import { ROUTER_OPTIONS } from '../path.js'

/** The largest ?stale= (as GET /pubd/stale/{seconds}: ten digits). */
const MAX_STALE_SECONDS = 9_999_999_999

export function pubdRouter(deps: HttpDeps): Router {
  const pub = () => service(deps).publishers
  const outputs = () => service(deps).outputs
  const router = new Router(ROUTER_OPTIONS)
  // Krill's list; with paging parameters (or ?stale=<seconds>) a page of richer rows (api/paging.ts).
  router.get('/api/v1/pubd/publishers', (ctx) => {
    if (!wantsPage(ctx, ['stale'])) return void (ctx.body = pub().pubdPublishers())
    const stale = ctx.query.stale === undefined ? undefined : queryCount(ctx, 'stale', 0, MAX_STALE_SECONDS)
    ctx.body = pub().pubdPublishers(listQuery(ctx, PUBLISHER_SORTS), stale)
  })
  router.post('/api/v1/pubd/publishers', async (ctx) => {
    const body = await readJsonOrXml(ctx, deps.config.post_limit_api)
    if ('json' in body) {
      const problem = isPublisherRequestJson(body.json)
      if (problem) throw new AppError('api-invalid-body', { reason: problem })
      ctx.body = pub().pubdPublisherAdd({ json: body.json as PublisherRequestJson })
    } else ctx.body = pub().pubdPublisherAdd({ xml: body.xml })
  })
  router.get('/api/v1/pubd/publishers/:publisher', (ctx) => {
    ctx.body = pub().pubdPublisherShow(ctx.params.publisher)
  })
  router.delete('/api/v1/pubd/publishers/:publisher', (ctx) => {
    pub().pubdPublisherRemove(ctx.params.publisher)
    ctx.status = 200
    ctx.body = ''
  })
  router.get('/api/v1/pubd/publishers/:publisher/response.json', (ctx) => {
    ctx.body = pub().pubdPublisherResponse(ctx.params.publisher)
  })
  router.get('/api/v1/pubd/publishers/:publisher/response.xml', (ctx) => {
    ctx.type = 'application/xml'
    ctx.body = pub().pubdPublisherResponseXml(ctx.params.publisher)
  })
  router.get('/api/v1/pubd/stale/:seconds', (ctx) => {
    const seconds = Number(ctx.params.seconds)
    if (!/^[0-9]{1,10}$/.test(ctx.params.seconds) || !Number.isSafeInteger(seconds)) throw new AppError('api-invalid-path-seconds', { seconds: ctx.params.seconds })
    ctx.body = pub().pubdStale(seconds)
  })
  router.get('/api/v1/pubd/stats', (ctx) => {
    ctx.body = pub().pubdStats()
  })
  router.post('/api/v1/pubd/release', async (ctx) => {
    await readNoBody(ctx)
    await outputs().pubdRelease()
    ctx.status = 200
    ctx.body = ''
  })
  router.post('/api/v1/pubd/session_reset', async (ctx) => {
    await readNoBody(ctx)
    await outputs().pubdSessionReset()
    ctx.status = 200
    ctx.body = ''
  })
  const rfc8181 = async (ctx: Context) => {
    // A message is read only up to what the publisher's quota could accept (issue 22: no 32 MiB from a self-service one).
    const body = await readBytes(ctx, Math.min(deps.config.post_limit_rfc8181, pub().rfc8181Limit(ctx.params.publisher)), PUBLICATION_CONTENT_TYPE)
    ctx.type = PUBLICATION_CONTENT_TYPE
    ctx.body = Buffer.from(await pub().rfc8181(ctx.params.publisher, body))
  }
  router.post('/rfc8181/:publisher', rfc8181)
  router.post('/rfc8181/:publisher/', rfc8181)
  return router
}

/** The publication server's services, or pub-repo-not-initialized when [repository] is not enabled. */
function service(deps: HttpDeps): PublicationService {
  if (!deps.services.publication) throw new AppError('pub-repo-not-initialized')
  return deps.services.publication
}

/** GET /rrdp/<path>: a plain middleware (file paths are not route parameters). */
export function rrdpMiddleware(deps: HttpDeps) {
  return async function rrdp(ctx: Context, next: () => Promise<unknown>): Promise<void> {
    if (!ctx.path.startsWith('/rrdp/')) return void (await next())
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AppError('api-unknown-method', { method: ctx.method, path: ctx.path })
    ctx.state.route = '/rrdp/*' // the route label of the request metrics (routes/metrics.ts)
    serveRrdp(ctx, deps, ctx.path.slice('/rrdp/'.length))
  }
}

/**
 * Serve one RRDP file: notification briefly cacheable, the rest immutable; ETag and If-Modified-Since → 304; gzip when
 * the client accepts it (Content-Encoding: gzip, Vary: Accept-Encoding, an ETag of its own).
 */
function serveRrdp(ctx: Context, deps: HttpDeps, path: string): void {
  // The publication-server BCP: compressed to clients that accept gzip (copies written with the files, not per request).
  const file = deps.services.publication?.outputs.rrdpFile(path, ctx.acceptsEncodings('gzip', 'identity') === 'gzip')
  if (!file) throw new AppError('api-unknown-resource', { path: ctx.path })
  ctx.vary('Accept-Encoding')
  ctx.set('Cache-Control', file.notification ? 'public, max-age=60' : 'public, max-age=86400, immutable')
  ctx.set('ETag', file.etag)
  ctx.set('Last-Modified', file.mtime.toUTCString())
  const inm = ctx.get('If-None-Match')
  const ims = Date.parse(ctx.get('If-Modified-Since'))
  const notModified = inm ? inm.split(',').some((t) => t.trim() === file.etag || t.trim() === '*') : Number.isFinite(ims) && Math.floor(file.mtime.getTime() / 1000) <= Math.floor(ims / 1000)
  if (notModified) {
    file.stream.destroy()
    ctx.status = 304
    return
  }
  ctx.type = 'application/xml'
  if (file.encoding === 'gzip') ctx.set('Content-Encoding', 'gzip')
  ctx.length = file.size
  ctx.body = file.stream
}
