/**
 * The OpenID Connect relying party of svcd (design.md §9; Krill's `openid-connect` auth_type,
 * krill:src/daemon/http/auth/providers/openid_connect/provider.rs): discovery of the provider (OpenID Connect
 * Discovery 1.0, retried with back-off until it answers), the authorization request of the code flow with PKCE
 * (RFC 7636, S256), state and nonce, the code grant on the callback (openid-client checks the state, the issuer, the
 * nonce, the PKCE verifier by the provider, the audience and the ID token's signature), the claim rules
 * (oidc-claims.ts) and the one-time code that hands the session to the console (http/oidc-provider.ts). Any instance
 * of a cluster may take a callback or an exchange: what a login needs between steps is in `auth_logins`.
 */
import { timingSafeEqual } from 'node:crypto'
import * as client from 'openid-client'
import { roleAllows, type Role } from '../../api/access.js'
import type { LoggedInUser } from '../../api/status.js'
import type { OidcConfig } from '../../config-auth.js'
import { sha256Hex } from '../../crypto/digest.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { LoginStore, StoredLogin } from '../../store/interfaces.js'
import type { Clock, Random, TimerHandle } from '../../util/clock.js'
import type { AuditService } from './audit-service.js'
import { applyClaimRules, type ClaimSet } from './oidc-claims.js'
import type { SessionService } from './session-service.js'

export interface OidcDeps {
  config: OidcConfig
  /** svcd's own base URL (ends with `/`): the redirect and post-logout URIs are fixed paths under it. */
  serviceUri: string
  logins: LoginStore
  sessions: SessionService
  /** The configured roles by name. */
  roles: Readonly<Record<string, Role>>
  audit: AuditService
  clock: Clock
  random: Random
  log: Logger
  /** Counts logins and refused ones for /metrics (svc_auth_logins_total, svc_auth_login_failures_total). */
  observe?: (provider: string, outcome: 'success' | 'failure') => void
}

/** How long the provider has to send the browser back (RFC 6749 §10.12: a state is single use and short-lived). */
export const LOGIN_MAX_MS = 10 * 60_000
/** How long the console has to exchange the one-time code of a finished login for its session. */
export const EXCHANGE_MAX_MS = 120_000
/** Discovery retries: the first after a second, doubling up to a minute. */
const RETRY_FIRST_MS = 1000
const RETRY_MAX_MS = 60_000
/** At most one discovery attempt on demand (a login while the provider was down) per this time. */
const ON_DEMAND_MS = 1000

