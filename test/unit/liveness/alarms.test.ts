/**
 * liveness/alarms.ts: the one table of what follows a report (raise, keep, clear, nothing), the webhook body, the
 * signature (pinned: HMAC-SHA256 over the exact body, RFC 2104 test case 2 as the known answer) and the back-off.
 */
import t from 'tap'
import { createHmac } from 'node:crypto'
import { type Alarm, applyReport, nextAttemptAt, signatureValid, signBody, takes, webhookBody } from '../../../src/liveness/alarms.js'
import type { Condition } from '../../../src/liveness/model.js'

const T0 = Date.UTC(2026, 10, 27, 12)
const cond = (subject: string, reason = 'rsync: missing rsync://x/a.roa'): Condition => ({ kind: 'repository-check-failed', ca: subject, subject, reason })
const active = (...alarms: Alarm[]) => new Map(alarms.map((a) => [a.key, a]))

t.test('a new condition raises, a held one keeps (its new reason stored), a gone one clears, nothing otherwise', async (t) => {
  const first = applyReport(active(), 'liveness', [cond('ca1'), cond('ca2')], T0)
  t.same(first.transitions.map((x) => [x.event, x.alarm.key]), [['alarm.raised', 'repository-check-failed:ca1'], ['alarm.raised', 'repository-check-failed:ca2']])
  t.same(first.transitions[0].alarm, { key: 'repository-check-failed:ca1', kind: 'repository-check-failed', subject: 'ca1', ca: 'ca1', source: 'liveness', reason: 'rsync: missing rsync://x/a.roa', raisedAt: T0 })
  const now = active(...first.transitions.map((x) => x.alarm))
  const second = applyReport(now, 'liveness', [cond('ca1', 'rrdp: changed rsync://x/b.roa')], T0 + 1000)
  t.same(second.transitions.map((x) => [x.event, x.alarm.key, x.alarm.clearedAt]), [['alarm.cleared', 'repository-check-failed:ca2', T0 + 1000]])
  t.same(second.updated.map((a) => [a.key, a.reason, a.raisedAt]), [['repository-check-failed:ca1', 'rrdp: changed rsync://x/b.roa', T0]], 'the raise time is kept')
  const third = applyReport(now, 'liveness', [cond('ca1'), cond('ca2')], T0 + 2000)
  t.same(third, { transitions: [], updated: [] }, 'held with the same reason: nothing')
  t.same(applyReport(active(), 'liveness', [], T0), { transitions: [], updated: [] }, 'gone and not active: nothing')
})

t.test("a source clears only its own alarms; a key reported twice counts once", async (t) => {
  const stall: Alarm = { key: 'service-stalled:scheduler', kind: 'service-stalled', subject: 'scheduler', source: 'queues', reason: 'no tick for 400 s', raisedAt: T0 }
  const r = applyReport(active(stall), 'liveness', [cond('ca1'), cond('ca1', 'another')], T0)
  t.same(r.transitions.map((x) => [x.event, x.alarm.key, x.alarm.reason]), [['alarm.raised', 'repository-check-failed:ca1', 'rsync: missing rsync://x/a.roa']])
})

t.test('the webhook body names the event, the alarm and when', async (t) => {
  const [raise] = applyReport(active(), 'liveness', [cond('ca1')], T0).transitions
  t.same(webhookBody('d1', raise, 'host:3000', 'https://svc.example/', ), {
    delivery: 'd1', event: 'alarm.raised', at: '2026-11-27T12:00:00.000Z', instance: 'host:3000', service_uri: 'https://svc.example/',
    alarm: { kind: 'repository-check-failed', subject: 'ca1', ca: 'ca1', reason: 'rsync: missing rsync://x/a.roa', raised_at: '2026-11-27T12:00:00.000Z' },
  })
  const [clear] = applyReport(active(raise.alarm), 'liveness', [], T0 + 60_000).transitions
  const b = webhookBody('d2', clear, 'host:3000', 'https://svc.example/')
  t.equal(b.event, 'alarm.cleared')
  t.equal(b.at, '2026-11-27T12:01:00.000Z')
  t.equal(b.alarm?.cleared_at, '2026-11-27T12:01:00.000Z')
})

t.test('the signature is HMAC-SHA256 over the exact body bytes, checked in constant time', async (t) => {
  // RFC 4231 §4.3 (test case 2): key "Jefe", data "what do ya want for nothing?".
  const key = new TextEncoder().encode('Jefe')
  const data = new TextEncoder().encode('what do ya want for nothing?')
  t.equal(signBody(key, data), 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  t.equal(signBody(key, data), `sha256=${createHmac('sha256', key).update(data).digest('hex')}`)
  t.ok(signatureValid(key, data, signBody(key, data)))
  t.notOk(signatureValid(key, new TextEncoder().encode('what do ya want for nothing!'), signBody(key, data)), 'one byte changed')
  t.notOk(signatureValid(new TextEncoder().encode('Jeff'), data, signBody(key, data)), 'another key')
  t.notOk(signatureValid(key, data, undefined), 'no header')
  t.notOk(signatureValid(key, data, 'sha256=00'), 'a short header')
})

t.test('back-off: first wait, doubled per failure, capped', async (t) => {
  const o = { firstMs: 10_000, maxMs: 3600_000 }
  t.same([1, 2, 3, 4, 10, 30].map((n) => nextAttemptAt(n, 0, o)), [10_000, 20_000, 40_000, 80_000, 3600_000, 3600_000])
  t.ok(takes([], 'publish-stalled'), 'no list: every kind')
  t.ok(takes(['publish-stalled'], 'publish-stalled'))
  t.notOk(takes(['manifest-expiring'], 'publish-stalled'))
})
