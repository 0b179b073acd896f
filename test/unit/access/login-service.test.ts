/**
 * Logging in and out (src/app/access/login-service.ts) over the real SQLite stores, a fake clock and the real scrypt
 * (counted): a login starts a session the access service knows; a wrong password and an unknown user get the same
 * 401; a role without `login` a 403; beyond the limits a 429 without any scrypt run; every login, failure and logout
 * is in the audit trail and never with the password; what /metrics counts.
 */
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEFAULT_ROLES, expandPermissions } from '../../../src/api/access.js'
import { AccessService } from '../../../src/app/access/access-service.js'
import { AuditService } from '../../../src/app/access/audit-service.js'
import { ConfigUsers } from '../../../src/app/access/config-users.js'
import { LoginLimiter } from '../../../src/app/access/login-limiter.js'
import { LoginService, type LoginOutcome } from '../../../src/app/access/login-service.js'
import { SessionService } from '../../../src/app/access/session-service.js'
import { krillPasswordHash, scryptKdf, type Kdf } from '../../../src/crypto/password-hash.js'
import { AppError } from '../../../src/errors.js'
import { addressSource } from '../../../src/resources/address-source.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock, FakeRandom } from '../../helpers/fake-clock.js'

const ADMIN = 'the-admin-token-0123456789'
const SALT = Buffer.alloc(16, 3)

async function setup(t: Test) {
  const db = Db.open(join(tempDir(t, 'svc-logins-'), 'svcd.db'))
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const clock = new FakeClock(1_700_000_000_000)
  const roles = { ...DEFAULT_ROLES, viewer: { name: 'viewer', permissions: expandPermissions(['ca-list', 'ca-read']) } }
  const sessions = new SessionService({ store: stores.sessions, clock, random: new FakeRandom(), idleSeconds: 600, maxSeconds: 3600 })
  const access = new AccessService({ adminToken: ADMIN, roles, sessions })
  const audit = new AuditService({ store: stores.audit, clock })
  let scrypts = 0
  const kdf: Kdf = (i, s) => (scrypts++, scryptKdf(i, s))
  const entry = async (id: string, role: string) => ({ role, password_hash: (await krillPasswordHash(id, 'secret-pw', SALT)).toString('hex'), salt: SALT.toString('hex') })
  const users = new ConfigUsers({ users: { joe: await entry('joe', 'readonly'), rw: await entry('rw', 'readwrite'), vic: await entry('vic', 'viewer') }, roles, kdf })
  const observed: [string, LoginOutcome][] = []
  const logins = new LoginService({ sessions, access, audit, limiter: new LoginLimiter({ clock }), users, sourceOf: addressSource, observe: (p, o) => observed.push([p, o]) })
  const auditRows = (kind?: string) => audit.list({ ...(kind ? { kind } : {}), offset: 0, limit: 1000, order: 'asc' }).records
  return { db, clock, access, logins, observed, auditRows, scrypts: () => scrypts }
}

