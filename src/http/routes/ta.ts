/**
 * The embedded trust anchor, when testbed is on: GET /ta/ta.tal and /ta/ta.cer (RFC 8630), and its key roll (RFC 9691):
 * the successor's TAL at /ta/ta-next.tal, each key's certificate at /ta/ta-<KEYID>.cer (public), and
 * GET /api/v1/ta/keyroll, POST /api/v1/ta/keyroll/init and …/activate (with the token).
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { AppError } from '../../errors.js'
import { readNoBody, readOptionalJson } from '../body.js'
import { checkKeyRollInit, type KeyRollInitJson } from '../../api/signers.js'
import type { HttpDeps } from '../deps.js'
import { ROUTER_OPTIONS } from '../path.js'

/** The key id in the https name of a later TA key's certificate (ta-<KEYID>.cer). */
const KEY_ID = /^[0-9A-F]{40}$/

export function taRouter(deps: HttpDeps): Router {
  const router = new Router(ROUTER_OPTIONS)
  const svc = deps.services
  const text = (ctx: Context, tal: string | undefined) => {
    if (!tal) throw new AppError('api-unknown-resource', { path: ctx.path })
    ctx.type = 'text/plain'
    ctx.body = tal
  }
  const cert = (ctx: Context, name: string | undefined) => {
    const cer = name === undefined ? undefined : svc.taKeyRoll.keyCert(name)
    if (!cer) throw new AppError('api-unknown-resource', { path: ctx.path })
    ctx.type = 'application/pkix-cert'
    ctx.body = Buffer.from(cer)
  }
  // A TAL is served once its certificate is in both the RRDP and the rsync output (issue 26 §4); 404 before.
  router.get('/ta/ta.tal', (ctx) => text(ctx, svc.taKeyRoll.servedTal('current')))
  router.get('/ta/ta.cer', (ctx) => cert(ctx, 'ta.cer'))
  router.get('/ta/ta-next.tal', (ctx) => text(ctx, svc.taKeyRoll.servedTal('next')))
  router.get('/ta/ta-:key_id.cer', (ctx) => cert(ctx, KEY_ID.test(ctx.params.key_id ?? '') ? `ta-${ctx.params.key_id}.cer` : undefined))
  router.get('/api/v1/ta/keyroll', (ctx) => void (ctx.body = svc.taKeyRoll.taKeyRoll()))
  // An optional body names the signer of the successor key (issue 25); without one, as before: the default signer.
  router.post('/api/v1/ta/keyroll/init', async (ctx) => {
    const body = await readOptionalJson<KeyRollInitJson>(ctx, 1024, checkKeyRollInit, {})
    await svc.taKeyRoll.taKeyRollInit(undefined, body.signer)
    ctx.status = 200
    ctx.body = ''
  })
  router.post('/api/v1/ta/keyroll/activate', async (ctx) => {
    await readNoBody(ctx)
    await svc.taKeyRoll.taKeyRollActivate()
    ctx.status = 200
    ctx.body = ''
  })
  return router
}
