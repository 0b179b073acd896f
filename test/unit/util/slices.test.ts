/** Sliced computations (util/slices.ts): run at once or with pauses, the same result; the sliced sort is a stable sort. */
import t from 'tap'
import { runSliced, runSync, sliceCounter, sortSteps, type Sliced } from '../../../src/util/slices.js'

function* sum(xs: number[]): Sliced<number> {
  const due = sliceCounter(10)
  let s = 0
  for (const x of xs) {
    s += x
    if (due()) yield
  }
  return s
}

t.test('runSync and runSliced give the same result; runSliced pauses at every yield', async (t) => {
  const xs = Array.from({ length: 95 }, (_, i) => i)
  t.equal(runSync(sum(xs)), 4465)
  let pauses = 0
  t.equal(await runSliced(sum(xs), async () => void pauses++), 4465)
  t.equal(pauses, 9, 'one pause per 10 items')
  t.equal(await runSliced(sum(xs)), 4465, 'without a pause: runs through')
})

t.test('an error thrown inside the computation reaches the caller', async (t) => {
  function* bad(): Sliced<number> {
    yield
    throw new Error('boom')
  }
  t.throws(() => runSync(bad()), /boom/)
  await t.rejects(runSliced(bad(), async () => {}), /boom/)
})

t.test('sortSteps: the order and stability of Array.prototype.sort, in slices', async (t) => {
  for (const [n, slice] of [[0, 4], [1, 4], [7, 4], [8, 4], [9, 4], [1000, 7], [5000, 64], [20_000, 2000]] as const) {
    // Pairs with many equal keys: the second field shows whether ties keep their order.
    const items = Array.from({ length: n }, (_, i) => ({ k: (i * 7919) % 13, i }))
    const expected = [...items].sort((a, b) => a.k - b.k)
    let pauses = 0
    const sorted = await runSliced(sortSteps(items, (a, b) => a.k - b.k, slice), async () => void pauses++)
    t.same(sorted, expected, `${n} items, slices of ${slice}: stable and sorted`)
    t.equal(sorted, items, 'sorted in place')
    if (n > 4 * slice) t.ok(pauses >= n / slice, `paused ${pauses} times`)
  }
  const sorted = Array.from({ length: 10_000 }, (_, i) => i)
  t.same(runSync(sortSteps([...sorted], (a, b) => a - b, 64)), sorted, 'an input already in order stays so')
  t.same(runSync(sortSteps([...sorted].reverse(), (a, b) => a - b, 64)), sorted, 'a reversed one is sorted')
})
