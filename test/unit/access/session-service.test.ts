/**
 * Login sessions (src/app/access/session-service.ts) over the real SQLite session store, on a fake clock: the secret
 * is returned once and only its hash is stored; a session ends when idle too long, at its end, or on logout.
 */
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEFAULT_ROLES } from '../../../src/api/access.js'
import { AccessService } from '../../../src/app/access/access-service.js'
import { SESSION_PREFIX, SessionService } from '../../../src/app/access/session-service.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock, FakeRandom } from '../../helpers/fake-clock.js'

function setup(t: Test) {
  const db = Db.open(join(tempDir(t, 'svc-sessions-'), 'svcd.db'))
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const clock = new FakeClock(1_700_000_000_000)
  const sessions = new SessionService({ store: stores.sessions, clock, random: new FakeRandom(), idleSeconds: 600, maxSeconds: 3600 })
  const access = new AccessService({ adminToken: 'the-admin-token-0123456789', roles: { ...DEFAULT_ROLES }, sessions })
  return { db, stores, clock, sessions, access }
}

t.test('a session: the secret once, its hash stored; the actor of its secret', async (t) => {
  const { db, clock, sessions, access } = setup(t)
  const { secret, session } = sessions.start({ userId: 'joe@example.com', provider: 'config-file', role: 'readonly' })
  t.ok(secret.startsWith(SESSION_PREFIX))
  t.ok(secret.length >= SESSION_PREFIX.length + 43, '32 random bytes')
  const rows = db.prepare('SELECT * FROM auth_sessions').all() as Record<string, unknown>[]
  t.equal(rows.length, 1)
  t.notOk(JSON.stringify(rows).includes(secret.slice(SESSION_PREFIX.length)), 'the secret is nowhere in the table')
  t.equal(rows[0]!.id, session.id)
  const actor = access.authenticate(secret)
  t.same(actor && { id: actor.id, provider: actor.provider, role: actor.role.name }, { id: 'joe@example.com', provider: 'config-file', role: 'readonly' })
  t.equal(access.authenticate(secret + 'x'), undefined, 'a secret one character longer is nobody')
  t.equal(access.authenticate('svcs_' + 'A'.repeat(43)), undefined, 'a guessed secret is nobody')
  t.equal(access.authenticate('the-admin-token-0123456789')?.role.name, 'admin', 'the admin token')
  await clock.advance(3_600_000)
  t.equal(access.authenticate(secret), undefined, 'an hour later it has ended')
})

t.test('idle, maximum and logout end a session', async (t) => {
  const { clock, sessions } = setup(t)
  const a = sessions.start({ userId: 'a', provider: 'config-file', role: 'readonly' })
  await clock.advance(599_000)
  t.ok(sessions.resolve(a.secret), 'used within the idle time')
  await clock.advance(599_000)
  t.ok(sessions.resolve(a.secret), 'each use restarts the idle time')
  await clock.advance(600_000)
  t.equal(sessions.resolve(a.secret), undefined, 'idle too long')

  const b = sessions.start({ userId: 'b', provider: 'config-file', role: 'readonly' })
  for (let i = 0; i < 6; i++) {
    await clock.advance(590_000)
    t.ok(sessions.resolve(b.secret), `in use after ${(i + 1) * 590} s`)
  }
  await clock.advance(60_000)
  t.equal(sessions.resolve(b.secret), undefined, 'past its maximum, however busy')

  const c = sessions.start({ userId: 'c', provider: 'config-file', role: 'readonly' })
  t.equal(sessions.end(c.secret)?.userId, 'c', 'logout')
  t.equal(sessions.resolve(c.secret), undefined, 'ended')
  t.equal(sessions.end(c.secret), undefined, 'ending twice is nothing')
})

t.test("a session whose role is gone is refused; a user's sessions end together", async (t) => {
  const { clock, sessions, stores } = setup(t)
  const access = new AccessService({ adminToken: 'the-admin-token-0123456789', roles: { admin: DEFAULT_ROLES.admin }, sessions })
  const s = sessions.start({ userId: 'joe', provider: 'config-file', role: 'readonly' })
  t.equal(access.authenticate(s.secret), undefined, 'readonly is not defined any more')
  const x = sessions.start({ userId: 'ann', provider: 'openid-connect', role: 'admin' })
  const y = sessions.start({ userId: 'ann', provider: 'openid-connect', role: 'admin' })
  t.equal(sessions.endUser('ann', 'openid-connect'), 2)
  t.equal(access.authenticate(x.secret), undefined)
  t.equal(access.authenticate(y.secret), undefined)
  await clock.advance(2 * 86_400_000)
  t.equal(sessions.purge(), 3, 'ended sessions are forgotten after a day')
  t.equal(stores.sessions.get(s.session.id), undefined)
})
