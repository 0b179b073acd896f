/**
 * The wire JSON of the alarms (api/alerts.ts, app/liveness/alerts-view.ts) and svcc's text of it: what a role limited
 * to some CAs sees, the window of cleared alarms and deliveries, a webhook URL without user info, query or fragment,
 * the test body's check, and the alarm kinds the API names kept equal to the domain's.
 */
import t from 'tap'
import { ALARM_KIND_NAMES, checkAlertTest } from '../../../src/api/alerts.js'
import { alertsJson, deliveryCa, shownUrl } from '../../../src/app/liveness/alerts-view.js'
import { alertsText } from '../../../src/cli/commands/alerts.js'
import type { Alarm } from '../../../src/liveness/alarms.js'
import { ALARM_KINDS } from '../../../src/liveness/model.js'
import type { Delivery } from '../../../src/store/alert-interfaces.js'

const AT = Date.UTC(2026, 10, 27, 12)
const alarm = (kind: Alarm['kind'], subject: string, ca: string | undefined, raisedAt: number, clearedAt?: number): Alarm => ({
  key: `${kind}:${subject}`, kind, subject, ...(ca === undefined ? {} : { ca }), source: 'liveness', reason: `${kind} of ${subject}`, raisedAt, ...(clearedAt === undefined ? {} : { clearedAt }),
})
const delivery = (id: number, a: Alarm | undefined, o: Partial<Delivery> = {}): Delivery => ({
  id, webhook: 'ops', event: a ? 'alarm.raised' : 'test', ...(a ? { alarmKey: a.key } : {}),
  body: JSON.stringify({ delivery: `d${id}`, event: a ? 'alarm.raised' : 'test', ...(a ? { alarm: { kind: a.kind, subject: a.subject, ...(a.ca ? { ca: a.ca } : {}) } } : {}) }),
  status: 'delivered', attempts: 1, created: AT + id, done: AT + id + 5, ...o,
})

const ca1 = alarm('repository-check-failed', 'ca1', 'ca1', AT + 2)
const ca2 = alarm('manifest-expiring', 'ca2', 'ca2', AT + 1)
const stalled = alarm('service-stalled', 'scheduler', undefined, AT + 3)
const cleared = [alarm('child-nonfunctional', 'ca2/c', 'ca2', AT - 10, AT - 5), alarm('task-quarantined', 'task:9', undefined, AT - 20, AT - 15), alarm('repository-check-failed', 'ca1', 'ca1', AT - 30, AT - 25)]
const VIEW = {
  active: [ca1, ca2, stalled],
  recent: [stalled, ...cleared],
  deliveries: [delivery(4, undefined, { status: 'pending', attempts: 2, nextAt: AT + 60_000, lastError: 'HTTP 500', done: undefined }), delivery(3, ca2), delivery(2, ca1), delivery(1, stalled)],
  webhooks: [{ name: 'ops', url: 'https://user:pw@hooks.example.net:8443/svc/in?token=abc#frag', events: [] }, { name: 'stalls', url: 'http://127.0.0.1:9000/x', events: ['publish-stalled' as const] }],
}

t.test('the alarm kinds of the API are the domain kinds', async (t) => {
  t.same([...ALARM_KIND_NAMES], [...ALARM_KINDS])
})

