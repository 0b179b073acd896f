/**
 * OpenID Connect logins end to end (issue 24): a real provider (oidc-provider, test/helpers/oidc-op.ts) and a real
 * svcd with `auth_type = "openid-connect"`, driven over HTTP only, following the redirects by hand:
 *
 *   svcd GET /auth/login ──► provider /auth (PKCE S256, state, nonce) ──► sign in ──► svcd GET /auth/callback
 *     ──► 302 /ui/login/callback + one-time cookie svc_login ──► svcd POST /auth/login {"exchange": true} ──► session
 *
 * alice (group rpki-admins) becomes `admin`, bob (group noc) `readonly` by the role rules; svcc works with bob's
 * session. Every tampering (state, code, PKCE verifier, nonce, the cookie exchange) is refused with nothing created;
 * the logout answers the provider's end-session URL and the session is dead.
 */
import { join } from 'node:path'
import t from 'tap'
import { Db } from '../../src/store/db.js'
import { sha256Hex } from '../../src/crypto/digest.js'
import { freePort, httpsRequest, startDaemon, svcc, type Daemon } from '../helpers/daemon.js'
import { authorizeAt, startOp } from '../helpers/oidc-op.js'

const port = await freePort()
const serviceUri = `https://localhost:${port}/`
const op = await startOp(t, { serviceUri })
const d = await startDaemon(t, { port, toml: `auth_type = "openid-connect"\n${op.toml}` })
const db = Db.openSecondary(join(d.dataDir, 'svcd.db'))
t.teardown(() => db.close())

const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
const stateOf = (u: string | URL) => new URL(u).searchParams.get('state')!

/** The `svc_login_state` cookie each login's browser got with its authorization URL, by state. */
const browsers = new Map<string, string>()

/** GET /auth/login: the provider's authorization URL (the browser cookie it sets is kept for the callback). */
async function authorizationUrl(): Promise<string> {
  const r = await httpsRequest(d.url + 'auth/login')
  if (r.status !== 200) throw new Error(`GET /auth/login: ${r.status} ${r.body}`)
  const set = ([] as string[]).concat(r.headers['set-cookie'] ?? []).map((c) => /^svc_login_state=([^;]+);/.exec(c)).find(Boolean)
  if (set) browsers.set(stateOf(r.body), set[1]!)
  return r.body
}

/** svcd's answer to the provider's redirect back: where it sends the browser, and the one-time cookie if any. */
async function callback(u: URL | string, browser = browsers.get(new URL(u).searchParams.get('state') ?? '')): Promise<{ status: number; location: string; cookie: string | undefined; setCookie: string[] }> {
  const url = new URL(u)
  const r = await httpsRequest(d.url + 'auth/callback' + url.search, browser ? { headers: { cookie: `svc_login_state=${browser}` } } : {})
  const setCookie = ([] as string[]).concat(r.headers['set-cookie'] ?? [])
  const m = setCookie.map((c) => /^svc_login=([^;]+);/.exec(c)).find(Boolean)
  return { status: r.status, location: String(r.headers.location), cookie: m?.[1], setCookie }
}

/** The console's exchange: POST /auth/login {"exchange": true} with the cookie. */
function exchange(cookie: string | undefined, body = '{"exchange":true}') {
  return httpsRequest(d.url + 'auth/login', { method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie: `svc_login=${cookie}` } : {}) }, body })
}

/** A whole login as `account`: the session answer. */
async function login(account: string): Promise<{ token: string; id: string; attributes: { role: string } }> {
  const cb = await callback(await authorizeAt(op, await authorizationUrl(), account))
  if (!cb.cookie) throw new Error(`the callback did not finish the login: ${cb.location}`)
  const r = await exchange(cb.cookie)
  if (r.status !== 200) throw new Error(`exchange: ${r.status} ${r.body}`)
  return JSON.parse(r.body)
}

