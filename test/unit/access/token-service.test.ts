/**
 * Scoped API tokens (src/app/access/token-service.ts) over the real SQLite stores, on a fake clock: the secret once
 * and only its hash stored; a token's role within its creator's; expiry; last_used written at most once a minute;
 * a config-file owner's current role bounding their tokens; revocation at once; listing and revoking by owner or
 * administrator; unknown ids and wrong secrets refused alike; audit records without the secret.
 */
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEFAULT_ROLES, type Actor, type Role } from '../../../src/api/access.js'
import { AccessService } from '../../../src/app/access/access-service.js'
import { AuditService } from '../../../src/app/access/audit-service.js'
import { SessionService } from '../../../src/app/access/session-service.js'
import { TOKEN_PREFIX, TokenService } from '../../../src/app/access/token-service.js'
import { actingAs } from '../../../src/app/shared/acting.js'
import { AppError } from '../../../src/errors.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock, FakeRandom } from '../../helpers/fake-clock.js'

const MIN = 60_000
const DAY = 86_400_000
const ca1Writer: Role = { name: 'ca1-writer', permissions: new Set(['login', 'ca-read', 'routes-read', 'routes-update']), cas: ['ca1'] }

function setup(t: Test) {
  const db = Db.open(join(tempDir(t, 'svc-tokens-'), 'svcd.db'))
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const clock = new FakeClock(Date.UTC(2026, 10, 1))
  const roles: Record<string, Role> = { ...DEFAULT_ROLES, 'ca1-writer': ca1Writer }
  const users: Record<string, string> = { 'joe@example.com': 'readwrite', 'ann@example.com': 'ca1-writer' }
  const audit = new AuditService({ store: stores.audit, clock })
  const tokens = new TokenService({ store: stores.tokens, clock, random: new FakeRandom(), audit, roles, configUserRole: (id) => users[id] })
  const sessions = new SessionService({ store: stores.sessions, clock, random: new FakeRandom(), idleSeconds: 600, maxSeconds: 3600 })
  const access = new AccessService({ adminToken: 'the-admin-token-0123456789', roles, sessions, apiTokens: (s) => tokens.authenticate(s) })
  const user = (id: string): Actor => ({ id, provider: 'config-file', role: roles[users[id]!]! })
  const admin = access.authenticate('the-admin-token-0123456789')!
  return { db, stores, clock, tokens, access, users, roles, user, admin }
}

const refused = (t: Test, f: () => unknown, label: string, args: Record<string, string> = {}, msg = label) => {
  try {
    f()
    t.fail(`${msg}: not refused`)
  } catch (e) {
    t.ok(e instanceof AppError, msg)
    t.match({ label: (e as AppError).label, args: (e as AppError).args }, { label, args }, msg)
  }
}

t.test('a token: its secret once, only its hash stored; the actor of its secret', async (t) => {
  const { db, tokens, access, user } = setup(t)
  const joe = user('joe@example.com')
  const made = actingAs(joe, () => tokens.create(joe, { name: 'ci', permissions: ['routes-update', 'read'], cas: ['ca1'] }))
  t.match(made.token, /^svct_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/, 'svct_<id>_<secret>')
  t.equal(made.token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + 16), made.id, 'the id is the public part')
  t.match(made, { name: 'ci', owner: 'joe@example.com', owner_provider: 'config-file', role: 'custom', cas: ['ca1'], last_used: null, revoked: null })
  t.same(made.permissions, ['ca-read', 'routes-read', 'routes-update', 'aspas-read', 'bgpsec-read', 'rta-read'], 'shortcuts expanded, in Krill order')
  t.equal(made.expires, new Date(Date.UTC(2026, 10, 1) + 90 * DAY).toISOString(), 'expires after 90 days by default')
  const secretPart = made.token.slice(TOKEN_PREFIX.length + 17)
  const rows = JSON.stringify(db.prepare('SELECT * FROM api_tokens').all()) + JSON.stringify(db.prepare('SELECT * FROM audit_log').all())
  t.notOk(rows.includes(secretPart), 'the secret is in no table')
  t.notOk(JSON.stringify(tokens.list(joe)).includes(secretPart), 'nor in the list')
  t.notOk('token' in tokens.list(joe)[0]!, 'the list has no secret field')
  const a = access.authenticate(made.token)!
  t.same({ id: a.id, provider: a.provider, token: a.token, role: a.role.name, cas: a.role.cas }, { id: 'joe@example.com', provider: 'api-token', token: 'ci', role: 'token:ci', cas: ['ca1'] })
  t.ok(a.role.permissions.has('routes-update') && !a.role.permissions.has('ca-create'))
  const audit = db.prepare("SELECT * FROM audit_log WHERE kind = 'token-add'").all() as { actor: string; details: string }[]
  t.equal(audit.length, 1, 'token-add audited')
  t.match(JSON.parse(audit[0]!.details), { name: 'ci', owner: 'joe@example.com', cas: ['ca1'], permissions: Array })
  t.equal(audit[0]!.actor, 'joe@example.com')
})

