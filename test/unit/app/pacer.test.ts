/**
 * The Pacer (app/shared/pacer.ts), on the FakeClock (test/helpers/fake-clock.ts): time moves only when a test advances
 * it, so every gap below is exact and no test waits on the wall clock (issue 23: line 149 of the wall-clock version
 * failed under load). With `retry`, a failed run is retried by itself after a back-off (1 s doubling to 30 s in the
 * publication server; shorter here) until it succeeds, without waiting for another kick (issue 10, defect 3: objects
 * acknowledged before a disk filled stayed out of RRDP and rsync until an unrelated change arrived).
 */
import t from 'tap'
import { Pacer } from '../../../src/app/shared/pacer.js'
import { FakeClock } from '../../helpers/fake-clock.js'

t.test('a failing run is retried with a doubling back-off until it succeeds, with no further kick', async (t) => {
  const clock = new FakeClock()
  let fail = 3
  const starts: number[] = []
  const errors: string[] = []
  let successes = 0
  const p = new Pacer(
    async () => {
      starts.push(clock.now())
      if (fail-- > 0) throw new Error(`failure ${3 - fail}`)
    },
    0,
    (e) => errors.push((e as Error).message),
    clock,
    { retry: { firstMs: 40, maxMs: 100 }, onSuccess: () => successes++ },
  )
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(1000)
  t.equal(successes, 1, 'succeeded in the end')
  t.same(errors, ['failure 1', 'failure 2', 'failure 3'], 'each failure reported')
  t.equal(starts.length, 4, 'one run and three retries')
  const gaps = starts.slice(1).map((s, i) => s - starts[i]!)
  t.same(gaps, [40, 80, 100], 'back-off 40, 80, then capped at 100 ms')
  t.notOk(p.failing())
  await clock.advance(10_000)
  t.equal(starts.length, 4, 'no run after the success without a kick')
  t.equal(clock.pending(), 0, 'and no timer left')
})

t.test('without retry a failed run waits for the next kick (the CA pacers keep their behaviour)', async (t) => {
  const clock = new FakeClock()
  let runs = 0
  const p = new Pacer(async () => {
    runs++
    throw new Error('no')
  }, 0, () => undefined, clock)
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(60_000)
  t.equal(runs, 1)
  p.kick()
  await clock.advance(0)
  t.equal(runs, 2, 'the next kick runs it again')
})

t.test('idle() does not wait for a retry, and stop() cancels it', async (t) => {
  const clock = new FakeClock()
  let runs = 0
  const p = new Pacer(async () => {
    runs++
    throw new Error('no')
  }, 0, () => undefined, clock, { retry: { firstMs: 50, maxMs: 50 } })
  p.kick()
  await clock.advance(0)
  await p.idle()
  t.equal(runs, 1, 'idle after the failed run')
  t.ok(p.failing())
  t.equal(clock.pending(), 1, 'the retry is armed')
  await p.stop()
  t.equal(clock.pending(), 0, 'stop cleared it')
  await clock.advance(1000)
  t.equal(runs, 1, 'no retry after stop')
})

/** A job that takes `ms` of fake time per run, recording each start. */
function timedJob(clock: FakeClock, ms: number, starts: number[]) {
  return async () => {
    starts.push(clock.now())
    await clock.sleep(ms)
  }
}

t.test('with busyShare a run of d ms is followed by the next no sooner than d / share after its start', async (t) => {
  const clock = new FakeClock()
  const starts: number[] = []
  const p = new Pacer(timedJob(clock, 60, starts), 0, () => undefined, clock, { busyShare: 0.25 })
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(10)
  p.kick() // during the first run: one more run, spaced by the first one's cost
  await clock.advance(1000)
  await p.idle()
  t.equal(starts.length, 2, 'the kicks during the run lead to one more run')
  t.equal(starts[1]! - starts[0]!, 240, 'a 60 ms run at a share of 0.25 spaces runs by 240 ms')
})

t.test('busy(ms) in a run: only that part counts toward busyShare', async (t) => {
  const clock = new FakeClock()
  const starts: number[] = []
  let count = 0
  const p: Pacer = new Pacer(
    async () => {
      starts.push(clock.now())
      await clock.sleep(100)
      p.busy(count) // the first run says none of its 100 ms counted, the second all of it
      count = 100
    },
    0,
    () => undefined,
    clock,
    { busyShare: 0.2 },
  )
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(10)
  p.kick() // during the first run: one more, at once after it (it counted 0 ms)
  await clock.advance(100)
  p.kick() // during the second run, which counts its 100 ms: one more, 500 ms after its start
  await clock.advance(1000)
  await p.idle()
  t.equal(starts.length, 3)
  t.equal(starts[1]! - starts[0]!, 100, 'after a run that counted 0 ms the next follows as soon as it ends')
  t.equal(starts[2]! - starts[1]!, 500, 'after a run that counted 100 ms at a share of 0.2 the next waits 500 ms')
})

