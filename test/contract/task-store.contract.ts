/** The TaskStore contract (store/interfaces.ts): scheduled tasks with due times and failure counts. */
import type { Test } from 'tap'
import { fresh, type StoresFactory } from './stores.contract.js'

export function taskStoreContract(t: Test, make: StoresFactory): void {
  t.test('put, get, putEarlier, due, next, remove, removeCa, all', async (t) => {
    const { stores } = fresh(t, make)
    const ts = stores.tasks
    t.equal(ts.next(), undefined, 'no task: no next due time')
    ts.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1000 })
    t.same(ts.get('republish:ca1'), { key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1000, attempts: 0 }, 'a new task has no attempts')
    ts.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 2000, attempts: 3 })
    ts.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 2500 })
    t.same(ts.get('republish:ca1'), { key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 2500, attempts: 3 }, 'put moves the task and keeps attempts unless given')
    ts.putEarlier({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 3000 })
    t.equal(ts.get('republish:ca1')?.due, 2500, 'putEarlier keeps an earlier due time')
    ts.putEarlier({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1500 })
    t.same(ts.get('republish:ca1'), { key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1500, attempts: 3 }, 'putEarlier moves earlier, keeping attempts')
    ts.putEarlier({ key: 'sync-parent:ca1:p', kind: 'sync-parent', ca: 'ca1', arg: 'p', due: 500 })
    ts.put({ key: 'republish:ca2', kind: 'republish', ca: 'ca2', arg: '', due: 4000 })
    ts.put({ key: 'sync-parent:ca2:p', kind: 'sync-parent', ca: 'ca2', arg: 'p', due: 1200 })
    t.equal(ts.next(), 500, 'next is the earliest due time')
    t.same(ts.due(1500, 10).map((x) => x.key), ['sync-parent:ca1:p', 'sync-parent:ca2:p', 'republish:ca1'], 'due: up to now inclusive, earliest first')
    t.same(ts.due(1500, 2).map((x) => x.key), ['sync-parent:ca1:p', 'sync-parent:ca2:p'], 'due: at most limit')
    t.same(ts.all().map((x) => x.key), ['sync-parent:ca1:p', 'sync-parent:ca2:p', 'republish:ca1', 'republish:ca2'], 'all, by due time')
    ts.remove('sync-parent:ca2:p')
    t.equal(ts.get('sync-parent:ca2:p'), undefined, 'removed')
    ts.removeCa('ca1')
    t.same(ts.all().map((x) => x.key), ['republish:ca2'], "removeCa removes that CA's tasks only")
  })
}
