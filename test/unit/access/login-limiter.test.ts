/**
 * Failed logins, limited (src/app/access/login-limiter.ts) on a fake clock: ten failures a minute from one source and
 * five for one user, in a sliding window; the wait until the next try is exact; memory stays bounded.
 */
import t from 'tap'
import { DEFAULT_LOGIN_LIMITS, LoginLimiter } from '../../../src/app/access/login-limiter.js'
import { FakeClock } from '../../helpers/fake-clock.js'

t.test('the defaults: 10 a minute per source, 5 per user', async (t) => {
  t.same(DEFAULT_LOGIN_LIMITS, { perSource: 10, perUser: 5, windowMs: 60_000 })
})

t.test('per source: the 11th try within a minute waits until the oldest failure leaves the window', async (t) => {
  const clock = new FakeClock()
  const l = new LoginLimiter({ clock })
  for (let i = 0; i < 10; i++) {
    t.equal(l.retryAfter('192.0.2.1', `user${i}`), 0, `try ${i + 1} may go`)
    l.failed('192.0.2.1', `user${i}`)
    await clock.advance(1_000)
  }
  // Failures at 0 s … 9 s; it is now 10 s: the first leaves the window at 60 s.
  t.equal(l.retryAfter('192.0.2.1'), 50, 'the 11th: 50 s to wait')
  t.equal(l.retryAfter('192.0.2.1', 'someone-else'), 50, 'whatever user it names')
  t.equal(l.retryAfter('192.0.2.2'), 0, 'another source is not held back')
  await clock.advance(49_999)
  t.equal(l.retryAfter('192.0.2.1'), 1, 'a millisecond before: still (rounded up to a second)')
  await clock.advance(1)
  t.equal(l.retryAfter('192.0.2.1'), 0, 'at 60 s the first failure has left the window')
  l.failed('192.0.2.1')
  t.equal(l.retryAfter('192.0.2.1'), 1, 'one more failure fills it again, until the second leaves (61 s)')
})

t.test('per user: 5 failures from anywhere hold the user back, not other users', async (t) => {
  const clock = new FakeClock()
  const l = new LoginLimiter({ clock })
  for (let i = 0; i < 5; i++) {
    t.equal(l.retryAfter(`198.51.100.${i}`, 'joe'), 0)
    l.failed(`198.51.100.${i}`, 'joe')
  }
  t.equal(l.retryAfter('203.0.113.9', 'joe'), 60, 'joe from a fresh source: a minute to wait')
  t.equal(l.retryAfter('203.0.113.9', 'ann'), 0, 'ann is not held back')
  t.equal(l.retryAfter('203.0.113.9'), 0, 'nor the source, without a user')
  await clock.advance(30_000)
  t.equal(l.retryAfter('203.0.113.9', 'joe'), 30)
  await clock.advance(30_000)
  t.equal(l.retryAfter('203.0.113.9', 'joe'), 0, 'a minute later joe may try again')
})

t.test('a sliding window, not a fixed minute: failures spread over the boundary still count', async (t) => {
  const clock = new FakeClock()
  const l = new LoginLimiter({ clock, limits: { perSource: 3, perUser: 100, windowMs: 60_000 } })
  await clock.advance(50_000)
  l.failed('s')
  l.failed('s')
  await clock.advance(20_000) // 70 s: past a "minute boundary" at 60 s
  t.equal(l.retryAfter('s'), 0)
  l.failed('s')
  t.equal(l.retryAfter('s'), 40, 'three in the last 60 s: wait until the one at 50 s leaves (110 s)')
})

t.test('memory is bounded: beyond maxKeys, quiet keys are forgotten first', async (t) => {
  const clock = new FakeClock()
  const l = new LoginLimiter({ clock, limits: { perSource: 2, perUser: 2, windowMs: 60_000 }, maxKeys: 100 })
  for (let i = 0; i < 100; i++) l.failed(`old${i}`, `old-user${i}`)
  t.same(l.tracked(), { sources: 100, users: 100 })
  await clock.advance(61_000)
  l.failed('busy')
  t.same(l.tracked(), { sources: 1, users: 100 }, 'the quiet sources were forgotten to make room (users are pruned when they need room)')
  l.failed('busy')
  t.equal(l.retryAfter('busy'), 60, 'the source that failed twice just now is held back')
  for (let i = 0; i < 500; i++) l.failed(`new${i}`, `new-user${i}`)
  const n = l.tracked()
  t.ok(n.sources <= 100 && n.users <= 100, `never more than maxKeys: ${JSON.stringify(n)}`)
  t.equal(Array.from({ length: 500 }, (_, i) => l.retryAfter(`new${i}`, `new-user${i}`)).filter((s) => s > 0).length, 0, 'one failure each: none is held back')
})