t.test('maxSpacingMs caps the wait that busyShare asks for after a slow run', async (t) => {
  const clock = new FakeClock()
  const starts: number[] = []
  const p = new Pacer(timedJob(clock, 100, starts), 0, () => undefined, clock, { busyShare: 0.01, maxSpacingMs: 300 })
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(10)
  p.kick()
  await clock.advance(5000)
  t.equal(starts.length, 2, 'the second run came')
  t.equal(starts[1]! - starts[0]!, 300, 'a 100 ms run at a share of 0.01 would wait 10 s; capped at 300 ms')
})

t.test('with settle, a burst of kicks makes one run after the kicks stop, and constant kicks at least one per maxWaitMs', async (t) => {
  const clock = new FakeClock()
  const runs: number[] = []
  const p = new Pacer(async () => void runs.push(clock.now()), 0, () => undefined, clock, { settle: { quietMs: 150, maxWaitMs: 60_000 } })
  t.teardown(() => p.stop())
  for (let i = 0; i < 30; i++) {
    p.kick()
    await clock.advance(20)
  }
  t.equal(runs.length, 0, 'no run while the kicks go on (each one moves it later)')
  const lastKick = clock.now() - 20
  await clock.advance(1000)
  await p.idle()
  t.equal(runs.length, 1, 'one run for the whole burst')
  t.equal(runs[0]! - lastKick, 150, 'the quiet time after the last kick')

  const q = new Pacer(async () => void runs.push(clock.now()), 0, () => undefined, clock, { settle: { quietMs: 10_000, maxWaitMs: 200 } })
  t.teardown(() => q.stop())
  runs.length = 0
  const first = clock.now()
  for (let i = 0; i < 75; i++) {
    q.kick()
    await clock.advance(20)
  }
  t.same(runs.slice(0, 3).map((r) => r - first), [200, 400, 600], 'under constant kicks it runs at most maxWaitMs after the first kick not yet served')
})

t.test('flush runs what is pending at once, skipping settle and spacing, and the kicks made during that run', async (t) => {
  const clock = new FakeClock()
  const runs: number[] = []
  let kickDuringRun = true
  const p: Pacer = new Pacer(async () => {
    runs.push(clock.now())
    await Promise.resolve()
    if (kickDuringRun) {
      kickDuringRun = false
      p.kick()
    }
  }, 60_000, () => undefined, clock, { settle: { quietMs: 10_000, maxWaitMs: 60_000 } })
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(50)
  t.equal(runs.length, 0, 'settle holds the run back')
  const asked = clock.now()
  await p.flush()
  t.equal(runs.length, 2, 'flush ran it, and once more for the kick during the run (despite the minute of spacing)')
  t.same(runs, [asked, asked], 'at once: the clock did not move')
  await p.flush()
  t.equal(runs.length, 2, 'nothing pending: flush runs nothing')
})

t.test('the rsync pacing: after a tree that took 100 s, the next change is in a tree within 30 s of that run (issue 22, defect 2)', async (t) => {
  const { RSYNC_PACING, RSYNC_MAX_SPACING_MS } = await import('../../../src/app/pubd/output-lag.js')
  const clock = new FakeClock(1_000_000)
  const starts: number[] = []
  let cost = 100_000 // the first tree holds one publisher's burst of objects: 100 s (a loaded machine)
  const p: Pacer = new Pacer(
    async () => {
      starts.push(clock.now())
      p.busy(cost) // what the run cost, on the fake clock
      cost = 50
    },
    1000,
    () => undefined,
    clock,
    RSYNC_PACING,
  )
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(600) // the settle's quiet time
  t.equal(starts.length, 1, 'the first tree')
  p.kick() // another CA's ROA, just after
  await clock.advance(RSYNC_MAX_SPACING_MS + 100)
  t.equal(starts.length, 2, `the next tree within ${RSYNC_MAX_SPACING_MS} ms of the last start, not 100 × 100 s later`)
  t.ok(starts[1]! - starts[0]! <= RSYNC_MAX_SPACING_MS, `spaced ${starts[1]! - starts[0]!} ms`)
  t.ok(starts[1]! - starts[0]! >= RSYNC_MAX_SPACING_MS - 1, 'but no sooner than the bound: the slow tree still backs off')
  p.kick() // after a cheap tree, the next one follows at the pace of its own cost (min interval 1 s, settle 0.5 s)
  await clock.advance(5_100)
  t.equal(starts.length, 3)
  t.ok(starts[2]! - starts[1]! <= 5_100, `a cheap tree is followed within seconds (${starts[2]! - starts[1]!} ms)`)
})