/** The AppError a promise (or a call) fails with. */
async function refusal(f: () => unknown): Promise<AppError> {
  try {
    await f()
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('not refused')
}

t.test('a login starts a session the access service knows; logout ends it; both audited, never the password', async (t) => {
  const { db, access, logins, observed, auditRows } = await setup(t)
  const user = await logins.password('joe', 'secret-pw', { ip: '192.0.2.7' })
  t.same({ id: user.id, attributes: user.attributes }, { id: 'joe', attributes: { role: 'readonly' } })
  t.match(user.token, /^svcs_/)
  const actor = access.authenticate(user.token)
  t.same(actor && [actor.id, actor.provider, actor.role.name], ['joe', 'config-file', 'readonly'])
  logins.logout(user.token, { ip: '192.0.2.7' })
  t.equal(access.authenticate(user.token), undefined, 'ended at once')
  t.doesNotThrow(() => logins.logout(user.token, { ip: '192.0.2.7' }), 'a second logout of the same session: nothing to end, no error')
  t.doesNotThrow(() => logins.logout('svcs_unknown', { ip: undefined }), 'an unknown session')
  t.doesNotThrow(() => logins.logout(undefined, { ip: undefined }), 'no secret at all')
  const rows = auditRows()
  t.same(rows.map((r) => [r.kind, r.actor, r.provider, r.source, r.success]), [['login', 'joe', 'config-file', '192.0.2.7', true], ['logout', 'joe', 'config-file', '192.0.2.7', true]])
  const dump = JSON.stringify(db.prepare('SELECT * FROM audit_log').all())
  t.notMatch(dump, /secret-pw/, 'the password is nowhere in the audit table')
  t.notMatch(dump, new RegExp(user.token.slice(5)), 'nor the session secret')
  t.same(observed, [['config-file', 'success']])
})

t.test('a wrong password and an unknown user: the same 401, audited with the name tried; a role without login: 403', async (t) => {
  const { logins, observed, auditRows, scrypts } = await setup(t)
  const before = scrypts()
  const wrong = await refusal(() => logins.password('joe', 'nope', { ip: '192.0.2.7' }))
  const unknown = await refusal(() => logins.password('nobody', 'secret-pw', { ip: '192.0.2.7' }))
  t.equal(scrypts() - before, 4, 'two scrypt runs each, known user or not')
  t.same([wrong.status, wrong.label, wrong.message], [401, 'api-invalid-credentials', 'Invalid credentials: incorrect credentials'])
  t.same([unknown.status, unknown.label, unknown.message, unknown.args], [wrong.status, wrong.label, wrong.message, wrong.args], 'indistinguishable')
  const noLogin = await refusal(() => logins.password('vic', 'secret-pw', { ip: '192.0.2.7' }))
  t.same([noLogin.status, noLogin.label, noLogin.args], [403, 'api-insufficient-rights', { permission: 'login' }], 'viewer may not log in')
  const rows = auditRows('login-failed')
  t.same(rows.map((r) => [r.actor, r.provider, r.success, r.details]), [['joe', 'config-file', false, { reason: 'invalid-credentials' }], ['nobody', 'config-file', false, { reason: 'invalid-credentials' }], ['vic', 'config-file', false, { reason: 'no-login-permission' }]])
  t.notMatch(JSON.stringify(rows), /nope|secret-pw/, 'no password tried is recorded')
  t.same(observed, [['config-file', 'failure'], ['config-file', 'failure'], ['config-file', 'failure']])
  const long = 'x'.repeat(5000)
  await refusal(() => logins.password(long, 'p', { ip: '192.0.2.8' }))
  t.ok(auditRows('login-failed').at(-1)!.actor.length <= 130, 'a huge user name is cut short in the audit trail')
})

t.test('5 failures for a user, 10 from a source: then 429 with no scrypt run, until the window moves on', async (t) => {
  const { clock, logins, observed, scrypts, auditRows } = await setup(t)
  for (let i = 0; i < 5; i++) await refusal(() => logins.password('joe', `guess${i}`, { ip: `198.51.100.${i}` }))
  const before = scrypts()
  const limited = await refusal(() => logins.password('joe', 'secret-pw', { ip: '203.0.113.1' }))
  t.same([limited.status, limited.label, limited.args], [429, 'api-rate-limited-login', { retry_after: '60' }], 'joe is held back, even with the right password from elsewhere')
  t.equal(scrypts(), before, 'refused before any hashing')
  t.ok((await logins.password('rw', 'secret-pw', { ip: '203.0.113.1' })).token, 'another user logs in from there')
  t.equal(auditRows('login-failed').length, 5, 'a refusal by the limit is counted in /metrics, not written to the audit trail')
  t.same(observed.filter(([, o]) => o === 'rate-limited'), [['config-file', 'rate-limited']])

  // From one source (an IPv6 /64), ten failures over many user names.
  for (let i = 0; i < 10; i++) await refusal(() => logins.password(`u${i}`, 'x', { ip: `2001:db8:1:2::${i + 1}` }))
  const bySource = await refusal(() => logins.password('rw', 'secret-pw', { ip: '2001:db8:1:2:ffff::1' }))
  t.equal(bySource.label, 'api-rate-limited-login', 'another address of the same /64 is the same source')
  t.ok((await logins.password('rw', 'secret-pw', { ip: '2001:db8:1:3::1' })).token, 'the next /64 is not')
  await clock.advance(60_000)
  t.ok((await logins.password('joe', 'secret-pw', { ip: '203.0.113.1' })).token, 'a minute later joe logs in')
  t.ok((await logins.password('rw', 'secret-pw', { ip: '2001:db8:1:2::1' })).token, 'and the /64 may try again')
})

t.test('the admin token logs in (its own secret is the session) and is rate-limited per source when wrong', async (t) => {
  const { logins, observed, auditRows } = await setup(t)
  t.same(logins.adminToken(ADMIN, { ip: '127.0.0.1' }), { token: ADMIN, id: 'admin-token', attributes: { role: 'admin' } })
  for (let i = 0; i < 10; i++) t.equal((await refusal(() => logins.adminToken(`${ADMIN}${i}`, { ip: '127.0.0.1' }))).label, 'api-invalid-credentials')
  t.equal((await refusal(() => logins.adminToken(ADMIN, { ip: '127.0.0.1' }))).label, 'api-rate-limited-login', 'guessing from one source stops it')
  t.ok(logins.adminToken(ADMIN, { ip: '127.0.0.2' }).token, 'not other sources')
  logins.logout(ADMIN, { ip: '127.0.0.2' })
  t.same(auditRows().map((r) => [r.kind, r.actor, r.provider]).filter(([k]) => k !== 'login-failed'), [['login', 'admin-token', 'admin-token'], ['login', 'admin-token', 'admin-token'], ['logout', 'admin-token', 'admin-token']])
  t.notMatch(JSON.stringify(auditRows()), new RegExp(ADMIN), 'no token in the audit trail')
  t.same(observed.filter(([, o]) => o !== 'failure'), [['admin-token', 'success'], ['admin-token', 'rate-limited'], ['admin-token', 'success']])
})
