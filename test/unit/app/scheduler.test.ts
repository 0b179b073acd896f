/**
 * The scheduler (scheduler.ts) over the real SQLite TaskStore in a temporary database, on the FakeClock, with a `run`
 * given by each test. It pins: only tasks due at `now` run; a run's result is the next due time (attempts back to 0)
 * and `undefined` drops the task; a failure is logged and retried after the scheduler's back-off (first delay doubled
 * per attempt, capped) with one more attempt, until a success; one failing or slow task never stops another; a task
 * moved or removed while it runs keeps that change; from `start()` tasks run on the timer, at most `concurrency` at
 * once and never twice at the same time; `stop()` waits for running tasks and nothing starts after it. No test waits
 * on the wall clock: the fake clock's time moves only when a test advances it.
 */
import t, { type Test } from 'tap'
import { join } from 'node:path'
import { retryAt, Scheduler, taskKey, type SchedulerOptions } from '../../../src/app/shared/scheduler.js'
import { Db } from '../../../src/store/db.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock } from '../../helpers/fake-clock.js'
import type { Task, TaskKind, TaskStore } from '../../../src/store/interfaces.js'
import { SqlTaskStore } from '../../../src/store/task-store.js'
import { RecordingLogger } from '../../helpers/recording-logger.js'

const T0 = Date.parse('2026-03-01T00:00:00Z')
const MINUTE = 60_000

/** A promise the test resolves when it chooses, to hold a task in the middle of its run. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((r) => (open = r))
  return { wait, open }
}

/** Advance the fake clock in `stepMs` steps until `cond` holds; fail after `ms` of fake time. */
async function until(t: Test, clock: FakeClock, cond: () => boolean, what: string, stepMs = 10, ms = 10 * MINUTE): Promise<void> {
  const end = clock.now() + ms
  while (!cond()) {
    if (clock.now() > end) {
      t.fail(`timed out waiting until ${what}`)
      return
    }
    await clock.advance(stepMs)
  }
}

/** The real SQLite task store, whose writes or reads fail on demand as SQLite does when the disk is full. */
class FailingTaskStore extends SqlTaskStore {
  failWrites = false
  failReads = false
  dueCalls = 0
  private fault(): never {
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
  }
  override put(task: Task): void {
    if (this.failWrites) this.fault()
    super.put(task)
  }
  override due(now: number, limit: number): Task[] {
    this.dueCalls++
    if (this.failReads) this.fault()
    return super.due(now, limit)
  }
}

/** The back-off of these tests: one minute, doubled per attempt, at most an hour. */
const RETRY = { firstMs: MINUTE, maxMs: 60 * MINUTE }

/** A scheduler on a fresh database, on a FakeClock at T0. `run` defaults to "done, next due in an hour". */
function setup(t: Test, o: Partial<SchedulerOptions> = {}, makeStore: (db: Db) => TaskStore = (db) => new SqlTaskStore(db)) {
  const db = Db.open(join(tempDir(t, 'svc-scheduler-'), 'svcd.db'))
  const tasks = makeStore(db)
  const clock = new FakeClock(T0)
  const log = new RecordingLogger()
  const runs: string[] = []
  const s = new Scheduler({
    tasks,
    run: async (task) => {
      runs.push(task.key)
      return clock.now() + 60 * MINUTE
    },
    retry: RETRY,
    clock,
    log,
    ...o,
  })
  t.teardown(async () => {
    await s.stop()
    db.close()
  })
  /** Put a task straight into the store (as a restart finds it). */
  const put = (kind: TaskKind, ca: string, arg: string, due: number, attempts = 0) => tasks.put({ key: taskKey(kind, ca, arg), kind, ca, arg, due, attempts })
  return { s, tasks, clock, log, runs, put }
}

t.test('the back-off: the first delay doubled per attempt so far (at most 2^10), never more than the cap', async (t) => {
  const b = { firstMs: 30_000, maxMs: 3600_000 }
  t.same([0, 1, 2, 3, 6, 7, 20].map((a) => retryAt(b, a, T0) - T0), [30_000, 60_000, 120_000, 240_000, 1_920_000, 3600_000, 3600_000])
  t.equal(retryAt({ firstMs: 1, maxMs: Infinity }, 30, 0), 1024, 'the doubling stops at 2^10')
})