const api = (token: string, path: string, o: { method?: string; body?: string } = {}) =>
  httpsRequest(d.url + path, { method: o.method ?? 'GET', headers: { authorization: `Bearer ${token}`, ...(o.body ? { 'content-type': 'application/json' } : {}) }, ...(o.body ? { body: o.body } : {}) })

const REFUSED = '/ui/login?error=api-login-error'

t.test('the authorization request: discovery, PKCE S256, state, nonce, scopes, svcd’s redirect_uri', async (t) => {
  const u = new URL(await authorizationUrl())
  t.equal(u.origin + u.pathname, `${op.issuer}/auth`, "the provider's authorization endpoint, from discovery")
  const p = u.searchParams
  t.equal(p.get('response_type'), 'code')
  t.equal(p.get('client_id'), op.clientId)
  t.equal(p.get('redirect_uri'), `${serviceUri}auth/callback`)
  t.equal(p.get('code_challenge_method'), 'S256')
  t.match(p.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/)
  t.match(p.get('state'), /^[A-Za-z0-9_-]{43}$/)
  t.match(p.get('nonce'), /^[A-Za-z0-9_-]{43}$/)
  t.same(p.get('scope')!.split(' ').sort(), ['email', 'groups', 'openid'])
  const row = db.prepare('SELECT verifier, nonce FROM auth_logins WHERE id = ?').get(sha256Hex(Buffer.from(p.get('state')!))) as { verifier: string; nonce: string } | undefined
  t.ok(row, 'the login under way is stored under the hash of its state')
  t.equal(row?.nonce, p.get('nonce'))
  t.not(row?.verifier, p.get('code_challenge'), 'the verifier stays in svcd')
})

t.test('a login finishes only in the browser that started it (login CSRF)', async (t) => {
  const page = await httpsRequest(d.url + 'auth/login')
  t.match(String(page.headers['set-cookie']), /svc_login_state=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/auth; HttpOnly; SameSite=Lax; Secure/, 'GET /auth/login binds the login to this browser')
  const sessions = count('auth_sessions')
  const theirs = await authorizeAt(op, await authorizationUrl(), 'bob@example.com')
  const r = await callback(theirs, '')
  t.same([r.status, r.location, r.cookie], [302, '/ui/login?error=api-login-error', undefined], "someone else's callback URL in a browser without the cookie: refused")
  const other = await authorizeAt(op, await authorizationUrl(), 'bob@example.com')
  const mixed = await callback(other, browsers.get(stateOf(await authorizationUrl())))
  t.equal(mixed.cookie, undefined, "with another login's cookie: refused")
  t.equal(count('auth_sessions'), sessions, 'no session was started')
})

t.test('alice (rpki-admins) logs in as admin; the session works and may write', async (t) => {
  const sessions = count('auth_sessions')
  const cbUrl = await authorizeAt(op, await authorizationUrl(), 'alice@example.com')
  const cb = await callback(cbUrl)
  t.equal(cb.status, 302)
  t.equal(cb.location, '/ui/login/callback', 'a fixed path of the console')
  t.match(cb.setCookie.join('\n'), /svc_login=[A-Za-z0-9_-]{43}; Max-Age=120; Path=\/auth; HttpOnly; SameSite=Strict; Secure/)
  t.match(cb.setCookie.join('\n'), /svc_login_state=; Max-Age=0; Path=\/auth; HttpOnly; SameSite=Lax; Secure/, 'the browser cookie is cleared')
  t.equal(count('auth_sessions'), sessions, 'no session before the exchange')
  const r = await exchange(cb.cookie)
  t.equal(r.status, 200, r.body)
  t.equal(r.headers['cache-control'], 'no-store')
  t.match(String(r.headers['set-cookie']), /svc_login=; Max-Age=0/, 'the cookie is cleared')
  const user = JSON.parse(r.body)
  t.same(user.attributes, { role: 'admin' })
  t.equal(user.id, 'alice@example.com', 'id_claims: the email (a user info claim)')
  t.match(user.token, /^svcs_/)
  t.equal((await api(user.token, 'api/v1/cas')).status, 200)
  const add = await api(user.token, 'api/v1/cas', { method: 'POST', body: '{"handle":"alice-ca"}' })
  t.equal(add.status, 200, add.body)
  t.ok(op.hits.get('/me'), 'the groups came from the user info endpoint')
})

