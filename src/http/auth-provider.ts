/**
 * Krill's login endpoints, per provider (krill-reference.md §1.2; krill:src/daemon/http/auth/providers/): an
 * AuthProvider serves GET /auth/login (where the web client's login page is), POST /auth/login (a session for the
 * credentials of the request), POST /auth/logout and, for OpenID Connect, GET /auth/callback. Which bearer secrets
 * are valid (the admin token, sessions, API tokens) is decided in one place for every provider
 * (app/access/access-service.ts, http/auth.ts); a provider only reads the credentials of a request and hands them to
 * the login service (app/access/login-service.ts), which starts the session, limits failures and records both.
 */
import type { Context } from 'koa'
import type { AuthType } from '../api/access.js'
import type { LoggedInUser } from '../api/status.js'
import type { LoginRequest, LoginService } from '../app/access/login-service.js'
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

  constructor(private readonly logins: LoginService) {}

  /** Krill's web client shows its token form at /login. */
  loginUrl(): string {
    return '/login'
  }

  login(ctx: Context): LoggedInUser {
    return this.logins.adminToken(bearer(ctx), loginRequest(ctx))
  }

  /** Ends the session of the bearer secret, if it is one; never fails. */
  logout(ctx: Context): string {
    this.logins.logout(optionalBearer(ctx), loginRequest(ctx))
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

/** The bearer secret of a request, or undefined. */
export function optionalBearer(ctx: Context): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'))?.[1]
}

/** What the login service is told of a request: its TCP peer (svcd trusts no proxy header). */
export function loginRequest(ctx: Context): LoginRequest {
  return { ip: ctx.ip === '' ? undefined : ctx.ip }
}