t.test('guessing: a wrong secret with a right id, random ids, other shapes are nobody', async (t) => {
  const { tokens, access, admin } = setup(t)
  const made = tokens.create(admin, { name: 'ci', role: 'readonly' })
  const id = made.id
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1)
  t.equal(access.authenticate(flip(made.token, made.token.length - 1)), undefined, 'the right id with a wrong secret')
  t.equal(access.authenticate(`svct_${'A'.repeat(16)}_${made.token.slice(-43)}`), undefined, 'the right secret under another id')
  t.equal(access.authenticate(`svct_${id}_${'A'.repeat(43)}`), undefined, 'a guessed secret')
  t.equal(access.authenticate(made.token + 'x'), undefined, 'one character longer')
  t.equal(access.authenticate(made.token.slice(0, -1)), undefined, 'one shorter')
  t.equal(access.authenticate(`svct_${id}`), undefined, 'the id alone')
  t.ok(access.authenticate(made.token), 'the token itself')
  // The same work for an unknown id as for a wrong secret: one lookup, one hash, one constant-time comparison.
  const wrong = flip(made.token, made.token.length - 1)
  const unknown = `svct_${'Q'.repeat(16)}_${made.token.slice(-43)}`
  const times: Record<'wrong' | 'unknown', number[]> = { wrong: [], unknown: [] }
  for (let i = 0; i < 4000; i++) {
    for (const [kind, s] of [['wrong', wrong], ['unknown', unknown]] as const) {
      const start = process.hrtime.bigint()
      access.authenticate(s)
      times[kind].push(Number(process.hrtime.bigint() - start))
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
  const [w, u] = [median(times.wrong), median(times.unknown)]
  t.comment(`authenticate median: wrong secret ${(w / 1000).toFixed(1)} µs, unknown id ${(u / 1000).toFixed(1)} µs`)
  t.ok(Math.abs(w - u) < Math.max(5_000, 0.3 * Math.min(w, u)), 'no difference in time to tell them apart')
})

t.test('within the creator: permissions, CAs, role names; tokens cannot make tokens', async (t) => {
  const { tokens, user, admin } = setup(t)
  const joe = user('joe@example.com') // readwrite
  const ann = user('ann@example.com') // ca1-writer, limited to ca1
  refused(t, () => tokens.create(joe, { name: 'x', permissions: ['ca-delete'] }), 'api-insufficient-rights', { permission: 'ca-delete' }, 'a permission the creator lacks')
  refused(t, () => tokens.create(joe, { name: 'x', role: 'admin' }), 'api-insufficient-rights', { permission: 'pub-admin' }, 'a role wider than the creator')
  refused(t, () => tokens.create(ann, { name: 'x', permissions: ['routes-update'], cas: ['ca2'] }), 'api-insufficient-rights', { ca: 'ca2' }, 'a CA the creator cannot see')
  refused(t, () => tokens.create(ann, { name: 'x', role: 'readonly' }), 'api-insufficient-rights', { permission: 'pub-list' }, 'readonly holds pub-list, ann does not')
  const limited = tokens.create(ann, { name: 'ann-ci', permissions: ['routes-update'] })
  t.same(limited.cas, ['ca1'], "without cas, a limited creator's token is limited as the creator")
  const named = tokens.create(ann, { name: 'ann-role', role: 'ca1-writer' })
  t.same([named.role, named.cas], ['ca1-writer', ['ca1']], "a named role's CAs")
  refused(t, () => tokens.create(admin, { name: 'x', role: 'ca1-writer', cas: ['ca2'] }), 'api-invalid-body', {}, "CAs outside the named role's")
  refused(t, () => tokens.create(joe, { name: 'x', role: 'nope' }), 'api-invalid-body', {}, 'an unknown role')
  refused(t, () => tokens.create(joe, { name: 'x', permissions: ['fly'] }), 'api-invalid-body', {}, 'an unknown permission')
  t.same(tokens.create(admin, { name: 'all', role: 'admin' }).cas, null, 'the admin token may give every permission on every CA')
  const t1 = tokens.create(joe, { name: 'mine', role: 'readonly' })
  const asToken = { id: joe.id, provider: 'api-token' as const, role: DEFAULT_ROLES.readonly, token: 'mine' }
  refused(t, () => tokens.create(asToken, { name: 'child', role: 'readonly' }), 'api-insufficient-rights', {}, 'an API token cannot create tokens')
  refused(t, () => tokens.revoke(asToken, t1.id), 'api-insufficient-rights', {}, 'nor revoke them')
  refused(t, () => tokens.list(asToken), 'api-insufficient-rights', {}, 'nor list them')
  refused(t, () => tokens.create(joe, { name: 'mine', role: 'readonly' }), 'api-token-duplicate', { name: 'mine', owner: 'joe@example.com' }, 'a name used by a live token of the owner')
  t.ok(tokens.create(ann, { name: 'mine', permissions: ['routes-read'] }), 'another owner may use the name')
})

t.test('expiry: in the future, at most 400 days; an expired token is nobody', async (t) => {
  const { clock, tokens, access, admin } = setup(t)
  const now = clock.now()
  refused(t, () => tokens.create(admin, { name: 'x', role: 'readonly', expires: new Date(now - 1000).toISOString() }), 'api-invalid-body', {}, 'in the past')
  refused(t, () => tokens.create(admin, { name: 'x', role: 'readonly', expires: new Date(now + 401 * DAY).toISOString() }), 'api-invalid-body', {}, 'beyond 400 days')
  const made = tokens.create(admin, { name: 'short', role: 'readonly', expires: new Date(now + 10 * MIN).toISOString() })
  t.ok(access.authenticate(made.token), 'live')
  await clock.advance(10 * MIN - 1)
  t.ok(access.authenticate(made.token), 'live until its expiry')
  await clock.advance(1)
  t.equal(access.authenticate(made.token), undefined, 'expired')
  t.ok(tokens.create(admin, { name: 'short', role: 'readonly' }), "an expired token's name can be used again")
})

t.test('last_used: written at the first use, then at most once a minute', async (t) => {
  const { clock, tokens, access, admin } = setup(t)
  const made = tokens.create(admin, { name: 'ci', role: 'readonly' })
  const lastUsed = () => tokens.list(admin)[0]!.last_used
  t.equal(lastUsed(), null, 'never used')
  const t0 = clock.now()
  access.authenticate(made.token)
  t.equal(lastUsed(), new Date(t0).toISOString(), 'the first use')
  await clock.advance(59_000)
  access.authenticate(made.token)
  t.equal(lastUsed(), new Date(t0).toISOString(), 'not again within the minute')
  await clock.advance(1_000)
  access.authenticate(made.token)
  t.equal(lastUsed(), new Date(t0 + MIN).toISOString(), 'a minute later')
})

t.test("a config-file owner's current role bounds their tokens; a removed owner's tokens stop", async (t) => {
  const { tokens, access, users, user } = setup(t)
  const joe = user('joe@example.com')
  const made = tokens.create(joe, { name: 'ci', permissions: ['routes-update', 'ca-create', 'routes-read'] })
  t.ok(access.authenticate(made.token)!.role.permissions.has('ca-create'), 'as given while joe is readwrite')
  users['joe@example.com'] = 'readonly'
  const narrowed = access.authenticate(made.token)!
  t.same([...narrowed.role.permissions].sort(), ['routes-read'], 'joe narrowed to readonly: only what both hold')
  users['joe@example.com'] = 'ca1-writer'
  const limited = access.authenticate(made.token)!
  t.same([limited.role.cas, [...limited.role.permissions].sort()], [['ca1'], ['routes-read', 'routes-update']], "joe limited to ca1: so is the token")
  delete users['joe@example.com']
  t.equal(access.authenticate(made.token), undefined, 'joe removed from [auth_users]: the token is nobody')
})

t.test('list and revoke: own tokens, every token for an administrator; revocation at once; idempotent', async (t) => {
  const { tokens, access, user, admin, stores } = setup(t)
  const joe = user('joe@example.com')
  const ann = user('ann@example.com')
  const j = tokens.create(joe, { name: 'j', role: 'readonly' })
  const a = tokens.create(ann, { name: 'a', permissions: ['routes-read'] })
  const ad = tokens.create(admin, { name: 'ad', role: 'admin' })
  t.same(tokens.list(joe).map((x) => x.name), ['j'], 'joe sees his own')
  t.same(tokens.list(admin).map((x) => x.name).sort(), ['a', 'ad', 'j'], 'the admin token sees all')
  t.same(tokens.list({ id: 'root@example.com', provider: 'openid-connect', role: DEFAULT_ROLES.admin }).map((x) => x.name).sort(), ['a', 'ad', 'j'], 'so does a user with every permission on every CA')
  refused(t, () => tokens.revoke(joe, a.id), 'api-token-unknown', { id: a.id }, "someone else's token is unknown")
  refused(t, () => tokens.revoke(joe, 'A'.repeat(16)), 'api-token-unknown', {}, 'a token that never was')
  refused(t, () => tokens.revoke(joe, '../../x'), 'api-token-unknown', {}, 'not an id')
  refused(t, () => tokens.revoke(joe, j.token), 'api-token-unknown', { id: 'not a token id' }, 'a secret given as the id is not echoed')
  t.ok(access.authenticate(a.token))
  tokens.revoke(admin, a.id)
  t.equal(access.authenticate(a.token), undefined, 'revoked by the admin: nobody at once')
  tokens.revoke(joe, j.id)
  t.equal(access.authenticate(j.token), undefined, 'revoked by its owner')
  t.doesNotThrow(() => tokens.revoke(joe, j.id), 'revoking again answers as before')
  t.ok(tokens.list(joe)[0]!.revoked, 'the list shows the revocation')
  t.equal(stores.audit.list({ kind: 'token-revoke', offset: 0, limit: 10, order: 'asc' }).total, 2, 'each revocation audited once')
  t.ok(access.authenticate(ad.token), 'other tokens live on')
})
