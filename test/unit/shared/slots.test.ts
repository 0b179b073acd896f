/** The bound on jobs at once (app/shared/slots.ts): first come first served, a slot freed however its job settles. */
import t from 'tap'
import { Slots } from '../../../src/app/shared/slots.js'

t.test('at most `size` jobs run; a failed job frees its slot; waiting jobs start in order', async (t) => {
  const slots = new Slots(2)
  const gates: (() => void)[] = []
  const started: string[] = []
  const job = (name: string, fail = false) => slots.run(async () => {
    started.push(name)
    await new Promise<void>((resolve) => gates.push(resolve))
    if (fail) throw new Error(`${name} failed`)
    return name
  })
  const a = job('a', true)
  const b = job('b')
  const c = job('c')
  const d = job('d')
  await Promise.resolve()
  t.same(started, ['a', 'b'], 'two run')
  t.same(slots.load(), { running: 2, waiting: 2 })
  gates.shift()!()
  t.match(await a.catch((e: Error) => e.message), 'a failed', 'the failure reaches the caller')
  await Promise.resolve()
  t.same(started, ['a', 'b', 'c'], 'its slot went to the first waiting job')
  gates.splice(0).forEach((g) => g())
  t.same(await Promise.all([b, c]), ['b', 'c'])
  gates.splice(0).forEach((g) => g())
  t.equal(await d, 'd')
  t.same(slots.load(), { running: 0, waiting: 0 }, 'all slots free')
  t.throws(() => new Slots(0), RangeError)
})