t.test('how long a login takes (measured, not asserted)', async (t) => {
  const ms: Record<string, number[]> = { 'GET /auth/login': [], 'GET /auth/callback': [], 'POST /auth/login (exchange)': [] }
  const timed = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    const start = performance.now()
    const r = await f()
    ms[name]!.push(performance.now() - start)
    return r
  }
  for (let i = 0; i < 5; i++) {
    const url = await timed('GET /auth/login', authorizationUrl)
    const back = await authorizeAt(op, url, 'bob@example.com')
    const cb = await timed('GET /auth/callback', () => callback(back))
    const r = await timed('POST /auth/login (exchange)', () => exchange(cb.cookie))
    t.equal(r.status, 200)
    await api(JSON.parse(r.body).token, 'auth/logout', { method: 'POST' })
  }
  for (const [name, v] of Object.entries(ms)) t.comment(`${name}: ${v.map((x) => x.toFixed(0)).join(', ')} ms`)
})

t.test('bob (noc) is readonly: reads work, a write is 403; svcc with his session token', async (t) => {
  const bob = await login('bob@example.com')
  t.same(bob.attributes, { role: 'readonly' })
  t.equal(bob.id, 'bob@example.com')
  const list = await api(bob.token, 'api/v1/cas')
  t.equal(list.status, 200)
  const add = await api(bob.token, 'api/v1/cas', { method: 'POST', body: '{"handle":"bob-ca"}' })
  t.equal(add.status, 403, add.body)
  t.equal(JSON.parse(add.body).label, 'api-insufficient-rights')
  const env = { SVC_CLI_SERVER: d.url }
  const ls = await svcc(['--token', bob.token, 'list'], { env })
  t.equal(ls.code, 0, ls.stderr)
  t.match(ls.stdout, /alice-ca/)
  const w = await svcc(['--token', bob.token, 'add', '--ca', 'bob-ca'], { env })
  t.equal(w.code, 1, 'svcc: the server refused')
  t.match(w.stderr, /api-insufficient-rights|Insufficient rights/)
  t.notMatch((await svcc(['--token', bob.token, 'list'], { env })).stdout, /bob-ca/, 'nothing was created')
})

t.test('logout: the end-session URL with the ID token as hint; the session is dead', async (t) => {
  const bob = await login('bob@example.com')
  const r = await api(bob.token, 'auth/logout', { method: 'POST' })
  t.equal(r.status, 200)
  const u = new URL(r.body)
  t.equal(u.origin + u.pathname, `${op.issuer}/session/end`, "the provider's end_session_endpoint")
  t.equal(u.searchParams.get('post_logout_redirect_uri'), `${serviceUri}ui/`)
  t.match(u.searchParams.get('id_token_hint'), /^ey[\w-]+\.[\w-]+\.[\w-]+$/, 'the ID token as hint')
  t.equal((await api(bob.token, 'api/v1/cas')).status, 401, 'the session is dead')
  const end = await fetch(u, { redirect: 'manual' })
  t.equal(end.status, 200, 'the provider accepts the logout request (its confirmation page)')
  await end.text()
  t.equal((await api(bob.token, 'auth/logout', { method: 'POST' })).body, '/', 'logging out twice: nothing to end')
})

