/**
 * Who is calling (krill-reference.md §1.2; krill:src/daemon/http/auth/providers/admin_token.rs): an AuthProvider
 * turns a request's credentials into an actor and serves Krill's login endpoints. The one provider today checks the
 * admin bearer token; a provider of user accounts (config-file users with roles, OpenID Connect) implements the same
 * interface, and http/auth.ts and routes/auth.ts do not change. The token comparison is constant-time: both sides are
 * hashed to fixed-length digests first, so neither the content nor the length of the token leaks by timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { Context } from 'koa'
import type { LoggedInUser } from '../api/status.js'
import { AppError } from '../errors.js'

/** Who made a request, once authenticated (Krill's actor: a name and a role). */
export interface Actor {
  readonly id: string
  readonly role: string
}

export interface AuthProvider {
  /** Krill's `auth_type` of this provider. */
  readonly type: 'admin-token'
  /** The actor of a request; throws `api-invalid-credentials` (401) when its credentials are missing or wrong. */
  authenticate(ctx: Context): Actor
  /** GET /auth/login: the relative URL of the login page a web client shows. */
  loginUrl(): string
  /** POST /auth/login: a session for the credentials of the request, or `api-invalid-credentials` (401). */
  login(ctx: Context): LoggedInUser
  /** POST /auth/logout: where a web client goes next. */
  logoutUrl(): string
}

/** The admin token of the config: one actor, `admin-token`, with the role `admin` (may do everything). */
export class AdminTokenProvider implements AuthProvider {
  readonly type = 'admin-token' as const
  private readonly check: (ctx: Context) => void

  constructor(private readonly token: string) {
    this.check = bearerCheck(token)
  }

  authenticate(ctx: Context): Actor {
    this.check(ctx)
    return { id: 'admin-token', role: 'admin' }
  }

  /** Krill's web client shows its token form at /login. */
  loginUrl(): string {
    return '/login'
  }

  login(ctx: Context): LoggedInUser {
    const actor = this.authenticate(ctx)
    return { token: this.token, id: actor.id, attributes: { role: actor.role } }
  }

  logoutUrl(): string {
    return '/'
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
