/**
 * Krill's login endpoints (krill:src/daemon/http/auth/providers/admin_token.rs, dispatch/auth.rs): GET /auth/login
 * (public) answers the relative URL of the login page as text/plain; POST /auth/login checks the credentials (the
 * admin bearer token, a user's password) and answers the session `{token, id, attributes}` (429 with Retry-After after
 * too many failures); POST /auth/logout ends the session and answers where to go next.
 * What a credential is, and who it makes the caller, is the AuthProvider's business (http/auth-provider.ts).
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import type { AuthProvider } from '../auth-provider.js'
import { AppError } from '../../errors.js'
import { readBytes } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'

/** What a login or logout request body may hold (the credentials are in the header; OpenID Connect's exchange has a body). */
const BODY_LIMIT = 16 * 1024

export function authRouter(auth: AuthProvider): Router {
  const router = new Router(ROUTER_OPTIONS)
  router.get('/auth/login', async (ctx) => text(ctx, await auth.loginUrl(ctx)))
  router.post('/auth/login', async (ctx) => {
    ctx.state.authBody = await readBytes(ctx, BODY_LIMIT) // a web client may send one (the OpenID Connect exchange); credentials are in the header
    ctx.set('Cache-Control', 'no-store')
    try {
      ctx.body = await auth.login(ctx)
    } catch (e) {
      // Too many failed logins (app/access/login-service.ts): say when to try again (RFC 6585 §4).
      if (e instanceof AppError && e.label === 'api-rate-limited-login') ctx.set('Retry-After', e.args.retry_after ?? '60')
      throw e
    }
  })
  router.post('/auth/logout', async (ctx) => {
    await readBytes(ctx, BODY_LIMIT)
    text(ctx, await auth.logout(ctx))
  })
  // Only OpenID Connect has a callback (Krill's too); the other providers answer the path with 404.
  const callback = auth.callback?.bind(auth)
  if (callback) router.get('/auth/callback', (ctx) => callback(ctx))
  return router
}

/** A text/plain answer (exactly, as Krill's) that no cache keeps (Krill's `text_no_cache`). */
function text(ctx: Context, body: string): void {
  ctx.set('Cache-Control', 'no-cache')
  ctx.set('Content-Type', 'text/plain')
  ctx.body = body
}
