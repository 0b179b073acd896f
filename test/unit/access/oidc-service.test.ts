/**
 * The OpenID Connect relying party (app/access/oidc-service.ts) in-process, against a real provider (oidc-provider on
 * loopback, test/helpers/oidc-op.ts) and the real SQLite stores, with svcd's time on a fake clock: discovery retried
 * with back-off while the provider is down, the 10-minute life of a login under way and the 120-second life of a
 * finished one, roles that are refused (undefined, or without `login`), and the logout answers.
 */
import t, { type Test } from 'tap'
import { DEFAULT_ROLES, expandPermissions, type Role } from '../../../src/api/access.js'
import { AuditService } from '../../../src/app/access/audit-service.js'
import { EXCHANGE_MAX_MS, LOGIN_MAX_MS, OidcService } from '../../../src/app/access/oidc-service.js'
import { SessionService } from '../../../src/app/access/session-service.js'
import { systemRandom } from '../../../src/clock.js'
import type { ClaimRule, OidcConfig } from '../../../src/config-auth.js'
import { AppError } from '../../../src/errors.js'
import { silentLogger } from '../../../src/log.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { authorizeAt, startOp, type TestOp } from '../../helpers/oidc-op.js'

const SERVICE = 'https://localhost:3000/'
const ROLES: Record<string, Role> = { ...DEFAULT_ROLES, watcher: { name: 'watcher', permissions: expandPermissions(['ca-read']) } }

function build(t: Test, op: TestOp, over: Partial<OidcConfig> = {}) {
  const db = Db.open(':memory:')
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const clock = new FakeClock(Date.now())
  const sessions = new SessionService({ store: stores.sessions, clock, random: systemRandom, idleSeconds: 1800, maxSeconds: 43200 })
  const audit = new AuditService({ store: stores.audit, clock })
  const config: OidcConfig = {
    issuer_url: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, extra_login_scopes: ['groups'], extra_login_params: {}, prompt_for_login: false,
    logout_url: undefined, insecure: true, id_claims: [{ claim: 'email' }], role_claims: [{ claim: 'groups', match: '^rpki-admins$', subst: 'admin' }, { subst: 'readonly' }], ...over,
  }
  const oidc = new OidcService({ config, serviceUri: SERVICE, logins: stores.logins, sessions, roles: ROLES, audit, clock, random: systemRandom, log: silentLogger() })
  t.teardown(() => oidc.stop())
  return { oidc, clock, db, sessions, audit }
}

const who = { source: '127.0.0.1' }

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (e) {
    if (e instanceof AppError) return e.label
    throw e
  }
  return 'not refused'
}

/** The browser secret of each login started here, by its state (what the browser's cookie holds). */
const browsers = new Map<string, string>()

/** A new login: its authorization URL; the browser secret is kept for the callback. */
async function loginUrl(oidc: OidcService): Promise<string> {
  const { url, browser } = await oidc.loginUrl()
  browsers.set(new URL(url).searchParams.get('state')!, browser)
  return url
}

/** The provider's redirect back for a new login as `account`. */
async function callbackQuery(op: TestOp, oidc: OidcService, account: string): Promise<URLSearchParams> {
  return (await authorizeAt(op, await loginUrl(oidc), account)).searchParams
}

/** The callback, from the browser that started the login. */
function callback(oidc: OidcService, q: URLSearchParams): Promise<string> {
  return oidc.callback(q, who, browsers.get(q.get('state') ?? ''))
}

t.test('discovery: svcd waits for a provider that is down, retrying with back-off on its clock', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE, noListen: true })
  const { oidc, clock } = build(t, op)
  oidc.start()
  t.equal(await refusal(loginUrl(oidc)), 'api-auth-transient-error', 'a login while the provider is down: 401')
  t.notOk(oidc.ready())
  const first = clock.nextDue()
  t.equal(first, clock.now() + 1000, 'the first retry after a second')
  await clock.advance(1000)
  await refusal(loginUrl(oidc)) // joins the retry the timer started, which fails too
  t.equal(clock.nextDue(), clock.now() + 2000, 'then after two seconds')
  await op.listen()
  await clock.advance(2000)
  const url = await loginUrl(oidc) // joins the retry that finds the provider
  t.ok(oidc.ready(), 'discovered')
  t.ok(url.startsWith(`${op.issuer}/auth?`))
  t.equal(clock.pending(), 0, 'no retry left once discovered')
})