t.test('a fake clock drives busyShare without maxSpacingMs: the spacing is the run time / share (the unbounded case)', async (t) => {
  const clock = new FakeClock(1_000_000)
  const starts: number[] = []
  const p: Pacer = new Pacer(
    async () => {
      starts.push(clock.now())
      p.busy(4_400)
    },
    0,
    () => undefined,
    clock,
    { busyShare: 0.01 },
  )
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(1)
  p.kick()
  await clock.advance(439_000)
  t.equal(starts.length, 1, 'a 4.4 s run at a share of 0.01 holds the next for 440 s')
  await clock.advance(2_000)
  t.equal(starts.length, 2)
})

t.test('budgetWindowMs: a single change after a quiet spell runs at once, whatever the last run cost within the budget', async (t) => {
  const clock = new FakeClock(1_000_000)
  const starts: number[] = []
  // share 0.05 over 60 s: 3 s of run time saved up at most (the RRDP pacing of issue 28)
  const p = new Pacer(timedJob(clock, 130, starts), 0, () => undefined, clock, { busyShare: 0.05, budgetWindowMs: 60_000, maxSpacingMs: 10_000 })
  t.teardown(() => p.stop())
  for (let i = 0; i < 5; i++) {
    p.kick() // one change, then wait for its run, then the next (one change at a time)
    await clock.advance(130)
    await p.idle()
  }
  t.equal(starts.length, 5)
  t.same(starts.slice(1).map((s, i) => s - starts[i]!), [130, 130, 130, 130], 'each change ran as soon as it came, not 20 × 130 ms later')
})

t.test('budgetWindowMs: under constant change the runs take at most the share of the time, plus what was saved up', async (t) => {
  const clock = new FakeClock(1_000_000)
  const starts: number[] = []
  const p = new Pacer(timedJob(clock, 100, starts), 0, () => undefined, clock, { busyShare: 0.05, budgetWindowMs: 60_000, maxSpacingMs: 10_000 })
  const first = clock.now()
  for (let i = 0; i < 1200; i++) {
    p.kick() // a change every 100 ms for 120 s
    await clock.advance(100)
  }
  const runTime = starts.length * 100
  t.ok(runTime <= 0.05 * 120_000 + 0.05 * 60_000 + 100, `${runTime} ms of runs in 120 s: the share plus the saved-up budget`)
  const gaps = starts.slice(1).map((s, i) => s - starts[i]!)
  t.same(gaps.slice(0, 30), Array(30).fill(100), 'the saved-up budget first: back-to-back runs (30 × 100 ms = 3 s)')
  t.ok(gaps.slice(-10).every((g) => g >= 2000 && g <= 2100), `then spaced d / share = 2 s as without a window (${gaps.slice(-10).join(', ')})`)
  t.ok(starts[0]! - first <= 100, 'the first ran at once')
  const stopped = p.stop() // waits for the run in progress, which sleeps on the fake clock
  await clock.advance(100)
  await stopped
})

t.test('budgetWindowMs: runs far beyond the budget are still never more than maxSpacingMs apart, and the debt is not carried on', async (t) => {
  const clock = new FakeClock(1_000_000)
  const starts: number[] = []
  const costs = [5_000, 10, 10]
  const p: Pacer = new Pacer(
    async () => {
      starts.push(clock.now())
      p.busy(costs[starts.length - 1]!)
    },
    0,
    () => undefined,
    clock,
    { busyShare: 0.05, budgetWindowMs: 60_000, maxSpacingMs: 10_000 },
  )
  t.teardown(() => p.stop())
  p.kick()
  await clock.advance(1)
  p.kick()
  await clock.advance(10_000)
  t.equal(starts.length, 2)
  t.equal(starts[1]! - starts[0]!, 10_000, 'a 5 s run in a 3 s budget: the next comes after maxSpacingMs, not 40 s later')
  p.kick()
  await clock.advance(10_000)
  t.equal(starts.length, 3)
  t.equal(starts[2]! - starts[1]!, 200, 'the run started in debt forgot it: the next is spaced by its own 10 ms / 0.05, not by the 5 s run before')
})