/** Authorization request parameters that are svcd's alone: `extra_login_params` cannot set them. */
const RESERVED_PARAMS = new Set(['client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'request', 'request_uri', 'response_mode'])

/** The user, role and logout hint of a finished login, kept under the hash of its one-time code until the exchange. */
const EXCHANGE = 'exchange'

/** Who a login is about, for the audit (never a secret). */
export interface LoginSource {
  /** The peer address of the request. */
  source: string | undefined
}

export class OidcService {
  private configuration: client.Configuration | undefined
  private attempt: Promise<boolean> | undefined
  private lastAttempt = -Infinity
  private retryMs = RETRY_FIRST_MS
  private timer: TimerHandle | undefined
  private stopped = false
  readonly redirectUri: string

  constructor(private readonly d: OidcDeps) {
    this.redirectUri = `${d.serviceUri}auth/callback`
    const reserved = Object.keys(d.config.extra_login_params).filter((k) => RESERVED_PARAMS.has(k))
    if (reserved.length > 0) d.log.warn('OpenID Connect: extra_login_params cannot set these, ignored', { params: reserved })
  }

  /** Start discovering the provider (in the background: svcd starts whether or not it answers). */
  start(): void {
    this.stopped = false
    void this.discover()
  }

  /** Stop retrying the discovery. */
  stop(): void {
    this.stopped = true
    this.d.clock.clear(this.timer)
    this.timer = undefined
  }

  /** Whether the provider's metadata is known (discovery succeeded). */
  ready(): boolean {
    return this.configuration !== undefined
  }

  /**
   * GET /auth/login: a new authorization request, as the absolute URL of the provider's authorization endpoint
   * (from discovery, never from a request). The verifier and nonce are stored under the hash of the state, with the
   * hash of `browser`: a secret the browser that asked keeps in a cookie (http/oidc-provider.ts), without which the
   * callback is refused, so that nobody can finish a login of theirs in someone else's browser (login CSRF,
   * RFC 6749 §10.12; RFC 9700 §4.7).
   */
  async loginUrl(): Promise<{ url: string; browser: string }> {
    const cfg = await this.provider()
    const state = this.secret()
    const nonce = this.secret()
    const verifier = this.secret() // RFC 7636 §4.1: 43 characters of the unreserved set
    const browser = this.secret()
    const challenge = await client.calculatePKCECodeChallenge(verifier)
    const now = this.d.clock.now()
    this.d.logins.purge(now - LOGIN_MAX_MS)
    this.d.logins.create({ id: stateId(state), verifier, nonce, created: now, data: { browser: browserId(browser) } })
    const o = this.d.config
    const extra = Object.entries(o.extra_login_params).filter(([k]) => !RESERVED_PARAMS.has(k))
    const scopes = new Set(['openid', ...(this.supportsScope(cfg, 'email') ? ['email'] : []), ...o.extra_login_scopes])
    const params: Record<string, string> = {
      ...Object.fromEntries(extra),
      redirect_uri: this.redirectUri,
      scope: [...scopes].join(' '),
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...(o.prompt_for_login ? { prompt: 'login' } : {}),
    }
    return { url: client.buildAuthorizationUrl(cfg, params).href, browser }
  }

  /**
   * GET /auth/callback: take the login of `state` (single use, at most LOGIN_MAX_MS old), exchange the code, map the
   * claims to a user id and a role that may log in, and keep them under a new one-time code (the answer) for the
   * console's exchange. Every refusal is an AppError (`api-login-error`, `api-insufficient-rights` or
   * `api-auth-transient-error`), recorded as a failed login.
   */
  async callback(query: URLSearchParams, who: LoginSource, browser: string | undefined): Promise<string> {
    let user: string | undefined
    try {
      const state = query.get('state')
      if (!state) throw refused('the callback has no state')
      const login = this.d.logins.take(stateId(state))
      if (!login || login.data.kind !== undefined || this.d.clock.now() - login.created > LOGIN_MAX_MS) throw refused('unknown, used or expired state')
      if (!browser || !sameHex(login.data.browser, browserId(browser))) throw refused('the login was started in another browser')
      const cfg = await this.provider()
      const tokens = await this.grant(cfg, query, state, login)
      const claims = tokens.claims() as ClaimSet | undefined
      if (!claims) throw refused('the provider sent no ID token')
      const sources = { idToken: claims, userInfo: () => this.userInfo(cfg, tokens.access_token, String(claims.sub)) }
      user = await applyClaimRules(this.d.config.id_claims, sources)
      if (user === undefined) throw refused('no id_claims rule gave a user id')
      const roleName = await applyClaimRules(this.d.config.role_claims, sources)
      if (roleName === undefined) throw refused(`no role_claims rule gave a role for user '${user}'`)
      this.roleForLogin(user, roleName)
      const code = this.secret()
      this.d.logins.create({ id: exchangeId(code), verifier: '', nonce: '', created: this.d.clock.now(), data: { kind: EXCHANGE, user, role: roleName, id_token_hint: tokens.id_token ?? '' } })
      return code
    } catch (e) {
      this.failed(user, e, who)
      throw e
    }
  }

  /**
   * POST /auth/login with the one-time code of a finished login (the `svc_login` cookie): take it (single use, at
   * most EXCHANGE_MAX_MS old), start the session, answer Krill's LoggedInUser.
   */
  exchange(code: string | undefined, who: LoginSource): LoggedInUser {
    let user: string | undefined
    try {
      const row = code ? this.d.logins.take(exchangeId(code)) : undefined
      if (!row || row.data.kind !== EXCHANGE || this.d.clock.now() - row.created > EXCHANGE_MAX_MS) throw refused('no finished login to complete (used or expired)')
      user = row.data.user!
      const role = row.data.role!
      this.roleForLogin(user, role) // the configuration may have changed since the callback
      const hint = row.data.id_token_hint
      const { secret } = this.d.sessions.start({ userId: user, provider: 'openid-connect', role, data: hint ? { id_token_hint: hint } : {} })
      this.d.audit.record({ kind: 'login', actor: { id: user, provider: 'openid-connect', source: who.source }, details: { role } })
      this.d.observe?.('openid-connect', 'success')
      return { token: secret, id: user, attributes: { role } }
    } catch (e) {
      this.failed(user, e, who)
      throw e
    }
  }

  /**
   * POST /auth/logout: end the session of `secret` and answer where the browser goes: the provider's end-session
   * endpoint (OpenID Connect RP-Initiated Logout 1.0) with the ID token as hint and svcd's console as the way back,
   * else the configured `logout_url`, else `/`. Never fails: an unknown or ended session answers `/`.
   */
  logout(secret: string | undefined, who: LoginSource): string {
    const s = secret === undefined ? undefined : this.d.sessions.end(secret)
    if (!s) return '/'
    this.d.audit.record({ kind: 'logout', actor: { id: s.userId, provider: s.provider, source: who.source } })
    if (s.provider !== 'openid-connect') return '/'
    const cfg = this.configuration
    const hint = s.data.id_token_hint
    if (cfg?.serverMetadata().end_session_endpoint && hint) {
      return client.buildEndSessionUrl(cfg, { id_token_hint: hint, post_logout_redirect_uri: `${this.d.serviceUri}ui/` }).href
    }
    return this.d.config.logout_url ?? '/'
  }

  //------------ Discovery ------------------------------------------------------------------------------------------

  /** The provider's configuration; one discovery attempt first when it is not known yet, then 401 if it still fails. */
  private async provider(): Promise<client.Configuration> {
    if (!this.configuration && (this.attempt || this.d.clock.now() - this.lastAttempt >= ON_DEMAND_MS)) await this.discover()
    if (!this.configuration) throw new AppError('api-auth-transient-error', { reason: 'the OpenID Connect provider has not answered discovery yet' })
    return this.configuration
  }

  /** One discovery attempt (joined when one runs); on failure the next is scheduled with back-off. */
  private discover(): Promise<boolean> {
    this.attempt ??= this.discoverOnce().finally(() => (this.attempt = undefined))
    return this.attempt
  }

  private async discoverOnce(): Promise<boolean> {
    this.lastAttempt = this.d.clock.now()
    const o = this.d.config
    // Krill accepts the discovery document's URL as the issuer: the issuer is what precedes the well-known path.
    const issuer = new URL(o.issuer_url.replace(/\/\.well-known\/openid-configuration\/?$/, ''))
    try {
      const options = o.insecure ? { execute: [client.allowInsecureRequests] } : undefined
      this.configuration = await client.discovery(issuer, o.client_id, o.client_secret, client.ClientSecretBasic(o.client_secret), options)
      this.d.clock.clear(this.timer)
      this.timer = undefined
      this.d.log.info('OpenID Connect: provider discovered', { issuer: this.configuration.serverMetadata().issuer })
      return true
    } catch (e) {
      this.d.log.warn('OpenID Connect: discovery failed, will retry', { issuer: issuer.href, error: (e as Error).message, retry_ms: this.retryMs })
      this.scheduleRetry()
      return false
    }
  }

  private scheduleRetry(): void {
    if (this.stopped || this.timer !== undefined) return
    const ms = this.retryMs
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2)
    this.timer = this.d.clock.setTimeout(() => {
      this.timer = undefined
      if (!this.stopped && !this.configuration) void this.discover()
    }, ms, { background: true })
  }

  //------------ Steps of a login -----------------------------------------------------------------------------------

  /** The code grant (RFC 6749 §4.1.3) with every check openid-client makes; any failure is a refused login. */
  private async grant(cfg: client.Configuration, query: URLSearchParams, state: string, login: StoredLogin) {
    const url = new URL(this.redirectUri)
    url.search = query.toString()
    try {
      return await client.authorizationCodeGrant(cfg, url, { pkceCodeVerifier: login.verifier, expectedNonce: login.nonce, expectedState: state, idTokenExpected: true })
    } catch (e) {
      throw refused(`the code grant failed: ${describe(e)}`)
    }
  }

  /** The user info claims (OpenID Connect Core §5.3), or undefined when the provider has no endpoint or fails. */
  private async userInfo(cfg: client.Configuration, accessToken: string, sub: string): Promise<ClaimSet | undefined> {
    if (!cfg.serverMetadata().userinfo_endpoint) return undefined
    try {
      return (await client.fetchUserInfo(cfg, accessToken, sub)) as ClaimSet
    } catch (e) {
      this.d.log.warn('OpenID Connect: the user info request failed', { error: describe(e) })
      return undefined
    }
  }

  /** Refuse a role that is not configured or does not hold `login` (Krill: 403 `api-insufficient-rights`). */
  private roleForLogin(user: string, roleName: string): void {
    const role = Object.hasOwn(this.d.roles, roleName) ? this.d.roles[roleName] : undefined
    if (!role) throw new AppError('api-insufficient-rights', { permission: 'login' }, { cause: new Error(`user '${user}' has the undefined role '${roleName}'`) })
    if (!roleAllows(role, 'login')) throw new AppError('api-insufficient-rights', { permission: 'login' }, { cause: new Error(`user '${user}' has role '${roleName}', which may not log in`) })
  }

  private failed(user: string | undefined, e: unknown, who: LoginSource): void {
    const label = e instanceof AppError ? e.label : 'sys-internal'
    const reason = e instanceof AppError ? (e.args.reason ?? (e.cause as Error | undefined)?.message ?? e.message) : describe(e)
    this.d.log.warn('OpenID Connect: login refused', { user, label, reason })
    this.d.audit.record({ kind: 'login-failed', success: false, actor: { id: user ?? 'unknown', provider: 'openid-connect', source: who.source }, details: { label, reason } })
    this.d.observe?.('openid-connect', 'failure')
  }

  private supportsScope(cfg: client.Configuration, scope: string): boolean {
    return cfg.serverMetadata().scopes_supported?.includes(scope) ?? false
  }

  /** 32 random bytes, base64url: a state, nonce, PKCE verifier or one-time code. */
  private secret(): string {
    return Buffer.from(this.d.random.bytes(32)).toString('base64url')
  }
}

/** Where a login under way is stored: the SHA-256 of its state. */
function stateId(state: string): string {
  return sha256Hex(Buffer.from(state, 'utf8'))
}

/** Where a finished login waits for its exchange: the SHA-256 of its one-time code, apart from every state's. */
function browserId(browser: string): string {
  return sha256Hex(Buffer.from(`svc_login_state:${browser}`, 'utf8'))
}

function sameHex(a: string | undefined, b: string): boolean {
  return a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

function exchangeId(code: string): string {
  return sha256Hex(Buffer.from(`svc_login:${code}`, 'utf8'))
}

function refused(reason: string): AppError {
  return new AppError('api-login-error', { reason })
}

/** An error's message and code (openid-client's errors say which check failed; they hold no secret). */
function describe(e: unknown): string {
  const err = e as { message?: string; code?: string; error?: string; error_description?: string }
  // oauth4webapi names the ID token claim whose check failed in its error's cause (possibly one wrapper down).
  let claim = ''
  for (let c = (e as { cause?: unknown }).cause, depth = 0; c && typeof c === 'object' && depth < 3; c = (c as { cause?: unknown }).cause, depth++) {
    const name = (c as { claim?: unknown }).claim
    if (typeof name === 'string') claim = ` (claim ${name})`
  }
  return [err.code, err.error, err.error_description ?? err.message].filter(Boolean).join(': ') + claim
}
