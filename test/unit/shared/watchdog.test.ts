/**
 * The watchdog (app/shared/watchdog.ts) and its rules (liveness/stalls.ts) on the FakeClock: the scheduler's loop
 * making no tick while tasks are due, a pacer pending or running past the bound, a leader whose lease was not renewed,
 * acknowledged changes not on RRDP (publish-stalled); each reported as /ready problems (sys-stalled), svc_stalled
 * gauges and conditions, logged once when it begins and once when it ends, and pushed to the sink after each check.
 */
import t from 'tap'
import type { Condition } from '../../../src/liveness/model.js'
import { stalls } from '../../../src/liveness/stalls.js'
import { Watchdog } from '../../../src/app/shared/watchdog.js'
import { Pacer } from '../../../src/app/shared/pacer.js'
import type { StallObservations } from '../../../src/liveness/stalls.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { RecordingLogger } from '../../helpers/recording-logger.js'

const T0 = Date.parse('2026-03-01T00:00:00Z')
const STALL = 300_000

t.test('the rules: nothing is stalled within the bound, each part is past it', async (t) => {
  const now = T0 + 10 * STALL
  const base: StallObservations = { now, stallMs: STALL }
  t.same(stalls(base), [], 'nothing observed, nothing stalled')
  t.same(stalls({ ...base, scheduler: { running: true, lastTick: now - 1000, nextDue: now - 10 * STALL, stalled: [] } }), [], 'a ticking loop with overdue tasks (all slots busy) is not stalled')
  t.same(stalls({ ...base, scheduler: { running: true, lastTick: now - STALL - 1, nextDue: now + 1000, stalled: [] } }), [], 'no tick, but nothing due')
  t.match(stalls({ ...base, scheduler: { running: true, lastTick: now - STALL - 1, nextDue: now - STALL - 1, stalled: [] } }), [{ component: 'scheduler', subject: 'scheduler' }])
  t.same(stalls({ ...base, scheduler: { running: false, lastTick: now - 10 * STALL, nextDue: now - 10 * STALL, stalled: [] } }), [], 'a stopped scheduler (a follower) is not stalled')
  t.match(stalls({ ...base, pacers: [{ name: 'rrdp', runningSince: now - STALL - 1 }, { name: 'rsync', pendingSince: now - STALL + 1 }] }), [{ component: 'pacer', subject: 'rrdp' }])
  t.same(stalls({ ...base, leadership: { leading: true, renewedAt: now - 9_000, leaseMs: 10_000 } }), [])
  t.match(stalls({ ...base, leadership: { leading: true, renewedAt: now - 10_001, leaseMs: 10_000 } }), [{ component: 'leadership' }])
  t.match(stalls({ ...base, publication: { oldestWaiting: now - STALL - 1, publisher: 'ca1' } }), [{ component: 'publication', subject: 'ca1' }])
  t.same(stalls({ ...base, publication: { oldestWaiting: now - STALL } }), [], 'at the bound exactly: not yet')
})

t.test('the watchdog reports a frozen RRDP output as publish-stalled, then clears when it catches up', async (t) => {
  const clock = new FakeClock(T0)
  const log = new RecordingLogger()
  let oldestWaiting: number | undefined = T0
  const pushed: { source: string; conditions: Condition[] }[] = []
  const w = new Watchdog({
    clock, log, stallMs: STALL, everyMs: 10_000,
    observe: () => ({ scheduler: { running: true, lastTick: clock.now(), nextDue: undefined, stalled: [] }, publication: { oldestWaiting } }),
    queued: () => [{ kind: 'task-quarantined', subject: 'no-such-kind:ca1', reason: 'unknown task kind' }],
    report: (source, conditions) => pushed.push({ source, conditions }),
  })
  w.start()
  t.teardown(() => w.stop())
  await clock.advance(STALL)
  t.same(w.problems(), [], 'not yet past the bound')
  t.same(w.stalled(), { scheduler: 0, publication: 0, leadership: 0, pacer: 0 })
  await clock.advance(10_000)
  t.match(w.problems(), [{ label: 'sys-stalled', args: { component: 'publication', since: new Date(T0).toISOString() } }])
  t.equal(w.stalled().publication, 1)
  t.match(w.conditions(), [{ kind: 'publish-stalled', subject: 'publication' }, { kind: 'task-quarantined', subject: 'no-such-kind:ca1' }])
  const last = (source: string) => pushed.filter((p) => p.source === source).at(-1)?.conditions
  t.match(last('publication'), [{ kind: 'publish-stalled' }], 'pushed to the sink')
  t.match(last('queues'), [{ kind: 'task-quarantined' }])
  await clock.advance(60_000)
  t.equal(log.lines.filter((l) => l.msg === 'stalled').length, 1, 'logged once while it lasts')
  oldestWaiting = undefined
  await clock.advance(10_000)
  t.same(w.problems(), [])
  t.same(last('publication'), [], 'the sink hears it cleared')
  t.equal(log.lines.filter((l) => l.msg === 'no longer stalled').length, 1)
})

t.test('a scheduler loop that stops ticking while tasks are due is service-stalled', async (t) => {
  const clock = new FakeClock(T0)
  const w = new Watchdog({ clock, log: new RecordingLogger(), stallMs: STALL, observe: () => ({ scheduler: { running: true, lastTick: T0, nextDue: T0 + 1000, stalled: [] } }) })
  await clock.advance(STALL)
  t.same(w.check(), [])
  await clock.advance(2000)
  t.match(w.conditions(), [{ kind: 'service-stalled', subject: 'scheduler' }])
  t.equal(w.stalled().scheduler, 1)
})

t.test('an observation that throws is logged and reports nothing', async (t) => {
  const log = new RecordingLogger()
  const w = new Watchdog({ clock: new FakeClock(T0), log, stallMs: STALL, observe: () => { throw new Error('database gone') } })
  t.same(w.check(), [])
  t.ok(log.lines.some((l) => l.level === 'warn'))
})

t.test('a pacer whose run hangs is reported by name once past the bound (Pacer.health)', async (t) => {
  const clock = new FakeClock(T0)
  const p = new Pacer(() => new Promise(() => {}), 0, () => {}, clock)
  const w = new Watchdog({ clock, log: new RecordingLogger(), stallMs: STALL, observe: () => ({ pacers: [{ name: 'publish:ca1', ...p.health() }] }) })
  t.same(p.health(), {}, 'idle: nothing pending or running')
  p.kick()
  t.same(p.health(), { pendingSince: T0 }, 'kicked: pending')
  await clock.advance(1)
  t.same(p.health(), { runningSince: T0 }, 'running')
  await clock.advance(STALL)
  t.match(w.conditions(), [{ kind: 'service-stalled', subject: 'pacer:publish:ca1' }])
  t.equal(w.stalled().pacer, 1)
})

t.test('GET /ready gets a reason that names no CA or task; the bulk issues the detail', async (t) => {
  const clock = new FakeClock(T0 + STALL + 1)
  const w = new Watchdog({ clock, log: new RecordingLogger(), stallMs: STALL, observe: () => ({ scheduler: { running: true, lastTick: clock.now(), nextDue: undefined, stalled: [{ key: 'republish:secret-ca', since: T0 }] } }) })
  t.match(w.problems(true), [{ args: { component: 'scheduler', why: /republish:secret-ca/ } }])
  t.same(w.problems(false).map((p) => p.args.why), ['scheduled work is not making progress'])
  t.notMatch(JSON.stringify(w.problems(false)), /secret-ca/)
})