t.test('a login under way lives 10 minutes; a finished one 120 seconds; each is used once', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE })
  const { oidc, clock, db } = build(t, op)
  oidc.start()
  const late = await callbackQuery(op, oidc, 'bob@example.com')
  await clock.advance(LOGIN_MAX_MS + 1)
  t.equal(await refusal(callback(oidc, late)), 'api-login-error', 'the callback came back too late')

  const code = await callback(oidc, await callbackQuery(op, oidc, 'bob@example.com'))
  await clock.advance(EXCHANGE_MAX_MS + 1)
  t.equal(await refusal(() => oidc.exchange(code, who)), 'api-login-error', 'the exchange came too late')

  const fresh = await callback(oidc, await callbackQuery(op, oidc, 'alice@example.com'))
  const user = oidc.exchange(fresh, who)
  t.same({ id: user.id, attributes: user.attributes }, { id: 'alice@example.com', attributes: { role: 'admin' } })
  t.equal(await refusal(() => oidc.exchange(fresh, who)), 'api-login-error', 'once')
  t.equal(await refusal(() => oidc.exchange(undefined, who)), 'api-login-error', 'no code')

  const pending = () => (db.prepare('SELECT count(*) AS n FROM auth_logins').get() as { n: number }).n
  t.equal(pending(), 0, 'every login taken is gone')
  await loginUrl(oidc)
  await clock.advance(LOGIN_MAX_MS + 1)
  await loginUrl(oidc)
  t.equal(pending(), 1, 'a new login purges the expired ones')
})

t.test('the callback counts only in the browser that started the login (login CSRF, RFC 9700 §4.7)', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE })
  const { oidc } = build(t, op)
  oidc.start()
  t.equal(await refusal(oidc.callback(await callbackQuery(op, oidc, 'bob@example.com'), who, undefined)), 'api-login-error', 'without the browser cookie')
  const q = await callbackQuery(op, oidc, 'bob@example.com')
  const other = await loginUrl(oidc)
  t.equal(await refusal(oidc.callback(q, who, browsers.get(new URL(other).searchParams.get('state')!))), 'api-login-error', "with another login's cookie")
  t.equal(await refusal(callback(oidc, q)), 'api-login-error', 'and the refused attempt used the state up')
  t.match(await callback(oidc, await callbackQuery(op, oidc, 'bob@example.com')), /^[A-Za-z0-9_-]{43}$/, 'the browser that started it finishes the login')
})

t.test('roles: an undefined role or one without login is refused; the audit says why, never a secret', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE })
  const cases: [string, ClaimRule[]][] = [
    ['an undefined role', [{ subst: 'superuser' }]],
    ['a role without login', [{ subst: 'watcher' }]],
  ]
  for (const [name, role_claims] of cases) {
    const { oidc, audit } = build(t, op, { role_claims })
    oidc.start()
    t.equal(await refusal(callback(oidc, await callbackQuery(op, oidc, 'bob@example.com'))), 'api-insufficient-rights', name)
    const failed = audit.list({ kind: 'login-failed', offset: 0, limit: 10, order: 'asc' }).records
    t.equal(failed.length, 1)
    t.same({ actor: failed[0]!.actor, provider: failed[0]!.provider, source: failed[0]!.source, label: failed[0]!.details.label }, { actor: 'bob@example.com', provider: 'openid-connect', source: '127.0.0.1', label: 'api-insufficient-rights' })
  }
  const { oidc } = build(t, op, { id_claims: [{ claim: 'no-such-claim' }] })
  oidc.start()
  t.equal(await refusal(callback(oidc, await callbackQuery(op, oidc, 'bob@example.com'))), 'api-login-error', 'no user id: refused')
})

t.test('the authorization request: prompt=login, extra params that cannot override svcd’s own', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE })
  const { oidc } = build(t, op, { prompt_for_login: true, extra_login_params: { ui_locales: 'nl', redirect_uri: 'https://evil.example/', state: 'fixed' } })
  oidc.start()
  const p = new URL(await loginUrl(oidc)).searchParams
  t.equal(p.get('prompt'), 'login')
  t.equal(p.get('ui_locales'), 'nl')
  t.same(p.getAll('redirect_uri'), [`${SERVICE}auth/callback`], 'svcd’s redirect_uri only')
  t.not(p.get('state'), 'fixed')
  t.equal(p.getAll('state').length, 1)
})

t.test('logout: the end-session URL, logout_url without an ID token, / for other sessions', async (t) => {
  const op = await startOp(t, { serviceUri: SERVICE })
  const { oidc, sessions } = build(t, op, { logout_url: 'https://idp.example/logged-out' })
  oidc.start()
  const user = oidc.exchange(await callback(oidc, await callbackQuery(op, oidc, 'bob@example.com')), who)
  const end = new URL(oidc.logout(user.token, who))
  t.equal(end.origin + end.pathname, `${op.issuer}/session/end`, 'the provider’s end-session endpoint wins')
  t.equal(end.searchParams.get('post_logout_redirect_uri'), `${SERVICE}ui/`)
  t.equal(oidc.logout(user.token, who), '/', 'an ended session: nothing to end')
  const plain = sessions.start({ userId: 'x', provider: 'openid-connect', role: 'readonly' })
  t.equal(oidc.logout(plain.secret, who), 'https://idp.example/logged-out', 'no ID token to hint with: logout_url')
  const other = sessions.start({ userId: 'joe', provider: 'config-file', role: 'readonly' })
  t.equal(oidc.logout(other.secret, who), '/')
  t.equal(oidc.logout(undefined, who), '/')
})
