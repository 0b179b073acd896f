/**
 * RFC 8181 replay protection (pubd/replay.ts; issue 10, defect 6). The rule, per publisher:
 *   1. a message signed before the newest one seen is refused;
 *   2. a changing query signed in the same second as the newest one seen is refused when a message with the same
 *      content digest was already seen at that signing time.
 * A captured "publish x" replayed after a "withdraw x" signed in the same second is refused by rule 2.
 */
import t from 'tap'
import { MAX_DIGESTS_PER_SECOND, replayProblem, replaySeen, type ReplayState } from '../../../src/protocol/replay.js'

const T = new Date('2026-05-01T12:00:00Z')
const later = new Date('2026-05-01T12:00:01Z')
const earlier = new Date('2026-05-01T11:59:59Z')

t.test('the first message of a publisher is never a replay', async (t) => {
  t.equal(replayProblem(undefined, T, 'a', true), undefined)
  t.same(replaySeen(undefined, T, 'a', true), { signingTime: T.toISOString(), digests: ['a'] })
  t.same(replaySeen(undefined, T, 'l', false), { signingTime: T.toISOString(), digests: [] }, 'a list records only the time')
})

t.test('publish x, withdraw x, replayed publish x in the same second: the replay is refused', async (t) => {
  let s: ReplayState | undefined
  for (const digest of ['publish-x', 'withdraw-x']) {
    t.equal(replayProblem(s, T, digest, true), undefined, `${digest} accepted`)
    s = replaySeen(s, T, digest, true)
  }
  t.match(replayProblem(s, T, 'publish-x', true), /RFC 6492 §3\.1\.2: a message with this content signed at 2026-05-01T12:00:00Z was already received: replay/)
  t.match(replayProblem(s, T, 'withdraw-x', true), /replay/)
  t.equal(replayProblem(s, T, 'publish-y', true), undefined, 'a new message in the same second is accepted')
})

t.test('older messages are refused; a newer second starts a new set', async (t) => {
  const s = replaySeen(replaySeen(undefined, T, 'a', true), T, 'b', true)
  t.match(replayProblem(s, earlier, 'c', true), /before that of the last message.*possible replay/)
  t.match(replayProblem(s, earlier, 'l', false), /possible replay/, 'also a list')
  t.equal(replayProblem(s, later, 'a', true), undefined, 'the same content signed a second later is a new message')
  t.same(replaySeen(s, later, 'a', true), { signingTime: later.toISOString(), digests: ['a'] })
})

t.test('a list query is never refused for its content within the second (replaying it changes nothing)', async (t) => {
  const s = replaySeen(replaySeen(undefined, T, 'list', false), T, 'list', false)
  t.equal(replayProblem(s, T, 'list', false), undefined)
  t.same(s.digests, [])
})

t.test('the set per second is bounded', async (t) => {
  let s: ReplayState | undefined
  for (let i = 0; i < MAX_DIGESTS_PER_SECOND; i++) s = replaySeen(s, T, `d${i}`, true)
  t.match(replayProblem(s, T, 'one-more', true), /more than 1000 changing messages/)
  t.equal(replayProblem(s, later, 'one-more', true), undefined)
})