t.test('tampering is refused and creates nothing', async (t) => {
  const sessions = count('auth_sessions')

  await t.test('a wrong state', async (t) => {
    const cb = new URL(await authorizeAt(op, await authorizationUrl(), 'alice@example.com'))
    cb.searchParams.set('state', 'A'.repeat(43))
    const r = await callback(cb)
    t.equal(r.location, REFUSED)
    t.equal(r.cookie, undefined)
  })

  await t.test('no state, no code, an error from the provider', async (t) => {
    for (const q of ['', '?code=abc', '?error=access_denied&state=x']) {
      const r = await callback(`${serviceUri}auth/callback${q}`)
      t.equal(r.location, REFUSED, q || 'nothing')
      t.equal(r.cookie, undefined)
    }
  })

  await t.test('a replayed state (and so a replayed callback)', async (t) => {
    const cb = await authorizeAt(op, await authorizationUrl(), 'bob@example.com')
    const first = await callback(cb)
    t.ok(first.cookie, 'the first callback finishes the login')
    const again = await callback(cb)
    t.equal(again.location, REFUSED, 'its state was used')
    t.equal(again.cookie, undefined)
  })

  await t.test('a replayed code under a new state', async (t) => {
    const used = await authorizeAt(op, await authorizationUrl(), 'bob@example.com')
    t.ok((await callback(used)).cookie)
    const fresh = new URL(await authorizationUrl())
    const forged = new URL(used)
    forged.searchParams.set('state', stateOf(fresh))
    t.equal((await callback(forged)).location, REFUSED, 'the provider refuses a code used before')
  })

  await t.test('an altered or missing PKCE verifier: the provider refuses the code', async (t) => {
    for (const verifier of ['B'.repeat(43), '']) {
      const cb = await authorizeAt(op, await authorizationUrl(), 'bob@example.com')
      db.prepare('UPDATE auth_logins SET verifier = ? WHERE id = ?').run(verifier, sha256Hex(Buffer.from(stateOf(cb))))
      const r = await callback(cb)
      t.equal(r.location, REFUSED, verifier ? 'altered' : 'missing')
      t.equal(r.cookie, undefined)
    }
    t.match(d.output(), /PKCE|code_verifier|invalid_grant/, 'refused at the token endpoint')
  })

  await t.test("a nonce mismatch: another login's code, with that login's verifier, under this login's state", async (t) => {
    const mine = await authorizationUrl()
    const theirs = await authorizeAt(op, await authorizationUrl(), 'alice@example.com')
    // The attacker would need the other login's PKCE verifier too: give it to them, so that only the nonce is left.
    const v = db.prepare('SELECT verifier FROM auth_logins WHERE id = ?').get(sha256Hex(Buffer.from(stateOf(theirs)))) as { verifier: string }
    db.prepare('UPDATE auth_logins SET verifier = ? WHERE id = ?').run(v.verifier, sha256Hex(Buffer.from(stateOf(mine))))
    const forged = new URL(theirs)
    forged.searchParams.set('state', stateOf(mine))
    const r = await callback(forged)
    t.equal(r.location, REFUSED)
    t.equal(r.cookie, undefined)
    t.match(d.output(), /nonce/, 'refused by the ID token nonce check')
  })

  await t.test('the exchange: no cookie, a wrong body, a replay, a code used as a bearer token', async (t) => {
    const cb = await callback(await authorizeAt(op, await authorizationUrl(), 'alice@example.com'))
    t.ok(cb.cookie)
    t.equal((await api(cb.cookie!, 'api/v1/cas')).status, 401, 'the one-time code is no credential')
    t.equal((await exchange(undefined)).status, 401, 'no cookie')
    const wrongBody = await exchange(cb.cookie, '{"exchange":false}')
    t.equal(wrongBody.status, 401, 'a wrong body')
    t.equal(JSON.parse(wrongBody.body).label, 'api-login-error')
    const first = await exchange(cb.cookie)
    t.equal(first.status, 200, 'the exchange itself still works once')
    const replay = await exchange(cb.cookie)
    t.equal(replay.status, 401, 'a replay')
    t.equal(JSON.parse(replay.body).label, 'api-login-error')
    await api(JSON.parse(first.body).token, 'auth/logout', { method: 'POST' })
  })

  await t.test('a finished callback never exchanged makes no session', async (t) => {
    const before = count('auth_sessions')
    t.ok((await callback(await authorizeAt(op, await authorizationUrl(), 'bob@example.com'))).cookie)
    t.equal(count('auth_sessions'), before)
  })

  t.equal(count('auth_sessions'), sessions + 1, 'only the one exchange that was allowed made a session')
})