t.test('task keys name the kind, the CA and the argument', async (t) => {
  t.equal(taskKey('republish', 'ca1', ''), 'republish:ca1')
  t.equal(taskKey('sync-parent', 'ca1', 'testbed'), 'sync-parent:ca1/testbed')
})

t.test('runDue runs the tasks due at now, earliest first, and leaves later ones alone', async (t) => {
  const { s, tasks, clock, runs, put } = setup(t)
  put('republish', 'late', '', T0 + 1)
  put('republish', 'now', '', T0)
  put('sync-parent', 'early', 'p', T0 - MINUTE)
  t.equal(await s.runDue(), 2, 'two tasks ran')
  t.same(runs, ['sync-parent:early/p', 'republish:now'], 'in order of due time')
  t.equal(tasks.get('republish:late')?.due, T0 + 1, 'the task not yet due is untouched')
  t.equal(await s.runDue(), 0, 'nothing more is due at the same time')
  await clock.advance(1)
  t.equal(await s.runDue(), 1)
  t.same(runs, ['sync-parent:early/p', 'republish:now', 'republish:late'])
})

t.test('runDue runs at most `concurrency` tasks at once', async (t) => {
  let active = 0
  let most = 0
  const { s, put } = setup(t, {
    concurrency: 2,
    run: async () => {
      most = Math.max(most, ++active)
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
      active--
      return T0 + MINUTE
    },
  })
  for (let i = 0; i < 7; i++) put('republish', `ca${i}`, '', T0)
  t.equal(await s.runDue(), 7, 'every due task ran')
  t.equal(most, 2, 'never more than two at a time')
})

t.test('a run resolves to the next due time, which resets attempts; undefined drops the task', async (t) => {
  const { s, tasks, put } = setup(t, {
    run: async (task) => (task.ca === 'gone' ? undefined : T0 + 5 * MINUTE),
  })
  put('republish', 'ca1', '', T0, 3)
  put('republish', 'gone', '', T0)
  await s.runDue()
  t.strictSame(tasks.get('republish:ca1'), { key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: T0 + 5 * MINUTE, attempts: 0 })
  t.equal(tasks.get('republish:gone'), undefined, 'the task whose run answered undefined is gone')
  t.same(tasks.all().map((x) => x.key), ['republish:ca1'])
})

t.test('a failure is logged and retried after the back-off; the back-off grows with attempts until a success', async (t) => {
  let fail = 3
  const { s, tasks, clock, log, put } = setup(t, {
    run: async () => {
      if (fail-- > 0) throw new Error(`parent unreachable (${3 - fail})`)
      return clock.now() + 60 * MINUTE
    },
  })
  put('sync-parent', 'ca1', 'p', T0)
  const seen: { due: number; attempts: number }[] = []
  for (let i = 0; i < 3; i++) {
    t.equal(await s.runDue(), 1)
    const after = tasks.get('sync-parent:ca1/p')!
    seen.push({ due: after.due - clock.now(), attempts: after.attempts })
    t.equal(await s.runDue(), 0, 'not run again before its retry time')
    await clock.advance(after.due - clock.now())
  }
  t.same(seen, [
    { due: MINUTE, attempts: 1 },
    { due: 2 * MINUTE, attempts: 2 },
    { due: 4 * MINUTE, attempts: 3 },
  ], 'retried after 1, 2 and 4 minutes, attempts counted')
  t.same(log.lines, [1, 2, 3].map((n, i) => ({
    level: 'warn',
    msg: 'task failed; will retry',
    fields: { task: 'sync-parent:ca1/p', attempts: n, retry_at: new Date(T0 + [1, 3, 7][i] * MINUTE).toISOString(), reason: `parent unreachable (${n})` },
  })), 'each failure logged with the task, its attempts, the retry time and the reason')
  t.equal(await s.runDue(), 1, 'the fourth try runs at its retry time')
  t.strictSame(tasks.get('sync-parent:ca1/p'), { key: 'sync-parent:ca1/p', kind: 'sync-parent', ca: 'ca1', arg: 'p', due: clock.now() + 60 * MINUTE, attempts: 0 }, 'the success resets attempts')
})

