/**
 * Logging in and out (design.md §9, issue 24 items 1 and 4), whichever provider checked the credentials: a login
 * starts a session (session-service.ts) and answers Krill's LoggedInUser; every login, failed login and logout is
 * recorded in the audit trail (never with a secret) and counted for /metrics; failed logins are limited per source
 * and per user (login-limiter.ts) and, beyond the limit, refused before any password is hashed. The HTTP providers
 * (http/auth-provider.ts, http/config-file-provider.ts) read the credentials of a request and call this.
 */
import type { Actor, Role } from '../../api/access.js'
import type { LoggedInUser } from '../../api/status.js'
import { AppError } from '../../errors.js'
import type { AccessService } from './access-service.js'
import type { AuditService } from './audit-service.js'
import type { ConfigUsers } from './config-users.js'
import type { LoginLimiter } from './login-limiter.js'
import type { SessionService } from './session-service.js'

/** What /metrics counts: a login, a refused one, one refused unchecked by the rate limit. */
export type LoginOutcome = 'success' | 'failure' | 'rate-limited'

export interface LoginServiceDeps {
  sessions: SessionService
  access: AccessService
  audit: AuditService
  limiter: LoginLimiter
  /** `[auth_users]` (auth_type config-file), else undefined: a user name and password are then refused. */
  users: ConfigUsers | undefined
  /** Which source a peer address counts as for the limits (an IPv4 address, an IPv6 /64). */
  sourceOf: (ip: string | undefined) => string
  /** Counted for /metrics (app/metrics/metrics-service.ts). */
  observe?: (provider: string, outcome: LoginOutcome) => void
}

/** Where a request came from: its peer address (the audit's `source`). */
export interface LoginRequest {
  ip: string | undefined
}

/** The one answer for a wrong password and an unknown user alike (no user enumeration). */
const REFUSED = 'incorrect credentials'

/** A user name as the audit records it when the login failed: attacker's text, so bounded. */
const auditId = (id: string) => (id === '' ? '(none)' : id.length > 128 ? `${id.slice(0, 128)}…` : id)

export class LoginService {
  constructor(private readonly d: LoginServiceDeps) {}

  /** POST /auth/login with a user name and password (`config-file`, Krill's HTTP Basic). */
  async password(username: string, password: string, req: LoginRequest): Promise<LoggedInUser> {
    const provider = 'config-file'
    this.notLimited(provider, req, username)
    const users = this.d.users
    const check = users ? await users.check(username, password) : ({ ok: false, reason: 'invalid-credentials' } as const)
    if (!check.ok && check.reason === 'busy') {
      this.d.observe?.(provider, 'rate-limited')
      throw new AppError('api-rate-limited-login', { retry_after: '1' })
    }
    if (!check.ok && check.reason === 'invalid-credentials') {
      this.refused(provider, username, req, 'invalid-credentials', true)
      throw new AppError('api-invalid-credentials', { reason: REFUSED })
    }
    if (!check.ok || !check.role.permissions.has('login')) {
      // The password was right: no guess to count, but no session either (Krill: ApiInsufficientRights).
      this.refused(provider, username, req, check.ok ? 'no-login-permission' : 'unknown-role', false)
      throw new AppError('api-insufficient-rights', { permission: 'login' })
    }
    return this.succeeded({ id: check.id, provider, role: check.role }, req)
  }

  /**
   * POST /auth/login with the admin token as a bearer token (Krill's web client and CLI; any auth_type). The answer's
   * token is the admin token itself, as Krill's: it is the client's session.
   */
  adminToken(secret: string, req: LoginRequest): LoggedInUser {
    const provider = 'admin-token'
    this.notLimited(provider, req)
    const actor = this.d.access.authenticate(secret)
    if (actor?.provider !== 'admin-token') {
      this.refused(provider, 'admin-token', req, 'invalid-credentials', true, false)
      throw new AppError('api-invalid-credentials', { reason: 'token refused' })
    }
    this.d.audit.record({ kind: 'login', actor: { id: actor.id, provider, ...source(req) }, success: true })
    this.d.observe?.(provider, 'success')
    return { token: secret, id: actor.id, attributes: { role: actor.role.name } }
  }

  /**
   * A user whose credentials a provider has checked (a password here, an OpenID Connect provider's id token): a new
   * session, recorded and counted.
   */
  succeeded(user: { id: string; provider: Actor['provider']; role: Role; data?: Record<string, string> }, req: LoginRequest): LoggedInUser {
    const { secret } = this.d.sessions.start({ userId: user.id, provider: user.provider, role: user.role.name, ...(user.data ? { data: user.data } : {}) })
    this.d.audit.record({ kind: 'login', actor: { id: user.id, provider: user.provider, ...source(req) }, success: true })
    this.d.observe?.(user.provider, 'success')
    return { token: secret, id: user.id, attributes: { role: user.role.name } }
  }

  /**
   * A login refused: recorded (the user name tried, never the password) and counted; with `guess`, it counts against
   * the source's (and with `perUser`, the user's) limit.
   */
  refused(provider: string, id: string, req: LoginRequest, reason: string, guess: boolean, perUser = true): void {
    if (guess) this.d.limiter.failed(this.d.sourceOf(req.ip), perUser ? `${provider}:${id}` : undefined)
    this.d.audit.record({ kind: 'login-failed', actor: { id: auditId(id), provider, ...source(req) }, success: false, details: { reason } })
    this.d.observe?.(provider, 'failure')
  }

  /**
   * POST /auth/logout: ends the session of a bearer secret, if it is one; never fails (an unknown or ended session,
   * the admin token, no secret at all: there is nothing to end).
   */
  logout(secret: string | undefined, req: LoginRequest): void {
    if (secret === undefined) return
    const s = this.d.sessions.end(secret)
    const actor = s ? { id: s.userId, provider: s.provider } : this.d.access.authenticate(secret)?.provider === 'admin-token' ? { id: 'admin-token', provider: 'admin-token' } : undefined
    if (actor) this.d.audit.record({ kind: 'logout', actor: { ...actor, ...source(req) }, success: true })
  }

  /** Refuse at once (429, Retry-After) when the source or the user has failed too often lately. */
  private notLimited(provider: string, req: LoginRequest, user?: string): void {
    const retry = this.d.limiter.retryAfter(this.d.sourceOf(req.ip), user === undefined ? undefined : `${provider}:${user}`)
    if (retry === 0) return
    this.d.observe?.(provider, 'rate-limited')
    throw new AppError('api-rate-limited-login', { retry_after: String(retry) })
  }
}

function source(req: LoginRequest): { source?: string } {
  return req.ip === undefined ? {} : { source: req.ip }
}