t.test('open redirects: no parameter chooses where the browser goes', async (t) => {
  for (const q of ['?state=x&code=y&redirect_uri=https://evil.example/', '?next=https://evil.example/&return_to=//evil.example']) {
    const r = await callback(`${serviceUri}auth/callback${q}`)
    t.equal(r.location, REFUSED, q)
  }
})

t.test('the audit names the logins, failures and logouts, never a secret', async (t) => {
  const rows = db.prepare("SELECT actor, provider, kind, success, details FROM audit_log WHERE kind IN ('login', 'login-failed', 'logout') ORDER BY seq").all() as { actor: string; provider: string; kind: string; success: number; details: string }[]
  t.ok(rows.some((r) => r.kind === 'login' && r.actor === 'alice@example.com' && r.provider === 'openid-connect'))
  t.ok(rows.some((r) => r.kind === 'login' && r.actor === 'bob@example.com'))
  t.ok(rows.some((r) => r.kind === 'logout' && r.actor === 'bob@example.com'))
  t.ok(rows.filter((r) => r.kind === 'login-failed' && r.success === 0).length >= 8, 'every refused callback and exchange')
  const text = JSON.stringify(rows)
  t.notMatch(text, /svcs_|ey[\w-]{20,}\.|code=|verifier/, 'no session secret, token or code')
  t.notMatch(text, new RegExp(op.clientSecret), 'no client secret')
  // /metrics counts them with the other providers' logins.
  const metrics = (await api(d.token, 'metrics')).body
  const count = (name: string) => Number(new RegExp(`^${name}\\{provider="openid-connect"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0)
  t.equal(count('svc_auth_logins_total'), rows.filter((r) => r.kind === 'login' && r.provider === 'openid-connect').length, 'logins counted')
  t.equal(count('svc_auth_login_failures_total'), rows.filter((r) => r.kind === 'login-failed' && r.provider === 'openid-connect').length, 'refusals counted')
})

t.test('new logins are rate-limited per source (each keeps a row for up to 10 minutes)', async (t) => {
  let status = 200
  let n = 0
  for (; n < 200 && status === 200; n++) status = (await httpsRequest(d.url + 'auth/login')).status
  t.equal(status, 429, `refused after ${n - 1} logins in a row`)
  t.ok(n - 1 <= 60, 'at most 60 a minute from one source')
  const r = await httpsRequest(d.url + 'auth/login')
  t.equal(JSON.parse(r.body).label, 'api-rate-limited')
  t.ok(Number(r.headers['retry-after']) >= 1, 'with Retry-After')
  t.ok(count('auth_logins') <= 80, 'the rows stay bounded')
})

t.test('a provider that is down at start: svcd starts, logins answer 401 until discovery succeeds', async (t) => {
  const port2 = await freePort()
  const op2 = await startOp(t, { serviceUri: `https://localhost:${port2}/`, noListen: true })
  const d2: Daemon = await startDaemon(t, { port: port2, toml: `auth_type = "openid-connect"\n${op2.toml}` })
  const down = await httpsRequest(d2.url + 'auth/login')
  t.equal(down.status, 401)
  t.equal(JSON.parse(down.body).label, 'api-auth-transient-error')
  t.equal((await httpsRequest(d2.url + 'api/v1/cas', { headers: { authorization: `Bearer ${d2.token}` } })).status, 200, 'the admin token works meanwhile')
  await op2.listen()
  const deadline = Date.now() + 60_000
  let up = down
  while (up.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250))
    up = await httpsRequest(d2.url + 'auth/login')
  }
  t.equal(up.status, 200, 'discovery succeeded once the provider answered')
  t.ok(up.body.startsWith(`${op2.issuer}/auth?`))
  await d2.stop()
})

