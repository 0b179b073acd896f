/**
 * The AuthProvider of `auth_type = "openid-connect"` (design.md §9; Krill's, krill:src/daemon/http/auth/providers/
 * openid_connect/): the HTTP side of app/access/oidc-service.ts. GET /auth/login answers the provider's authorization
 * URL; GET /auth/callback takes the provider's redirect back, sets the one-time `svc_login` cookie and sends the
 * browser to the console's `/ui/login/callback`, which POSTs `{"exchange": true}` to /auth/login for the session
 * (LoggedInUser). The session secret is never in a URL, and the browser is only ever sent to fixed paths of svcd or
 * to the provider's URLs from discovery: no parameter of a request chooses where it goes.
 */
import type { Context, Next } from 'koa'
import type { LoggedInUser } from '../api/status.js'
import type { OidcService } from '../app/access/oidc-service.js'
import { AppError } from '../errors.js'
import { bearer, type AdminTokenProvider, type AuthProvider } from './auth-provider.js'

/** The one-time cookie that carries a finished login from the callback to the console's exchange. */
export const LOGIN_COOKIE = 'svc_login'
/**
 * The cookie that binds a login under way to the browser that started it (GET /auth/login): the callback is refused
 * without it. SameSite=Lax, because the callback is a top-level navigation that comes from the provider's site.
 */
export const BROWSER_COOKIE = 'svc_login_state'
/** As long as a login under way lives (app/access/oidc-service.ts LOGIN_MAX_MS). */
const BROWSER_COOKIE_SECONDS = 600
/** Where the console finishes a login (src/ui/router.ts), and where it shows a failed one. */
const CONSOLE_CALLBACK = '/ui/login/callback'
const CONSOLE_LOGIN = '/ui/login'
/** The cookie's life: as long as the exchange may wait (app/access/oidc-service.ts EXCHANGE_MAX_MS). */
const COOKIE_SECONDS = 120

export class OidcProvider implements AuthProvider {
  readonly type = 'openid-connect' as const

  constructor(
    private readonly oidc: OidcService,
    /** The admin token logs in whatever the auth_type (Krill's CLI and web UI keep using it). */
    private readonly admin: AdminTokenProvider,
    /**
     * A budget per source for new logins (http/rate-limit.ts): each stores a row until its callback or for 10
     * minutes, and anyone may ask for one.
     */
    private readonly limit: (ctx: Context, next: Next) => Promise<void>,
  ) {}

  /** The provider's authorization URL, absolute (Krill's web client and the console redirect to it). */
  async loginUrl(ctx: Context): Promise<string> {
    await this.limit(ctx, async () => {})
    const { url, browser } = await this.oidc.loginUrl()
    ctx.append('Set-Cookie', `${BROWSER_COOKIE}=${browser}; Max-Age=${BROWSER_COOKIE_SECONDS}; Path=/auth; HttpOnly; SameSite=Lax${ctx.secure ? '; Secure' : ''}`)
    return url
  }

  /**
   * With a bearer token: the admin token's login. Otherwise the console's exchange: body `{"exchange": true}` and
   * the `svc_login` cookie, consumed (the cookie is cleared whatever the outcome).
   */
  login(ctx: Context): LoggedInUser {
    if (ctx.get('Authorization')) return this.admin.login(ctx)
    const code = ctx.cookies.get(LOGIN_COOKIE)
    clearCookie(ctx)
    if (!isExchangeBody(ctx.state.authBody)) throw new AppError('api-login-error', { reason: 'expected the body {"exchange": true} with the login cookie' })
    return this.oidc.exchange(code, { source: ctx.ip })
  }

  /** End the bearer's session; where the browser goes next (the provider's end-session URL, logout_url, or `/`). */
  logout(ctx: Context): string {
    const secret = ctx.get('Authorization') ? bearer(ctx) : undefined
    return this.oidc.logout(secret, { source: ctx.ip })
  }

  /** The provider's redirect back: on success the cookie and the console's callback page, else its login page. */
  async callback(ctx: Context): Promise<void> {
    ctx.set('Cache-Control', 'no-store')
    // A HEAD (a link checker, a prefetch) must not use up the login's state: only the browser's GET finishes it.
    if (ctx.method !== 'GET') return ctx.redirect(CONSOLE_LOGIN)
    try {
      const browser = ctx.cookies.get(BROWSER_COOKIE)
      ctx.append('Set-Cookie', `${BROWSER_COOKIE}=; Max-Age=0; Path=/auth; HttpOnly; SameSite=Lax${ctx.secure ? '; Secure' : ''}`)
      const code = await this.oidc.callback(new URLSearchParams(ctx.querystring), { source: ctx.ip }, browser)
      ctx.append('Set-Cookie', cookie(ctx, code, COOKIE_SECONDS))
      ctx.redirect(CONSOLE_CALLBACK)
    } catch (e) {
      if (!(e instanceof AppError)) throw e
      ctx.redirect(`${CONSOLE_LOGIN}?error=${encodeURIComponent(e.label)}`)
    }
  }
}

/**
 * `svc_login=<value>`: only for /auth (the exchange), never to scripts (HttpOnly), never on a request another site
 * starts (SameSite=Strict), over https only when svcd serves https.
 */
function cookie(ctx: Context, value: string, maxAge: number): string {
  return `${LOGIN_COOKIE}=${value}; Max-Age=${maxAge}; Path=/auth; HttpOnly; SameSite=Strict${ctx.secure ? '; Secure' : ''}`
}

function clearCookie(ctx: Context): void {
  ctx.append('Set-Cookie', cookie(ctx, '', 0))
}

/** The body of the console's exchange: JSON `{"exchange": true}`. */
function isExchangeBody(body: unknown): boolean {
  if (!(body instanceof Uint8Array) || body.length === 0) return false
  try {
    const v = JSON.parse(Buffer.from(body).toString('utf8')) as unknown
    return typeof v === 'object' && v !== null && (v as { exchange?: unknown }).exchange === true
  } catch {
    return false
  }
}
