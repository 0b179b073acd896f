/**
 * RFC 8183 identity key rolls (issue 25; app/ca/id-roll-service.ts): GET /api/v1/cas/{ca}/id, POST …/id/roll
 * `{signer?}`, POST …/id/roll/finish; and POST /api/v1/pubd/publishers/{publisher}/id_cert `{id_cert}`.
 */
import { Router } from '@koa/router'
import { AppError } from '../../errors.js'
import { readJson, readNoBody, readOptionalJson } from '../body.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

export function idRollRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  const svc = deps.services
  const limit = deps.config.post_limit_api
  router.get('/api/v1/cas/:ca/id', (ctx) => void (ctx.body = svc.idRoll.show(ctx.params.ca!)))
  router.post('/api/v1/cas/:ca/id/roll', async (ctx) => {
    const body = await readOptionalJson<{ signer?: string }>(ctx, limit, checkRollBody, {})
    ctx.body = await svc.idRoll.roll(ctx.params.ca!, body.signer !== undefined ? { signer: body.signer } : {})
  })
  router.post('/api/v1/cas/:ca/id/roll/finish', async (ctx) => {
    await readNoBody(ctx)
    ctx.body = await svc.idRoll.finish(ctx.params.ca!)
  })
  router.post('/api/v1/pubd/publishers/:publisher/id_cert', async (ctx) => {
    const body = await readJson<{ id_cert: string }>(ctx, limit, (v) => (typeof (v as { id_cert?: unknown })?.id_cert === 'string' ? undefined : 'id_cert (base64 DER) is required'))
    if (!svc.publication) throw new AppError('pub-repo-not-initialized')
    svc.publication.publishers.publisherIdCertSet(ctx.params.publisher!, body.id_cert)
    ctx.status = 200
    ctx.body = ''
  })
  return router
}

function checkRollBody(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'expected an object'
  const s = (v as { signer?: unknown }).signer
  if (s !== undefined && typeof s !== 'string') return 'signer must be a string'
  const extra = Object.keys(v).filter((k) => k !== 'signer')
  return extra.length ? `unknown field '${extra[0]}'` : undefined
}
