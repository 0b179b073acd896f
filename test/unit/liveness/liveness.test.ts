/**
 * The liveness rules (src/liveness/liveness.ts), with time from a fake clock: when a point and a CA are functional,
 * expiry, the rsync lag across checks, transport disagreement only once it lasted, children's nonFunctionalSince kept
 * across checks and revokeAt, the conditions of source "liveness", and the transitions the service logs.
 */
import t from 'tap'
import { caLiveness, caSummary, childLiveness, conditions, describeFinding, pointLiveness, transitions, type LivenessRules, type PointMemory, type PointObservation } from '../../../src/liveness/liveness.js'
import type { Finding, PointSeen } from '../../../src/liveness/model.js'
import { FakeClock } from '../../helpers/fake-clock.js'

const HOUR = 3600_000
const DAY = 24 * HOUR
const RULES: LivenessRules = { expiryMarginMs: 4 * HOUR, disagreementMs: 120_000, childRevokeMs: 90 * DAY }
const DIR = 'rsync://localhost/repo/ca1/0/'

function seen(clock: FakeClock, transport: 'rrdp' | 'rsync', o: Partial<PointSeen> = {}): PointSeen {
  return { transport, at: clock.now(), reachable: true, valid: true, manifestNumber: '1', manifestNextUpdate: clock.now() + 24 * HOUR, crlNextUpdate: clock.now() + 24 * HOUR, manifestHash: 'aa', ...o }
}

function observe(clock: FakeClock, o: Partial<PointObservation> = {}): PointObservation {
  return { dir: DIR, keyId: 'K1', seen: { rrdp: seen(clock, 'rrdp'), rsync: seen(clock, 'rsync') }, findings: [], ...o }
}

t.test('a point is functional with a valid manifest and CRL over at least one transport', async (t) => {
  const clock = new FakeClock()
  const both = pointLiveness(observe(clock), undefined, clock.now(), RULES).liveness
  t.ok(both.functional, 'both transports valid')
  t.equal(both.manifestExpires, clock.now() + 24 * HOUR)
  const unreachable: Finding = { kind: 'unreachable', transport: 'rsync', detail: 'connection refused' }
  const one = pointLiveness(observe(clock, { seen: { rrdp: seen(clock, 'rrdp'), rsync: { transport: 'rsync', at: clock.now(), reachable: false, valid: false } }, findings: [unreachable] }), undefined, clock.now(), RULES).liveness
  t.ok(one.functional, 'RRDP alone is enough')
  t.same(one.findings, [unreachable], 'the rsync finding is kept')
  const none = pointLiveness(observe(clock, { seen: { rrdp: seen(clock, 'rrdp', { valid: false }), rsync: seen(clock, 'rsync', { reachable: false, valid: false }) } }), undefined, clock.now(), RULES).liveness
  t.notOk(none.functional, 'an invalid manifest over RRDP and nothing over rsync')
  const nothing = pointLiveness(observe(clock, { seen: {} }), undefined, clock.now(), RULES).liveness
  t.notOk(nothing.functional, 'nothing fetched')
})

t.test('the expiry is the earliest among the transports that answered', async (t) => {
  const clock = new FakeClock()
  const o = observe(clock, { seen: { rrdp: seen(clock, 'rrdp', { manifestNextUpdate: clock.now() + 5 * HOUR }), rsync: seen(clock, 'rsync', { manifestNextUpdate: clock.now() + 3 * HOUR, crlNextUpdate: clock.now() + 2 * HOUR }) }, certExpires: clock.now() + 300 * DAY })
  const p = pointLiveness(o, undefined, clock.now(), RULES).liveness
  t.equal(p.manifestExpires, clock.now() + 3 * HOUR)
  t.equal(p.crlExpires, clock.now() + 2 * HOUR)
  t.equal(p.certExpires, clock.now() + 300 * DAY)
})

t.test('the rsync lag: when rsync first served a manifest minus when RRDP first served it', async (t) => {
  const clock = new FakeClock()
  let memory: PointMemory | undefined
  const check = (rrdpHash: string, rsyncHash: string) => {
    const r = pointLiveness(observe(clock, { seen: { rrdp: seen(clock, 'rrdp', { manifestHash: rrdpHash }), rsync: seen(clock, 'rsync', { manifestHash: rsyncHash }) } }), memory, clock.now(), RULES)
    memory = r.memory
    return r.liveness
  }
  t.equal(check('aa', 'aa').rsyncLagMs, 0, 'seen together: no lag measurable beyond the check')
  await clock.advance(45_000)
  t.equal(check('bb', 'aa').rsyncLagMs, 0, 'rsync still serves the previous manifest: the last lag stands')
  await clock.advance(8_000)
  t.equal(check('bb', 'bb').rsyncLagMs, 8_000, 'rsync caught up 8 s later')
  await clock.advance(600_000)
  t.equal(check('bb', 'bb').rsyncLagMs, 8_000, 'unchanged while nothing is published')
  t.ok(memory!.manifests.length <= 8)
  // rsync first (a CDN in front of RRDP that is slow): no negative lag.
  await clock.advance(1000)
  check('bb', 'cc')
  await clock.advance(1000)
  t.equal(check('cc', 'cc').rsyncLagMs, 0, 'never below 0')
})

