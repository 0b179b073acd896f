/**
 * The keyed mutex (app/shared/keyed-mutex.ts) that CaCommands and CaPublisher use for commands and publication per CA: holders of one key
 * run one at a time, in the order they asked; holders of different keys run at the same time; a holder that throws
 * (synchronously or by rejecting) passes its error to its caller and still hands the lock on.
 */
import t from 'tap'
import { KeyedMutex } from '../../../src/app/shared/keyed-mutex.js'

/** A promise the test resolves when it chooses: the holder's critical section lasts until then. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((r) => (open = r))
  return { wait, open }
}

/** Let every pending promise callback run (a macrotask turn comes after all queued microtasks). */
const settle = () => new Promise((r) => setImmediate(r))

/** `p`, or a rejection after `ms` if it has not settled by then (so a lock that is never released fails, not hangs). */
async function within<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms)))
  try {
    return await Promise.race([p, late])
  } finally {
    clearTimeout(timer)
  }
}

t.test('holders of one key run one at a time: the second starts only when the first is done', async (t) => {
  const m = new KeyedMutex()
  const log: string[] = []
  const g = gate()
  const first = m.run('ca1', async () => {
    log.push('first start')
    await g.wait
    log.push('first end')
    return 1
  })
  const second = m.run('ca1', () => {
    log.push('second start')
    return 2
  })
  await settle()
  t.same(log, ['first start'], 'the second waits while the first holds the key')
  g.open()
  t.equal(await within(first), 1, "the first holder's value is returned to its caller")
  t.equal(await within(second), 2, "the second holder's value is returned to its caller")
  t.same(log, ['first start', 'first end', 'second start'])
})

t.test('holders of different keys run at the same time', async (t) => {
  const m = new KeyedMutex()
  const g = gate()
  let firstDone = false
  const first = m.run('ca1', async () => {
    await g.wait
    firstDone = true
  })
  const other = await within(m.run('ca2', () => 'ca2 ran'))
  t.equal(other, 'ca2 ran', 'ca2 is not held up by ca1')
  t.notOk(firstDone, 'while ca1 is still held')
  g.open()
  await first
})

t.test('a holder that rejects gives its caller the error and releases the key', async (t) => {
  const m = new KeyedMutex()
  const boom = new Error('boom')
  const failing = m.run('ca1', async () => {
    await settle()
    throw boom
  })
  const next = m.run('ca1', () => 'next ran')
  await t.rejects(failing, boom, 'the same error object reaches the caller')
  t.equal(await within(next), 'next ran', 'the next holder of the key runs')
})

t.test('a holder that throws synchronously gives its caller the error and releases the key', async (t) => {
  const m = new KeyedMutex()
  const failing = m.run('ca1', () => {
    throw new Error('sync boom')
  })
  const next = m.run('ca1', () => 'next ran')
  await t.rejects(failing, { message: 'sync boom' })
  t.equal(await within(next), 'next ran')
})

t.test('waiters get the key in the order they asked (FIFO), one at a time, whatever their holders do', async (t) => {
  const m = new KeyedMutex()
  const log: string[] = []
  const g = gate()
  const all: Promise<unknown>[] = [m.run('ca1', () => g.wait)]
  for (let i = 1; i <= 6; i++) {
    // Odd holders fail, the others take a few turns: neither may let a later waiter start early or overtake.
    all.push(
      m.run('ca1', async () => {
        log.push(`start ${i}`)
        for (let k = 0; k < (i % 3) + 1; k++) await settle()
        log.push(`end ${i}`)
        if (i % 2) throw new Error(`holder ${i}`)
      }),
    )
  }
  // A holder of another key in between does not disturb the queue of ca1.
  all.push(m.run('ca2', () => log.push('ca2')))
  await settle()
  t.same(log, ['ca2'], 'only the other key has run while ca1 is held')
  g.open()
  await Promise.allSettled(all)
  t.same(log, ['ca2', ...[1, 2, 3, 4, 5, 6].flatMap((i) => [`start ${i}`, `end ${i}`])])
})

t.test('a newcomer queues behind the last waiter, also after earlier holders have left', async (t) => {
  const m = new KeyedMutex()
  const log: string[] = []
  const a = gate()
  const b = gate()
  const first = m.run('ca1', () => a.wait)
  const second = m.run('ca1', async () => {
    log.push('second start')
    await b.wait
    log.push('second end')
  })
  a.open()
  await first
  await settle()
  t.same(log, ['second start'], 'the second holds the key now')
  const third = m.run('ca1', () => log.push('third'))
  await settle()
  t.same(log, ['second start'], 'the newcomer waits for the second')
  b.open()
  await second
  await within(third)
  t.same(log, ['second start', 'second end', 'third'])
  t.equal(await within(m.run('ca1', () => 'free')), 'free', 'the drained key is free again')
})