t.test('the back-off starts from the attempts stored with the task, so a restart keeps it', async (t) => {
  const { s, tasks, put } = setup(t, {
    run: async () => {
      throw new Error('down')
    },
  })
  put('republish', 'ca1', '', T0, 4)
  await s.runDue()
  t.same([tasks.get('republish:ca1')?.due, tasks.get('republish:ca1')?.attempts], [T0 + 16 * MINUTE, 5], 'the stored attempts (4) drive the back-off')
  put('republish', 'ca1', '', T0, 9)
  await s.runDue()
  t.equal(tasks.get('republish:ca1')?.due, T0 + 60 * MINUTE, 'capped at the longest back-off')
})

t.test('one failing task does not stop the others due with it', async (t) => {
  const { s, tasks, clock, runs, put } = setup(t, {
    run: (task) => {
      runs.push(task.key)
      // One throws synchronously, one rejects: both are failures of that task alone.
      if (task.ca === 'sync') throw new Error('thrown at once')
      if (task.ca === 'async') return Promise.reject(new Error('rejected'))
      return Promise.resolve(clock.now() + 60 * MINUTE)
    },
  })
  put('republish', 'a', '', T0 - 3)
  put('republish', 'sync', '', T0 - 2)
  put('republish', 'async', '', T0 - 1)
  put('republish', 'b', '', T0)
  t.equal(await s.runDue(), 4)
  t.same(runs, ['republish:a', 'republish:sync', 'republish:async', 'republish:b'], 'every due task ran')
  t.same(tasks.all().map((x) => [x.key, x.due - T0, x.attempts]), [
    ['republish:sync', MINUTE, 1],
    ['republish:async', MINUTE, 1],
    ['republish:a', 60 * MINUTE, 0],
    ['republish:b', 60 * MINUTE, 0],
  ], 'the failures are retried, the others rescheduled as they asked')
})

t.test('a task moved or removed while it runs keeps that change', async (t) => {
  let during: () => void = () => undefined
  let fail = false
  const { s, tasks, put } = setup(t, {
    run: async () => {
      during()
      if (fail) throw new Error('failed')
      return T0 + 60 * MINUTE
    },
  })
  put('sync-parent', 'ca1', 'p', T0)
  during = () => s.schedule('sync-parent', 'ca1', 'p', T0 + 7 * MINUTE)
  await s.runDue()
  t.equal(tasks.get('sync-parent:ca1/p')?.due, T0 + 7 * MINUTE, 'moved during a successful run: the move wins over the result')

  put('sync-parent', 'ca1', 'p', T0)
  during = () => s.unschedule('sync-parent', 'ca1', 'p')
  await s.runDue()
  t.equal(tasks.get('sync-parent:ca1/p'), undefined, 'removed during a successful run: stays removed')

  put('sync-parent', 'ca1', 'p', T0)
  fail = true
  await s.runDue()
  t.equal(tasks.get('sync-parent:ca1/p'), undefined, 'removed during a failed run: no retry is put back')
})

t.test('schedule moves a task; with earlier it only ever brings it forward and keeps its attempts', async (t) => {
  const { s, tasks, put } = setup(t)
  s.schedule('republish', 'ca1', '', T0 + 10 * MINUTE)
  t.equal(tasks.get('republish:ca1')?.due, T0 + 10 * MINUTE, 'created')
  s.schedule('republish', 'ca1', '', T0 + 20 * MINUTE)
  t.equal(tasks.get('republish:ca1')?.due, T0 + 20 * MINUTE, 'moved later without earlier')
  s.schedule('republish', 'ca1', '', T0 + 30 * MINUTE, { earlier: true })
  t.equal(tasks.get('republish:ca1')?.due, T0 + 20 * MINUTE, 'not moved later with earlier')
  put('republish', 'ca1', '', T0 + 20 * MINUTE, 2)
  s.schedule('republish', 'ca1', '', T0 + 5 * MINUTE, { earlier: true })
  t.same([tasks.get('republish:ca1')?.due, tasks.get('republish:ca1')?.attempts], [T0 + 5 * MINUTE, 2], 'brought forward, attempts kept')
  s.unschedule('republish', 'ca1', '')
  t.same(tasks.all(), [], 'unschedule removes it')
})