t.test('a transport disagreement is a finding only once it lasted disagreement_seconds', async (t) => {
  const clock = new FakeClock()
  const disagree: Finding = { kind: 'transport-disagreement', uri: `${DIR}K1.mft`, detail: 'RRDP and rsync serve different bytes' }
  const r1 = pointLiveness(observe(clock, { findings: [disagree] }), undefined, clock.now(), RULES)
  t.same(r1.liveness.findings, [], 'not yet')
  t.equal(r1.memory.disagreementSince, clock.now())
  await clock.advance(60_000)
  const r2 = pointLiveness(observe(clock, { findings: [disagree] }), r1.memory, clock.now(), RULES)
  t.same(r2.liveness.findings, [], 'after 60 s: still not')
  await clock.advance(60_000)
  const r3 = pointLiveness(observe(clock, { findings: [disagree] }), r2.memory, clock.now(), RULES)
  t.same(r3.liveness.findings, [disagree], 'after 120 s: a finding')
  const r4 = pointLiveness(observe(clock), r3.memory, clock.now(), RULES)
  t.equal(r4.memory.disagreementSince, undefined, 'agreement again: the clock restarts')
  const r5 = pointLiveness(observe(clock, { findings: [disagree] }), r4.memory, clock.now(), RULES)
  t.same(r5.liveness.findings, [], 'a new disagreement waits again')
})

t.test('a CA is functional when every current key is; next and old keys do not decide', async (t) => {
  const clock = new FakeClock()
  const good = pointLiveness(observe(clock), undefined, clock.now(), RULES).liveness
  const bad = pointLiveness(observe(clock, { seen: {} }), undefined, clock.now(), RULES).liveness
  t.ok(caLiveness('ca1', [good], [], {}, clock.now()).functional)
  t.notOk(caLiveness('ca1', [good, { ...bad, dir: 'x' }], [], {}, clock.now()).functional)
  t.ok(caLiveness('ca1', [good, { ...bad, role: 'next' }], [], {}, clock.now()).functional, 'a new key in a roll that is not served yet')
  t.ok(caLiveness('ca1', [], [], {}, clock.now()).functional, 'no certified key: nothing to serve')
})

t.test('a child keeps nonFunctionalSince across checks; revokeAt is since + child_revoke_days', async (t) => {
  const clock = new FakeClock()
  const bad = pointLiveness(observe(clock, { seen: {} }), undefined, clock.now(), RULES).liveness
  const good = pointLiveness(observe(clock), undefined, clock.now(), RULES).liveness
  const since = clock.now()
  const c1 = childLiveness('child', bad, undefined, clock.now(), RULES)
  t.equal(c1.nonFunctionalSince, since)
  t.equal(c1.revokeAt, since + 90 * DAY)
  await clock.advance(3 * DAY)
  const c2 = childLiveness('child', bad, c1, clock.now(), RULES)
  t.equal(c2.nonFunctionalSince, since, 'kept')
  t.equal(c2.revokeAt, since + 90 * DAY)
  const c3 = childLiveness('child', good, c2, clock.now(), RULES)
  t.equal(c3.nonFunctionalSince, undefined, 'functional again: no since')
  t.equal(c3.revokeAt, undefined)
  await clock.advance(DAY)
  const c4 = childLiveness('child', bad, c3, clock.now(), RULES)
  t.equal(c4.nonFunctionalSince, clock.now(), 'a new outage starts anew')
})

