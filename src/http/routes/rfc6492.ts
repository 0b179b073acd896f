/**
 * POST /rfc6492/{ca}: the up-down endpoint (RFC 6492 §3, content type application/rpki-updown). The body is a CMS
 * message from a child; the answer is the CA's signed reply (an error_response for any protocol problem).
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { UPDOWN_CONTENT_TYPE } from '../../api/media-types.js'
import type { HttpDeps } from '../deps.js'
import { readBytes } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'


export function rfc6492Router(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  const handle = async (ctx: Context) => {
    const body = await readBytes(ctx, deps.config.post_limit_rfc6492, UPDOWN_CONTENT_TYPE)
    const answer = await deps.services.children.rfc6492(ctx.params.ca, body)
    ctx.type = UPDOWN_CONTENT_TYPE
    ctx.body = Buffer.from(answer)
  }
  router.post('/rfc6492/:ca', handle)
  router.post('/rfc6492/:ca/', handle)
  return router
}
