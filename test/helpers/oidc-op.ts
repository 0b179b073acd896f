/**
 * A real OpenID Connect provider for tests (issue 24): `oidc-provider` (a certified implementation) on 127.0.0.1 at
 * a free port, over http, with real discovery, a JWKS of a fresh RSA key, signed ID tokens, PKCE required (S256), user
 * info and RP-initiated logout. One client is registered for a svcd at `serviceUri` (redirect_uri
 * `<serviceUri>auth/callback`, post-logout `<serviceUri>ui/`). Two accounts: `alice@example.com` in group
 * `rpki-admins`, `bob@example.com` in group `noc`; the `groups` claim comes with the `groups` scope (from the user
 * info: oidc-provider keeps scope claims out of the ID token when an access token is issued).
 *
 * Its login page is a small form (`/interaction/<uid>`, field `login`: the account, no password) that finishes the
 * provider's login prompt; consent is implied for this first-party client. It stops at teardown.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import http from 'node:http'
import Provider from 'oidc-provider'
import { freePort, type TestLike } from './daemon.js'

export const ACCOUNTS: Readonly<Record<string, { email: string; groups: string[] }>> = {
  'alice@example.com': { email: 'alice@example.com', groups: ['rpki-admins'] },
  'bob@example.com': { email: 'bob@example.com', groups: ['noc'] },
}

export interface TestOp {
  issuer: string
  clientId: string
  clientSecret: string
  /** svcd's [auth_openidconnect] for this provider, with the role rules of the issue's example. */
  toml: string
  /** How many requests each endpoint path got (`/token`, `/me`, `/.well-known/openid-configuration`, …). */
  hits: Map<string, number>
  /** Stop listening (also done at teardown); start again on the same port with `listen`. */
  close(): Promise<void>
  listen(): Promise<void>
}

export interface OpOptions {
  /** svcd's service_uri (ends with `/`). */
  serviceUri: string
  /** Use this port (default: a free one). */
  port?: number
  /** Do not listen yet (a provider that is down when svcd starts). */
  noListen?: boolean
}

export async function startOp(t: TestLike, o: OpOptions): Promise<TestOp> {
  const port = o.port ?? (await freePort())
  const issuer = `http://127.0.0.1:${port}`
  const clientId = 'svc-test'
  const clientSecret = randomBytes(24).toString('base64url')
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: [`${o.serviceUri}auth/callback`], post_logout_redirect_uris: [`${o.serviceUri}ui/`],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    scopes: ['openid', 'email', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const a = ACCOUNTS[sub]
      return a && { accountId: sub, claims: () => ({ sub, email: a.email, email_verified: true, groups: a.groups }) }
    },
    // A first-party client: the scopes it asks for are granted without a consent page.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.session?.accountId
      if (!accountId || !ctx.oidc.client) return undefined
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId })
      grant.addOIDCScope('openid email groups')
      await grant.save()
      return grant
    },
  })
  const hits = new Map<string, number>()
  provider.use(async (ctx, next) => {
    hits.set(ctx.path, (hits.get(ctx.path) ?? 0) + 1)
    const m = /^\/interaction\/([^/]+)(\/login)?$/.exec(ctx.path)
    if (!m) return next()
    const details = await provider.interactionDetails(ctx.req, ctx.res)
    if (ctx.method === 'GET' && !m[2]) {
      ctx.type = 'html'
      ctx.body = loginPage(details.uid)
      return
    }
    if (ctx.method === 'POST' && m[2]) {
      const login = new URLSearchParams(await readBody(ctx.req)).get('login') ?? ''
      if (!Object.hasOwn(ACCOUNTS, login)) {
        ctx.status = 400
        ctx.type = 'html'
        ctx.body = loginPage(details.uid, 'unknown account')
        return
      }
      ctx.respond = false
      await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: login } }, { mergeWithLastSubmission: false })
      return
    }
    return next()
  })
  let server: http.Server | undefined
  const op: TestOp = {
    issuer,
    clientId,
    clientSecret,
    hits,
    toml: [
      '[auth_openidconnect]',
      `issuer_url = "${issuer}"`,
      `client_id = "${clientId}"`,
      `client_secret = "${clientSecret}"`,
      'insecure = true',
      'extra_login_scopes = ["groups"]',
      'id_claims = [{ claim = "email" }]',
      'role_claims = [{ claim = "groups", match = "^rpki-admins$", subst = "admin" }, { subst = "readonly" }]',
    ].join('\n'),
    listen: () =>
      new Promise((resolve, reject) => {
        server = http.createServer(provider.callback())
        server.once('error', reject)
        server.listen(port, '127.0.0.1', () => resolve())
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server) return resolve()
        const s = server
        server = undefined
        s.close(() => resolve())
        s.closeAllConnections()
      }),
  }
  t.teardown(() => op.close())
  if (!o.noListen) await op.listen()
  return op
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function loginPage(uid: string, problem?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head><body>
<h1>Sign in to the test provider</h1>${problem ? `<p role="alert">${problem}</p>` : ''}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
<label for="login">Account</label> <input id="login" name="login" autocomplete="username">
<button type="submit">Sign in</button>
</form></body></html>`
}

/**
 * A browser at the provider, by hand: follow the authorization URL's redirects with a cookie jar of the provider's
 * own, sign in as `account` on the login form, and stop at the first redirect that leaves the provider: svcd's
 * callback URL (with `code`, `state` and `iss`), returned as it is.
 */
export async function authorizeAt(op: TestOp, authorizationUrl: string, account: string): Promise<URL> {
  const jar = new Map<string, string>()
  let url = new URL(authorizationUrl)
  let init: RequestInit = {}
  for (let step = 0; step < 10; step++) {
    if (url.origin !== new URL(op.issuer).origin) return url
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } })
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair!.indexOf('=')
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url)
      init = {}
      continue
    }
    const body = await res.text()
    const form = /<form method="post" action="([^"]+)"/.exec(body)
    if (res.status !== 200 || !form) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${body.slice(0, 300)}`)
    url = new URL(form[1]!, url)
    init = { method: 'POST', body: new URLSearchParams({ login: account }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } }
  }
  throw new Error('too many redirects at the provider')
}