t.test('every caller: active oldest first, cleared ones windowed, deliveries newest first, webhook URLs without secrets', async (t) => {
  const all = alertsJson(VIEW, { activeOnly: false, offset: 0, limit: 100 }, () => true)
  t.same(all.active.map((a) => a.subject), ['ca2', 'ca1', 'scheduler'])
  t.same(all.active[2], { kind: 'service-stalled', subject: 'scheduler', ca: null, reason: 'service-stalled of scheduler', raised_at: new Date(AT + 3).toISOString() })
  t.same(all.recent.map((a) => a.subject), ['ca2/c', 'task:9', 'ca1'], 'cleared only (the active one among the recent is not repeated)')
  t.equal(all.recent[0]!.cleared_at, new Date(AT - 5).toISOString())
  t.same(all.deliveries.map((d) => d.id), [4, 3, 2, 1])
  t.same(all.deliveries[0], { id: 4, webhook: 'ops', event: 'test', alarm: null, status: 'pending', attempts: 2, next_at: new Date(AT + 60_000).toISOString(), last_error: 'HTTP 500', created: new Date(AT + 4).toISOString(), done: null })
  t.match(all.deliveries[1], { alarm: 'manifest-expiring:ca2', next_at: null, done: new Date(AT + 8).toISOString() })
  t.same(all.webhooks, [{ name: 'ops', url: 'https://hooks.example.net:8443/svc/in', events: [] }, { name: 'stalls', url: 'http://127.0.0.1:9000/x', events: ['publish-stalled'] }])
  t.notMatch(JSON.stringify(all), /token=abc|pw@|frag/, 'no user info, query or fragment')

  const active = alertsJson(VIEW, { activeOnly: true, offset: 0, limit: 100 }, () => true)
  t.same(active.recent, [], 'active only')
  t.equal(active.active.length, 3)
  const page = alertsJson(VIEW, { activeOnly: false, offset: 1, limit: 1 }, () => true)
  t.same(page.recent.map((a) => a.subject), ['task:9'])
  t.same(page.deliveries.map((d) => d.id), [3])
  t.match(page, { offset: 1, limit: 1 })
})

t.test('a role limited to ca1 sees ca1 and the CA-less alarms and deliveries only', async (t) => {
  const scoped = alertsJson(VIEW, { activeOnly: false, offset: 0, limit: 100 }, (ca) => ca === 'ca1')
  t.same(scoped.active.map((a) => a.subject), ['ca1', 'scheduler'])
  t.same(scoped.recent.map((a) => a.subject), ['task:9', 'ca1'])
  t.same(scoped.deliveries.map((d) => d.id), [4, 2, 1], "ca2's delivery left out; the test event and the CA-less alarm's kept")
  t.equal(deliveryCa(delivery(9, undefined, { body: 'not json' })), undefined, 'an unreadable body names no CA')
})

t.test('shownUrl and the test body', async (t) => {
  t.equal(shownUrl('https://a:b@h.example:444/p/q?x=1#y'), 'https://h.example:444/p/q')
  t.equal(shownUrl('https://h.example/'), 'https://h.example/')
  t.equal(shownUrl('not a url'), '(invalid URL)')
  t.equal(checkAlertTest({}), undefined)
  t.equal(checkAlertTest({ webhook: 'ops' }), undefined)
  for (const bad of [null, [], 'ops', { webhook: '' }, { webhook: 7 }, { webhook: 'a\u0001' }, { webhook: 'x'.repeat(101) }, { hook: 'ops' }]) t.type(checkAlertTest(bad), 'string', JSON.stringify(bad))
})

t.test('svcc alerts: the active alarms, the cleared ones when asked, the webhooks and the deliveries', async (t) => {
  const text = alertsText(alertsJson(VIEW, { activeOnly: false, offset: 0, limit: 100 }, () => true))
  t.match(text, /^Active alarms \(3\):\nKIND\s+SUBJECT\s+CA\s+SINCE\s+REASON\nmanifest-expiring\s+ca2\s+ca2\s+2026-11-27T12:00:00Z\s+manifest-expiring of ca2\n/)
  t.match(text, /service-stalled\s+scheduler\s+-\s+/)
  t.match(text, /Cleared alarms:\nKIND\s+SUBJECT\s+CA\s+RAISED\s+CLEARED\s+REASON\nchild-nonfunctional\s+ca2\/c\s+ca2\s+/)
  t.match(text, /Webhooks: ops \(https:\/\/hooks\.example\.net:8443\/svc\/in\), stalls \(http:\/\/127\.0\.0\.1:9000\/x\)/)
  t.match(text, /4\s+2026-11-27T12:00:00Z\s+ops\s+test\s+-\s+pending \(next 2026-11-27T12:01:00Z\)\s+2\s+HTTP 500/)
  const none = alertsText({ active: [], recent: [], deliveries: [], webhooks: [], offset: 0, limit: 20 })
  t.equal(none, 'No active alarms.\n\nNo webhooks configured ([[alerts.webhooks]]).')
})
