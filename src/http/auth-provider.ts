/**
 * Krill's login endpoints, per provider (krill-reference.md §1.2; krill:src/daemon/http/auth/providers/): an
 * AuthProvider serves GET /auth/login (where the web client's login page is), POST /auth/login (a session for the
 * credentials of the request), POST /auth/logout and, for OpenID Connect, GET /auth/callback. Which bearer secrets
 * are valid (the admin token, sessions, API tokens) is decided in one place for every provider
 * (app/access/access-service.ts, http/auth.ts); a provider only turns credentials into a session.
 */
import type { Context } from 'koa'
import type { AuthType } from '../api/access.js'
import type { LoggedInUser } from '../api/status.js'
import type { AccessService } from '../app/access/access-service.js'
import { AppError } from '../errors.js'

export interface AuthProvider {
  /** Krill's `auth_type` of this provider. */
  readonly type: AuthType
  /** GET /auth/login: the relative URL of the login page a web client shows (or the provider's, for a redirect). */
  loginUrl(ctx: Context): string | Promise<string>
  /** POST /auth/login: a session for the credentials of the request, or `api-invalid-credentials` (401). */
  login(ctx: Context): LoggedInUser | Promise<LoggedInUser>
  /** POST /auth/logout: ends the caller's session; answers where a web client goes next. */
  logout(ctx: Context): string | Promise<string>
  /** GET /auth/callback: the OpenID Connect provider's redirect back (other providers have none). */
  callback?(ctx: Context): Promise<void>
}

/** The admin token of the config: Krill's web client posts it as a bearer token and keeps it as its session. */
export class AdminTokenProvider implements AuthProvider {
  readonly type = 'admin-token' as const

  constructor(
    private readonly access: AccessService,
    private readonly token: string,
  ) {}

  /** Krill's web client shows its token form at /login. */
  loginUrl(): string {
    return '/login'
  }

  login(ctx: Context): LoggedInUser {
    const actor = this.access.authenticate(bearer(ctx))
    if (actor?.provider !== 'admin-token') throw new AppError('api-invalid-credentials', { reason: 'token refused' })
    return { token: this.token, id: actor.id, attributes: { role: actor.role.name } }
  }

  logout(): string {
    return '/'
  }
}

/** The bearer secret of a request; `api-invalid-credentials` (401) when there is none or the header is malformed. */
export function bearer(ctx: Context): string {
  const header = ctx.get('Authorization')
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!m) throw new AppError('api-invalid-credentials', { reason: header ? 'malformed Authorization header' : 'no bearer token' })
  return m[1]!
}