t.test('conditions: repository-check-failed, manifest-expiring and child-nonfunctional, with their reasons', async (t) => {
  const clock = new FakeClock()
  const now = clock.now()
  const missing: Finding = { kind: 'missing', transport: 'rsync', uri: `${DIR}x.roa`, detail: 'not in the rsync tree' }
  const expiring: Finding = { kind: 'expiring', uri: `${DIR}K1.mft`, detail: 'nextUpdate in 2 hours' }
  const ok = pointLiveness(observe(clock), undefined, now, RULES).liveness
  const withMissing = pointLiveness(observe(clock, { findings: [missing] }), undefined, now, RULES).liveness
  const soon = pointLiveness(observe(clock, { seen: { rrdp: seen(clock, 'rrdp', { manifestNextUpdate: now + 2 * HOUR }) }, findings: [expiring] }), undefined, now, RULES).liveness
  const kidPoint = pointLiveness(observe(clock, { seen: {}, findings: [{ kind: 'unreachable', transport: 'rrdp', detail: 'connect ECONNREFUSED' }] }), undefined, now, RULES).liveness
  const childFirst = childLiveness('kid', kidPoint, undefined, now - 2000, RULES)
  const childBad = childLiveness('kid', kidPoint, childFirst, now, RULES)
  // One check that finds something is not yet an alarm (it may race a publication); the next one confirms it.
  t.same(conditions([caLiveness('ca1', [withMissing], [], {}, now - 2000), caLiveness('ca2', [ok], [childFirst], {}, now - 2000)], now - 2000, RULES), [], 'a first finding, a first non-functional check: no condition yet')
  const all = [
    caLiveness('ok', [ok], [], {}, now),
    caLiveness('ca1', [withMissing], [], {}, now, caLiveness('ca1', [withMissing], [], {}, now - 2000)),
    caLiveness('ca2', [soon], [childBad], {}, now),
    { ca: 'never', lastGoodFetch: {}, points: [], children: [], functional: false },
  ]
  const c = conditions(all, now, RULES)
  t.same(c, [
    { kind: 'repository-check-failed', ca: 'ca1', subject: 'ca1', reason: `rsync: missing ${DIR}x.roa` },
    { kind: 'manifest-expiring', ca: 'ca2', subject: 'ca2', reason: `manifest expires in 2.0 hours (nextUpdate ${new Date(now + 2 * HOUR).toISOString()})` },
    { kind: 'child-nonfunctional', ca: 'ca2', subject: 'ca2/kid', reason: `rrdp: unreachable: connect ECONNREFUSED; a 90-day policy would revoke it at ${new Date(now - 2000 + 90 * DAY).toISOString()}` },
  ], 'the expiring finding raises manifest-expiring only; unchecked CAs nothing')
  const expired = pointLiveness(observe(clock, { seen: { rrdp: seen(clock, 'rrdp', { crlNextUpdate: now - 1 }) } }), undefined, now, RULES).liveness
  t.match(conditions([caLiveness('ca3', [expired], [], {}, now)], now, RULES), [{ kind: 'manifest-expiring', reason: /^CRL expired/ }])
  const two = pointLiveness(observe(clock, { findings: [missing, { ...missing, uri: `${DIR}y.roa` }] }), undefined, now, RULES).liveness
  t.match(conditions([caLiveness('ca4', [two], [], {}, now, caLiveness('ca4', [two], [], {}, now - 2000))], now, RULES)[0]?.reason, /\(and 1 more\)$/)
  t.same([caLiveness('ca4', [ok], [], {}, now, caLiveness('ca4', [two], [], {}, now - 2000)).failingChecks, caLiveness('ca4', [two], [], {}, now).failingChecks], [undefined, 1], 'a clean check ends the run')
  t.equal(describeFinding({ kind: 'changed', transport: 'rrdp', uri: `${DIR}a.roa`, detail: 'other bytes' }), `rrdp: changed ${DIR}a.roa (other bytes)`)
})

t.test('transitions: one per change of a CA or child, none when nothing changed', async (t) => {
  const clock = new FakeClock()
  const now = clock.now()
  const good = pointLiveness(observe(clock), undefined, now, RULES).liveness
  const bad = pointLiveness(observe(clock, { seen: {}, findings: [{ kind: 'unreachable', transport: 'rrdp', detail: 'timeout' }] }), undefined, now, RULES).liveness
  const first = caLiveness('ca1', [good], [], {}, now)
  t.same(transitions(undefined, first), [], 'first check, functional: nothing to say')
  const down = caLiveness('ca1', [bad], [childLiveness('kid', bad, undefined, now, RULES)], {}, now)
  t.same(transitions(first, down), [{ subject: 'ca1', functional: false, reason: 'rrdp: unreachable: timeout' }, { subject: 'ca1/kid', functional: false, reason: 'rrdp: unreachable: timeout' }])
  t.same(transitions(down, down), [], 'still down: nothing')
  const up = caLiveness('ca1', [good], [childLiveness('kid', good, undefined, now, RULES)], {}, now)
  t.same(transitions(down, up), [{ subject: 'ca1', functional: true }, { subject: 'ca1/kid', functional: true }])
  t.same(caSummary(up), { manifestExpires: now + 24 * HOUR, crlExpires: now + 24 * HOUR, rsyncLagMs: 0 })
})
