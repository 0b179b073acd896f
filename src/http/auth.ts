/**
 * Bearer-token check for /api/v1 (krill-reference.md §1.2). The comparison is constant-time: both sides are
 * hashed to fixed-length digests first, so neither the content nor the length of the token leaks by timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'

export function bearerAuth(token: string) {
  const expected = digest(token)
  return async function requireToken(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('Authorization')
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!m) throw new AppError('api-invalid-credentials', { reason: header ? 'malformed Authorization header' : 'no bearer token' })
    if (!timingSafeEqual(digest(m[1]), expected)) throw new AppError('api-invalid-credentials', { reason: 'token refused' })
    await next()
  }
}

/** Apply the bearer check to every path under /api/ (known or not, so unknown paths reveal nothing). */
export function apiAuth(token: string) {
  const check = bearerAuth(token)
  return async function requireTokenForApi(ctx: Context, next: Next): Promise<void> {
    if (ctx.path === '/api' || ctx.path.startsWith('/api/')) return check(ctx, next)
    return next()
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}