t.test('schedule with ifMissing creates a task but never moves an existing one (a start keeps stored due times)', async (t) => {
  const { s, tasks } = setup(t)
  s.schedule('republish', 'ca1', '', T0 + 10 * MINUTE, { ifMissing: true })
  t.equal(tasks.get('republish:ca1')?.due, T0 + 10 * MINUTE, 'created')
  s.schedule('republish', 'ca1', '', T0, { ifMissing: true })
  t.equal(tasks.get('republish:ca1')?.due, T0 + 10 * MINUTE, 'not moved earlier')
})

t.test('after start, a task scheduled due now runs at once, not at the next tick', async (t) => {
  const { s, clock, runs } = setup(t, { tickMs: 60 * MINUTE })
  s.start()
  await clock.advance(20)
  t.same(runs, [], 'nothing to run yet')
  s.schedule('republish', 'ca1', '', clock.now())
  await clock.advance(0)
  t.same(runs, ['republish:ca1'], 'ran without the clock moving, well before the hour-long tick')
})

t.test('after start, at most `concurrency` tasks run at once, and a slow task does not hold up the others', async (t) => {
  const slow = gate()
  let active = 0
  let most = 0
  const done: string[] = []
  const { s, clock, put, tasks } = setup(t, {
    concurrency: 2,
    tickMs: 20,
    run: async (task) => {
      active++
      most = Math.max(most, active)
      if (task.ca === 'slow') await slow.wait
      else await clock.sleep(5)
      active--
      done.push(task.ca)
      return clock.now() + 60 * MINUTE
    },
  })
  put('republish', 'slow', '', T0 - 10)
  for (let i = 1; i <= 4; i++) put('republish', `ca${i}`, '', T0 - 10 + i)
  s.start()
  await until(t, clock, () => done.length === 4, 'the four quick tasks are done')
  t.same(done, ['ca1', 'ca2', 'ca3', 'ca4'], 'the quick tasks ran one after another in the free slot, in due order')
  t.equal(most, 2, 'never more than two at once')
  t.equal(tasks.get('republish:slow')?.due, T0 - 10, 'the slow task is still running')
  const opened = clock.now()
  slow.open()
  await until(t, clock, () => done.length === 5, 'the slow task is done')
  t.equal(tasks.get('republish:slow')?.due, opened + 60 * MINUTE)
})

t.test('a task is never run twice at the same time', async (t) => {
  const g = gate()
  let calls = 0
  const { s, clock, put } = setup(t, {
    tickMs: 10,
    run: async () => {
      calls++
      await g.wait
      return T0 + 60 * MINUTE
    },
  })
  put('republish', 'ca1', '', T0)
  s.start()
  await until(t, clock, () => calls === 1, 'the task started')
  const extra = s.runDue()
  await clock.advance(60)
  t.equal(calls, 1, 'neither runDue nor the timer started it again while it is still due and running')
  g.open()
  t.equal(await extra, 0, 'runDue skipped the running task')
})

t.test('stop waits for the running task, and nothing starts after it', async (t) => {
  const g = gate()
  const runs: string[] = []
  let finished = false
  const { s, clock, put } = setup(t, {
    tickMs: 10,
    run: async (task) => {
      runs.push(task.key)
      if (task.ca === 'ca1') {
        await g.wait
        finished = true
      }
      return T0 + 60 * MINUTE
    },
  })
  put('republish', 'ca1', '', T0)
  s.start()
  await until(t, clock, () => runs.length === 1, 'the task started')
  let stopped = false
  const stopping = s.stop().then(() => (stopped = true))
  await clock.advance(30)
  t.notOk(stopped, 'stop has not resolved while the task runs')
  g.open()
  await stopping
  t.ok(finished, 'stop resolved after the task finished')
  s.schedule('republish', 'ca2', '', T0)
  put('republish', 'ca3', '', T0 - 1)
  await clock.advance(60)
  t.same(runs, ['republish:ca1'], 'tasks due after stop are not run')
  t.equal(clock.pending(), 0, 'no timer is left armed')
})

