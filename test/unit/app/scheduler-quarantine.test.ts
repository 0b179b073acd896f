/**
 * The scheduler's healing (issue 26 §5, Krill #1384), over the real SQLite stores on the FakeClock: a task that does
 * not decode (an unknown kind, an argument its kind does not take) leaves the queue for the quarantine, logged once,
 * and the other tasks run in the same pass; a CA that does not decode is quarantined as a CA and its task waits the
 * longest back-off; a task that never settles frees its slot after stallMs, is reported as stalled, and is not started
 * again while it hangs; a transient failure keeps today's back-off.
 */
import t, { type Test } from 'tap'
import { join } from 'node:path'
import { Scheduler, taskKey, type SchedulerOptions } from '../../../src/app/shared/scheduler.js'
import { Quarantine } from '../../../src/app/shared/quarantine.js'
import { checkTask } from '../../../src/app/ca/ca-tasks.js'
import { Db } from '../../../src/store/db.js'
import { SqlTaskStore } from '../../../src/store/task-store.js'
import { SqlQuarantineStore } from '../../../src/store/quarantine-store.js'
import type { Task } from '../../../src/store/interfaces.js'
import { StoredDataError } from '../../../src/util/stored-data.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import { RecordingLogger } from '../../helpers/recording-logger.js'

const T0 = Date.parse('2026-03-01T00:00:00Z')
const MINUTE = 60_000
const RETRY = { firstMs: MINUTE, maxMs: 60 * MINUTE }

function setup(t: Test, run: (task: Task) => Promise<number | undefined>, o: Partial<SchedulerOptions> = {}) {
  const db = Db.open(join(tempDir(t, 'svc-sched-q-'), 'svcd.db'))
  const tasks = new SqlTaskStore(db)
  const store = new SqlQuarantineStore(db)
  const clock = new FakeClock(T0)
  const log = new RecordingLogger()
  const quarantine = new Quarantine({ store, clock, log })
  const s = new Scheduler({ tasks, run, retry: RETRY, clock, log, quarantine: (e) => void quarantine.put(e), ...o })
  t.teardown(async () => {
    await s.stop()
    db.close()
  })
  const put = (kind: string, ca: string, arg: string, due = T0) => tasks.put({ key: taskKey(kind as Task['kind'], ca, arg), kind: kind as Task['kind'], ca, arg, due, attempts: 0 })
  return { s, tasks, clock, log, quarantine, store, put }
}

t.test('a task that does not decode is quarantined once, leaves the queue, and the others run in the same pass', async (t) => {
  const ran: string[] = []
  const { s, tasks, log, quarantine, put } = setup(t, async (task) => {
    checkTask(task)
    ran.push(task.key)
    return T0 + 60 * MINUTE
  })
  put('no-such-kind', 'ca1', '')
  put('republish', 'ca2', 'garbage\u0000\u00ff')
  put('sync-parent', 'ca3', 'not a handle!')
  put('republish', 'ca4', '')
  put('sync-parent', 'ca5', 'parent')
  t.equal(await s.runDue(), 5)
  t.same(ran.sort(), ['republish:ca4', 'sync-parent:ca5/parent'], 'the sound tasks ran')
  t.same(tasks.all().map((x) => x.key).sort(), ['republish:ca4', 'sync-parent:ca5/parent'], 'the undecodable ones left the tasks table')
  const items = quarantine.list()
  t.same(items.map((i) => [i.what, i.subject]), [['task', 'no-such-kind:ca1'], ['task', 'republish:ca2/garbage\u0000\u00ff'], ['task', 'sync-parent:ca3/not a handle!']])
  t.match(items[0]!.reason, /unknown task kind "no-such-kind"/)
  t.match(JSON.parse(items[0]!.raw!), { kind: 'no-such-kind', ca: 'ca1' }, 'the raw row is kept')
  t.same(quarantine.counts(), { task: 3, ca: 0, publication: 0 })
  t.equal(log.lines.filter((l) => l.msg.startsWith('task quarantined')).length, 3, 'logged once each')
  t.equal(log.lines.filter((l) => l.msg.startsWith('task failed')).length, 0, 'no retry was scheduled')
  t.same(quarantine.conditions().map((c) => [c.kind, c.subject]), [['task-quarantined', 'no-such-kind:ca1'], ['task-quarantined', 'republish:ca2/garbage\u0000\u00ff'], ['task-quarantined', 'sync-parent:ca3/not a handle!']])
  t.ok(quarantine.drop(items[0]!.id), 'dropped')
  t.notOk(quarantine.drop(items[0]!.id), 'an id dropped before is unknown')
  t.equal(quarantine.list().length, 2)
})

t.test('a CA that does not decode is quarantined as a CA; its task waits the longest back-off, once logged', async (t) => {
  const { s, tasks, log, quarantine, put } = setup(t, async (task) => {
    if (task.ca === 'broken') throw new StoredDataError('ca', 'broken', 'the stored state of CA broken does not decode', '{"trunc')
    return T0 + 60 * MINUTE
  })
  put('republish', 'broken', '')
  put('republish', 'fine', '')
  await s.runDue()
  t.same(quarantine.list().map((i) => [i.what, i.subject, i.raw]), [['ca', 'broken', undefined]], 'a CA state is never shown')
  t.equal(tasks.get('republish:broken')?.due, T0 + RETRY.maxMs, 'the task stays, at the longest back-off')
  t.equal(tasks.get('republish:fine')?.due, T0 + 60 * MINUTE)
  t.ok(quarantine.has('ca', 'broken'))
  t.equal(log.lines.filter((l) => l.msg.startsWith('ca quarantined')).length, 1)
})

t.test('a transient failure keeps the back-off and is not quarantined', async (t) => {
  const { s, tasks, quarantine, put } = setup(t, async () => {
    throw new Error('ECONNREFUSED')
  })
  put('republish', 'ca1', '')
  await s.runDue()
  t.same(quarantine.list(), [])
  t.equal(tasks.get('republish:ca1')?.attempts, 1)
  t.equal(tasks.get('republish:ca1')?.due, T0 + MINUTE)
})

t.test('a task that never settles frees its slot after stallMs, is reported stalled, and others go on', async (t) => {
  const ran: string[] = []
  const { s, clock, log, put } = setup(t, async (task) => {
    ran.push(task.key)
    if (task.ca === 'hung') return new Promise<number>(() => {})
    return clock.now() + 60 * MINUTE
  }, { concurrency: 1, stallMs: 5 * MINUTE, tickMs: 1000 })
  put('republish', 'hung', '', T0 - 1)
  put('republish', 'other', '', T0)
  s.start()
  await clock.advance(10)
  t.same(ran, ['republish:hung'], 'the hung task holds the only slot')
  t.same(s.health().stalled, [])
  await clock.advance(5 * MINUTE)
  t.same(s.health().stalled, [{ key: 'republish:hung', since: T0 }], 'reported as stalled')
  for (let i = 0; i < 20 && !ran.includes('republish:other'); i++) await clock.advance(1000)
  t.ok(ran.includes('republish:other'), 'the slot was freed: the other task ran')
  t.ok(log.lines.some((l) => l.level === 'error' && l.msg.startsWith('task stalled')))
  await clock.advance(2 * 60 * MINUTE)
  t.equal(ran.filter((k) => k === 'republish:hung').length, 1, 'a hung task is not started again while it hangs')
  t.ok((s.health().lastTick ?? 0) >= clock.now() - 1000, 'the loop ticks')
})
