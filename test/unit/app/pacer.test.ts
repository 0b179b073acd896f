/**
 * The Pacer (app/shared/pacer.ts): with `retry`, a failed run is retried by itself after a back-off (1 s doubling to 30 s
 * in the publication server; shorter here) until it succeeds, without waiting for another kick (issue 10, defect 3:
 * objects acknowledged before a disk filled stayed out of RRDP and rsync until an unrelated change arrived).
 */
import t from 'tap'
import { Pacer } from '../../../src/app/shared/pacer.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('a failing run is retried with a doubling back-off until it succeeds, with no further kick', async (t) => {
  let fail = 3
  const starts: number[] = []
  const errors: string[] = []
  let successes = 0
  const p = new Pacer(
    async () => {
      starts.push(Date.now())
      if (fail-- > 0) throw new Error(`failure ${3 - fail}`)
    },
    0,
    (e) => errors.push((e as Error).message),
    { retry: { firstMs: 40, maxMs: 100 }, onSuccess: () => successes++ },
  )
  t.teardown(() => p.stop())
  p.kick()
  const end = Date.now() + 5000
  while (successes === 0 && Date.now() < end) await sleep(10)
  t.equal(successes, 1, 'succeeded in the end')
  t.same(errors, ['failure 1', 'failure 2', 'failure 3'], 'each failure reported')
  t.equal(starts.length, 4, 'one run and three retries')
  const gaps = starts.slice(1).map((s, i) => s - starts[i])
  t.ok(gaps[0] >= 35 && gaps[1] >= 75 && gaps[2] >= 95, `back-off 40, 80, then capped at 100 ms (gaps ${gaps.join(', ')})`)
  t.notOk(p.failing())
  await sleep(250)
  t.equal(starts.length, 4, 'no run after the success without a kick')
})

t.test('without retry a failed run waits for the next kick (the CA pacers keep their behaviour)', async (t) => {
  let runs = 0
  const p = new Pacer(async () => {
    runs++
    throw new Error('no')
  }, 0, () => undefined)
  t.teardown(() => p.stop())
  p.kick()
  await sleep(200)
  t.equal(runs, 1)
})

t.test('idle() does not wait for a retry, and stop() cancels it', async (t) => {
  let runs = 0
  const p = new Pacer(async () => {
    runs++
    throw new Error('no')
  }, 0, () => undefined, { retry: { firstMs: 50, maxMs: 50 } })
  p.kick()
  await p.idle()
  t.equal(runs, 1, 'idle after the failed run')
  t.ok(p.failing())
  await p.stop()
  await sleep(150)
  t.equal(runs, 1, 'no retry after stop')
})

t.test('with busyShare a run of d ms is followed by the next no sooner than d / share after its start', async (t) => {
  const starts: number[] = []
  const p = new Pacer(
    async () => {
      starts.push(Date.now())
      await sleep(60)
    },
    0,
    () => undefined,
    { busyShare: 0.25 },
  )
  t.teardown(() => p.stop())
  p.kick()
  await sleep(10)
  p.kick() // during the first run: one more run, spaced by the first one's cost
  const end = Date.now() + 5000
  while (starts.length < 2 && Date.now() < end) await sleep(10)
  await p.idle()
  t.equal(starts.length, 2, 'the kicks during the run lead to one more run')
  t.ok(starts[1]! - starts[0]! >= 235, `a 60 ms run at a share of 0.25 spaces runs by 240 ms (gap ${starts[1]! - starts[0]!} ms)`)
})

t.test('busy(ms) in a run: only that part counts toward busyShare', async (t) => {
  const starts: number[] = []
  let count = 0
  const p: Pacer = new Pacer(
    async () => {
      starts.push(Date.now())
      await sleep(100)
      p.busy(count) // the first run says none of its 100 ms counted, the second all of it
      count = 100
    },
    0,
    () => undefined,
    { busyShare: 0.2 },
  )
  t.teardown(() => p.stop())
  for (let i = 0; i < 3; i++) {
    p.kick()
    await sleep(10)
    p.kick() // during the run: one more
    const end = Date.now() + 5000
    while (starts.length < i + 2 && Date.now() < end) await sleep(5)
  }
  await p.idle()
  t.ok(starts[1]! - starts[0]! < 300, `after a run that counted 0 ms the next follows at once (gap ${starts[1]! - starts[0]!} ms)`)
  t.ok(starts[2]! - starts[1]! >= 495, `after a run that counted 100 ms at a share of 0.2 the next waits 500 ms (gap ${starts[2]! - starts[1]!} ms)`)
})

