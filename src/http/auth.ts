/**
 * Default deny (issue 10): one step in front of all routing that requires the admin bearer token for every request
 * except those on the explicit list of public routes below (krill-reference.md §1.2). The path it looks at is the one
 * the routers match (http/path.ts has refused every other spelling before this runs), compared case-sensitively.
 * The token comparison is constant-time: both sides are hashed to fixed-length digests first, so neither the content
 * nor the length of the token leaks by timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'
import { withoutTrailingSlash } from './path.js'

/** A route anyone may call: methods and a pattern over the path without its one optional trailing slash. */
export interface PublicRoute {
  readonly methods: readonly string[]
  readonly path: RegExp
  /** Why it needs no token. */
  readonly why: string
}

const READ = ['GET', 'HEAD']
const SEGMENT = '[^/]+'

/**
 * Everything that is reachable without the token. Anything else (unknown paths included, so they reveal nothing)
 * answers 401 without a valid token.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { methods: READ, path: /^\/health$/, why: 'liveness probe, answers nothing but the status' },
  { methods: READ, path: /^\/ready$/, why: 'readiness probe for load balancers' },
  { methods: READ, path: /^\/rrdp\/.+$/, why: 'RRDP files for relying parties (RFC 8182); the file name is checked where it is served' },
  { methods: READ, path: /^\/ta\/ta\.(tal|cer)$/, why: 'the trust anchor locator and certificate (RFC 8630)' },
  { methods: ['POST'], path: new RegExp(`^/rfc6492/${SEGMENT}$`), why: 'RFC 6492 up-down: each message is CMS-signed by a registered child (RFC 6492 §3.1)' },
  { methods: ['POST'], path: new RegExp(`^/rfc8181/${SEGMENT}$`), why: 'RFC 8181 publication: each message is CMS-signed by a registered publisher (RFC 8181 §2)' },
]

/** True when `method path` is on the public list. `path` is a canonical path (http/path.ts). */
export function isPublic(method: string, path: string): boolean {
  const p = withoutTrailingSlash(path)
  return PUBLIC_ROUTES.some((r) => r.methods.includes(method) && r.path.test(p))
}

/** Require the bearer token for every request that is not on the public list. */
export function defaultDeny(token: string) {
  const check = bearerCheck(token)
  return async function requireTokenUnlessPublic(ctx: Context, next: Next): Promise<void> {
    if (!isPublic(ctx.method, ctx.path)) check(ctx)
    await next()
  }
}

/** Throws `api-invalid-credentials` (401) unless the request carries `Authorization: Bearer <token>`. */
export function bearerCheck(token: string): (ctx: Context) => void {
  const expected = digest(token)
  return function checkBearer(ctx: Context): void {
    const header = ctx.get('Authorization')
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!m) throw new AppError('api-invalid-credentials', { reason: header ? 'malformed Authorization header' : 'no bearer token' })
    if (!timingSafeEqual(digest(m[1]), expected)) throw new AppError('api-invalid-credentials', { reason: 'token refused' })
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}