/** setup() over a store that fails on demand, with one task due now and unhandled rejections recorded. */
function failingSetup(t: Test, o: Partial<SchedulerOptions> = {}) {
  const rejections: unknown[] = []
  const onRejection = (e: unknown) => rejections.push(e)
  process.on('unhandledRejection', onRejection)
  t.teardown(() => void process.off('unhandledRejection', onRejection))
  let store: FailingTaskStore | undefined
  const r = setup(t, { tickMs: 20, ...o }, (db) => (store = new FailingTaskStore(db)))
  r.put('republish', 'ca1', '', T0)
  return { ...r, tasks: store!, rejections }
}

t.test('a task store that cannot be written (disk full) holds the task back instead of crashing or re-running it', async (t) => {
  const { s, tasks, clock, log, runs, rejections } = failingSetup(t)
  tasks.failWrites = true
  s.start()
  await until(t, clock, () => log.lines.some((l) => l.msg === 'the task succeeded but its next due time could not be stored; it is held back'), 'the failure is logged')
  await clock.advance(200)
  t.same(runs, ['republish:ca1'], 'ran once, and is not run again every tick while held back')
  t.same(rejections, [], 'no unhandled rejection (Node would stop svcd)')
  t.match(log.lines.find((l) => l.msg.startsWith('the task succeeded but'))?.fields, { task: 'republish:ca1', until: new Date(T0 + MINUTE).toISOString(), reason: /disk is full/ })
  tasks.failWrites = false
  await until(t, clock, () => runs.length === 2, 'the task runs again once held back long enough', 1000)
  t.ok(clock.now() >= T0 + MINUTE, 'not before the back-off')
  await until(t, clock, () => (tasks.get('republish:ca1')?.due ?? 0) >= T0 + 61 * MINUTE, 'its next due time is stored (an hour after that run)')
  t.equal(tasks.get('republish:ca1')?.attempts, 0)
  t.same(rejections, [])
})

t.test('a task store that cannot be read is logged once and checked again each tick, without throwing from the timer', async (t) => {
  const { s, tasks, clock, log, runs, rejections } = failingSetup(t)
  tasks.failReads = true
  const uncaught: unknown[] = []
  const onUncaught = (e: unknown) => uncaught.push(e)
  // tap reports an exception thrown from a timer as a failure of its own; count them here as well.
  process.on('uncaughtException', onUncaught)
  t.teardown(() => void process.off('uncaughtException', onUncaught))
  s.start()
  await until(t, clock, () => tasks.dueCalls >= 4, 'several ticks')
  t.equal(log.lines.filter((l) => l.msg.startsWith('task store failed')).length, 1, 'logged once for the whole spell')
  t.same(runs, [])
  tasks.failReads = false
  await until(t, clock, () => runs.length === 1, 'the due task runs once the store answers')
  t.ok(log.lines.some((l) => l.msg === 'task store works again'), 'and the recovery is logged')
  t.same([...rejections, ...uncaught], [])
})

t.test('while a task runs, the scheduler sleeps until the next tick instead of polling', async (t) => {
  const slow = gate()
  const { s, tasks, clock, runs } = failingSetup(t, {
    tickMs: 1000,
    run: async (task) => {
      runs.push(task.key)
      await slow.wait
      return T0 + 60 * MINUTE
    },
  })
  s.start()
  await until(t, clock, () => runs.length === 1, 'the task started')
  const before = tasks.dueCalls
  await clock.advance(2500)
  t.ok(tasks.dueCalls - before <= 3, `at most one check a tick (1 s) while the task runs: ${tasks.dueCalls - before} in 2.5 s`)
  slow.open()
  await until(t, clock, () => tasks.get('republish:ca1')?.due === T0 + 60 * MINUTE, 'the task finished')
})