t.test('maxSpacingMs caps the wait that busyShare asks for after a slow run', async (t) => {
  const starts: number[] = []
  const p = new Pacer(
    async () => {
      starts.push(Date.now())
      await sleep(100)
    },
    0,
    () => undefined,
    { busyShare: 0.01, maxSpacingMs: 300 },
  )
  t.teardown(() => p.stop())
  p.kick()
  await sleep(10)
  p.kick()
  const end = Date.now() + 5000
  while (starts.length < 2 && Date.now() < end) await sleep(10)
  t.equal(starts.length, 2, 'the second run came')
  t.ok(starts[1]! - starts[0]! >= 295 && starts[1]! - starts[0]! < 2000, `a 100 ms run at a share of 0.01 would wait 10 s; capped at 300 ms (gap ${starts[1]! - starts[0]!} ms)`)
})

t.test('with settle, a burst of kicks makes one run after the kicks stop, and constant kicks at least one per maxWaitMs', async (t) => {
  const runs: number[] = []
  const p = new Pacer(async () => void runs.push(Date.now()), 0, () => undefined, { settle: { quietMs: 150, maxWaitMs: 60_000 } })
  t.teardown(() => p.stop())
  const burstEnd = Date.now() + 600
  while (Date.now() < burstEnd) {
    p.kick()
    await sleep(20)
  }
  t.equal(runs.length, 0, 'no run while the kicks go on (each one moves it later)')
  const lastKick = Date.now()
  await p.idle()
  t.equal(runs.length, 1, 'one run for the whole burst')
  t.ok(runs[0] - lastKick >= 100, `after the kicks stopped for the quiet time (${runs[0] - lastKick} ms)`)

  const q = new Pacer(async () => void runs.push(Date.now()), 0, () => undefined, { settle: { quietMs: 10_000, maxWaitMs: 200 } })
  t.teardown(() => q.stop())
  runs.length = 0
  const end = Date.now() + 1500
  while (Date.now() < end) {
    q.kick()
    await sleep(20)
  }
  t.ok(runs.length >= 1, `under constant kicks it still runs, bounded by maxWaitMs (${runs.length} runs in 1.5 s)`)
})

t.test('flush runs what is pending at once, skipping settle and spacing, and the kicks made during that run', async (t) => {
  const runs: number[] = []
  let kickDuringRun = true
  const p = new Pacer(async () => {
    runs.push(Date.now())
    await sleep(30)
    if (kickDuringRun) {
      kickDuringRun = false
      p.kick()
    }
  }, 60_000, () => undefined, { settle: { quietMs: 10_000, maxWaitMs: 60_000 } })
  t.teardown(() => p.stop())
  p.kick()
  await sleep(50)
  t.equal(runs.length, 0, 'settle holds the run back')
  const asked = Date.now()
  await p.flush()
  t.equal(runs.length, 2, 'flush ran it, and once more for the kick during the run (despite the minute of spacing)')
  t.ok(Date.now() - asked < 2000, `at once (${Date.now() - asked} ms)`)
  await p.flush()
  t.equal(runs.length, 2, 'nothing pending: flush runs nothing')
})

/** A clock whose time moves only when the test says: timers fire in order as it advances. */
function fakeClock() {
  let now = 1_000_000
  let next = 0
  const timers = new Map<number, { at: number; f: () => void }>()
  return {
    now: () => now,
    setTimeout: (f: () => void, ms: number) => (timers.set(++next, { at: now + ms, f }), next),
    clearTimeout: (h: unknown) => void timers.delete(h as number),
    /** Move the time forward by `ms`, firing the timers due on the way (and letting their runs' promises settle). */
    async advance(ms: number) {
      const end = now + ms
      for (;;) {
        await new Promise((r) => setImmediate(r))
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
        if (!due) break
        timers.delete(due[0])
        now = Math.max(now, due[1].at)
        due[1].f()
      }
      now = end
      await new Promise((r) => setImmediate(r))
    },
  }
}

t.test('the rsync pacing: after a tree that took 100 s, the next change is in a tree within 30 s of that run (issue 22, defect 2)', async (t) => {
  const { RSYNC_PACING, RSYNC_MAX_SPACING_MS } = await import('../../../src/app/pubd/output-lag.js')
  const clock = fakeClock()
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
    RSYNC_PACING,
    clock,
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
  const clock = fakeClock()
  const starts: number[] = []
  const p: Pacer = new Pacer(
    async () => {
      starts.push(clock.now())
      p.busy(4_400)
    },
    0,
    () => undefined,
    { busyShare: 0.01 },
    clock,
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
