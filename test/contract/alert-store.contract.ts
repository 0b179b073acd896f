/**
 * The AlertStore contract (store/alert-interfaces.ts; design.md §11, issue 26): alarms by key (a raise after a clear
 * starts the row again; active = not cleared), deliveries queued with their exact body, due by next attempt, updated
 * through pending → delivered / failed, listed newest first, and pruned once finished and old.
 */
import type { Test } from 'tap'
import type { Alarm } from '../../src/liveness/alarms.js'
import { fresh, type StoresFactory } from './stores.contract.js'

const T0 = Date.UTC(2026, 10, 27, 12)
const alarm = (subject: string, over: Partial<Alarm> = {}): Alarm => ({ key: `repository-check-failed:${subject}`, kind: 'repository-check-failed', subject, ca: subject, source: 'liveness', reason: `rsync: missing ${subject}`, raisedAt: T0, ...over })

export function alertStoreContract(t: Test, make: StoresFactory): void {
  t.test('alarms: saved by key, active until cleared, raised again in the same row', async (t) => {
    const r = fresh(t, make).stores.alerts
    r.saveAlarm(alarm('ca1'))
    r.saveAlarm({ key: 'service-stalled:scheduler', kind: 'service-stalled', subject: 'scheduler', source: 'queues', reason: 'no tick for 400 s', raisedAt: T0 + 1 })
    t.same(r.active(), [alarm('ca1'), { key: 'service-stalled:scheduler', kind: 'service-stalled', subject: 'scheduler', source: 'queues', reason: 'no tick for 400 s', raisedAt: T0 + 1 }], 'a CA-less alarm has no ca')
    r.saveAlarm(alarm('ca1', { clearedAt: T0 + 5 }))
    t.same(r.active().map((a) => a.key), ['service-stalled:scheduler'])
    t.same(r.recent(10).map((a) => [a.key, a.clearedAt]), [['service-stalled:scheduler', undefined], ['repository-check-failed:ca1', T0 + 5]], 'newest first, cleared ones too')
    r.saveAlarm(alarm('ca1', { raisedAt: T0 + 9, reason: 'again' }))
    t.same(r.active().map((a) => [a.key, a.reason, a.clearedAt]), [['service-stalled:scheduler', 'no tick for 400 s', undefined], ['repository-check-failed:ca1', 'again', undefined]])
    t.equal(r.recent(1).length, 1, 'limited')
  })

  t.test('deliveries: queued, due in order, updated, listed newest first, pruned when finished and old', async (t) => {
    const r = fresh(t, make).stores.alerts
    const body = '{"delivery":"d1","event":"alarm.raised","text":"ünïcode \\" quoted"}'
    const a = r.addDelivery({ webhook: 'ops', event: 'alarm.raised', alarmKey: 'repository-check-failed:ca1', body, status: 'pending', attempts: 0, nextAt: T0 + 10, created: T0 })
    const b = r.addDelivery({ webhook: 'ops', event: 'test', body: '{}', status: 'pending', attempts: 0, nextAt: T0, created: T0 })
    t.ok(b > a, 'increasing ids')
    t.same(r.dueDeliveries(T0 + 5, 10).map((d) => d.id), [b], 'only what is due')
    t.same(r.dueDeliveries(T0 + 10, 10).map((d) => d.id), [b, a], 'earliest first')
    t.same(r.dueDeliveries(T0 + 10, 1).map((d) => d.id), [b], 'limited')
    t.equal(r.nextDue(), T0)
    const first = r.dueDeliveries(T0 + 10, 10)[1]
    t.same(first, { id: a, webhook: 'ops', event: 'alarm.raised', alarmKey: 'repository-check-failed:ca1', body, status: 'pending', attempts: 0, nextAt: T0 + 10, created: T0 }, 'the exact body back')
    r.updateDelivery(b, { status: 'delivered', attempts: 1, done: T0 + 1 })
    r.updateDelivery(a, { status: 'pending', attempts: 1, nextAt: T0 + 20, lastError: 'HTTP 500' })
    t.equal(r.nextDue(), T0 + 20, 'a delivered one is not due')
    t.same(r.deliveries(10).map((d) => [d.id, d.status, d.attempts, d.lastError, d.nextAt, d.done]), [[b, 'delivered', 1, undefined, undefined, T0 + 1], [a, 'pending', 1, 'HTTP 500', T0 + 20, undefined]].sort((x, y) => (y[0] as number) - (x[0] as number)))
    r.updateDelivery(a, { status: 'failed', attempts: 12, lastError: 'HTTP 500', done: T0 + 100 })
    t.equal(r.nextDue(), undefined, 'nothing pending')
    r.saveAlarm(alarm('old', { clearedAt: T0 + 2 }))
    r.saveAlarm(alarm('live'))
    r.prune(T0 + 50)
    t.same(r.deliveries(10).map((d) => d.id), [a], 'the one finished before the bound is gone')
    t.same(r.recent(10).map((a) => a.subject), ['live'], 'the cleared alarm is gone, the active one stays')
  })
}
