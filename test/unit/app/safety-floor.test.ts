/** The safety floor rule and its one-shot release (app/pubd/safety-floor.ts; issue 12). */
import t from 'tap'
import { floorBroken, SafetyFloor } from '../../../src/app/pubd/safety-floor.js'

t.test('floorBroken: growth never held; a minimum count and a maximum shrink per cycle', async (t) => {
  const f = { minObjects: 10, maxShrinkPercent: 20 }
  t.equal(floorBroken(f, 0, 5), undefined, 'growth, even below the minimum')
  t.equal(floorBroken(f, 100, 100), undefined)
  t.equal(floorBroken(f, 100, 80), undefined, 'exactly 20% is allowed')
  t.match(floorBroken(f, 100, 79), /21 of 100 objects would go at once \(21\.0%\), more than 20%/)
  t.match(floorBroken(f, 11, 9), /9 objects would remain \(11 now\), fewer than the minimum of 10/)
  t.equal(floorBroken({ minObjects: 0, maxShrinkPercent: 100 }, 1000, 0), undefined, 'off with 0 and 100')
})

t.test('a release lets the next cycle of each output through once', async (t) => {
  const floor = new SafetyFloor({ minObjects: 0, maxShrinkPercent: 50 })
  t.ok(floor.check('rrdp', 10, 1))
  floor.release()
  t.equal(floor.check('rrdp', 10, 1), undefined, 'rrdp released')
  t.ok(floor.check('rrdp', 10, 1), 'once')
  t.equal(floor.check('rsync', 10, 1), undefined, 'rsync released too')
  t.ok(floor.check('rsync', 10, 1))
  floor.release()
  t.equal(floor.check('rrdp', 10, 9), undefined)
  t.equal(floor.check('rrdp', 10, 1), undefined, 'a cycle within the floor does not use up the release')
})
