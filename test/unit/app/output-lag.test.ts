/**
 * app/pubd/output-lag.ts: the acknowledged changes an output does not hold yet, oldest first, with the publisher of
 * each when known (publish-stalled names it); held changes leave, and the bound drops the oldest with their publisher.
 */
import t from 'tap'
import { lagObserver, OutputLag } from '../../../src/app/pubd/output-lag.js'
import { stallConditions, stalls } from '../../../src/liveness/stalls.js'

t.test('the oldest waiting change and its publisher', async (t) => {
  const lag = new OutputLag(2)
  t.equal(lag.oldestPublisher(), undefined, 'nothing waits')
  lag.acked(1, 1000, 'alice')
  lag.acked(2, 2000)
  t.same([lag.behind(5000, 1000), lag.oldestPublisher()], [1000, 'alice'])
  lag.holds([1])
  t.same([lag.behind(5000, 1000), lag.oldestPublisher()], [2000, undefined], 'a change acknowledged without a publisher')
  lag.acked(3, 3000, 'bob')
  lag.acked(4, 4000, 'carol')
  t.same([lag.seqs(), lag.oldestPublisher()], [[3, 4], 'bob'], 'over the bound the oldest are dropped, with their publisher')
})

t.test('the observer passes the publisher to both outputs, and the stall names it', async (t) => {
  const rrdp = new OutputLag()
  const rsync = new OutputLag()
  const observer = lagObserver(undefined, rrdp, rsync)
  observer.acked(7, 1000, 'ca1')
  t.same([rrdp.oldestPublisher(), rsync.oldestPublisher()], ['ca1', 'ca1'])
  const found = stalls({ now: 400_000, stallMs: 300_000, publication: { oldestWaiting: rrdp.behind(400_000, -1), publisher: rrdp.oldestPublisher()! } })
  t.same(stallConditions(found).publication, [{ kind: 'publish-stalled', subject: 'ca1', reason: 'publisher ca1: a change accepted at 1970-01-01T00:00:01.000Z is not on RRDP yet' }])
  observer.notified([7], 2000)
  t.equal(rrdp.oldestPublisher(), undefined, 'held: gone')
})
