/**
 * app/liveness/alert-service.ts over the real SQLite store and a real webhook receiver on loopback, on a fake clock:
 * a raise and a clear each reach every webhook that takes the kind, signed; a receiver that fails gets the same bytes
 * again after the back-off (doubled each time) and is given up after max_attempts; a follower raises nothing; pending
 * deliveries survive a restart; the secret appears in no log line and no view.
 */
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { AlertService, type DeliveryOutcome, type Webhook } from '../../../src/app/liveness/alert-service.js'
import { postWebhook } from '../../../src/app/liveness/webhook-post.js'
import type { Logger } from '../../../src/log.js'
import type { Condition } from '../../../src/liveness/model.js'
import { Db } from '../../../src/store/db.js'
import { createSqlStores } from '../../../src/store/sql-stores.js'
import { tempDir } from '../../helpers/daemon.js'
import { FakeClock, FakeRandom } from '../../helpers/fake-clock.js'
import { waitFor } from '../../helpers/wait.js'
import { webhookReceiver } from '../../helpers/webhook-receiver.js'

const SECRET = 'a-webhook-secret-of-32-characters'

function recordingLog(lines: string[]): Logger {
  const log: Logger = {
    error: (m, f) => void lines.push(`error ${m} ${JSON.stringify(f ?? {})}`),
    warn: (m, f) => void lines.push(`warn ${m} ${JSON.stringify(f ?? {})}`),
    info: (m, f) => void lines.push(`info ${m} ${JSON.stringify(f ?? {})}`),
    debug: (m, f) => void lines.push(`debug ${m} ${JSON.stringify(f ?? {})}`),
    child: () => log,
    flush: () => {},
  }
  return log
}

function setup(t: Test, hooks: Omit<Webhook, 'secret'>[], o: { leading?: () => boolean; maxAttempts?: number; db?: string } = {}) {
  const file = o.db ?? join(tempDir(t, 'svc-alerts-'), 'svcd.db')
  const db = Db.open(file)
  t.teardown(() => db.close())
  const stores = createSqlStores(db)
  const clock = new FakeClock(Date.UTC(2026, 10, 27, 12))
  const lines: string[] = []
  const outcomes: [string, DeliveryOutcome][] = []
  const service = new AlertService({
    store: stores.alerts, transaction: stores.transaction, post: postWebhook, leading: o.leading ?? (() => true), instance: 'unit:1', serviceUri: 'https://localhost:3000/',
    webhooks: hooks.map((h) => ({ ...h, secret: new TextEncoder().encode(SECRET) })),
    retry: { firstMs: 10_000, maxMs: 60_000, maxAttempts: o.maxAttempts ?? 12, timeoutMs: 5_000 },
    clock, random: new FakeRandom(), log: recordingLog(lines), delivered: (w, x) => void outcomes.push([w, x]),
  })
  service.start()
  t.teardown(() => service.stop())
  return { service, stores, clock, lines, outcomes, file }
}

const failing = (ca: string, reason = `rsync: missing rsync://localhost/repo/${ca}/0.roa`): Condition => ({ kind: 'repository-check-failed', ca, subject: ca, reason })
const stalled: Condition = { kind: 'publish-stalled', subject: 'publication', reason: 'changes acknowledged 400 s ago are not on RRDP' }

t.test('a raise and a clear reach each webhook that takes the kind, signed, once each', async (t) => {
  const all = await webhookReceiver(t, SECRET)
  const stallsOnly = await webhookReceiver(t, SECRET)
  const { service, stores, lines } = setup(t, [{ name: 'all', url: all.url, events: [] }, { name: 'stalls', url: stallsOnly.url, events: ['publish-stalled'] }])
  service.report('liveness', [failing('ca1')])
  service.report('publication', [stalled])
  await waitFor('the raises delivered', () => all.received.length === 2 && stallsOnly.received.length === 1)
  t.same(all.received.map((r) => [r.signed, r.body.event, r.body.alarm?.kind, r.body.alarm?.subject]), [[true, 'alarm.raised', 'repository-check-failed', 'ca1'], [true, 'alarm.raised', 'publish-stalled', 'publication']])
  t.same(stallsOnly.received.map((r) => [r.signed, r.body.alarm?.kind]), [[true, 'publish-stalled']])
  t.equal(all.received[0].headers['x-svc-event'], 'alarm.raised')
  t.equal(all.received[0].headers['x-svc-delivery'], all.received[0].body.delivery)
  t.same(service.active().map((a) => a.key).sort(), ['publish-stalled:publication', 'repository-check-failed:ca1'])
  // Held: nothing new; then healed: a clear.
  service.report('liveness', [failing('ca1')])
  service.report('liveness', [])
  await waitFor('the clear delivered', () => all.events('alarm.cleared', 'ca1').length === 1)
  await service.deliverDue()
  t.equal(all.received.length, 3, 'a held condition sent nothing')
  t.equal(stallsOnly.received.length, 1, 'the clear of another kind did not go to the stalls-only webhook')
  t.same(service.active().map((a) => a.key), ['publish-stalled:publication'], "another source's alarm stays")
  t.same(stores.alerts.deliveries(10).map((d) => d.status), ['delivered', 'delivered', 'delivered', 'delivered'])
  t.same(lines.filter((l) => l.startsWith('warn alarm raised')).length, 2)
  t.notOk(lines.some((l) => l.includes(SECRET)) || JSON.stringify(service.view()).includes(SECRET), 'the secret is in no log line and no view')
})

t.test('a failing receiver gets the same bytes again after the back-off, then is given up', async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  hook.answer(500, 503)
  const { service, clock, outcomes } = setup(t, [{ name: 'ops', url: hook.url, events: [] }])
  service.report('liveness', [failing('ca1')])
  await waitFor('the first attempt', () => hook.received.length === 1)
  await service.deliverDue()
  await clock.advance(9_999)
  t.equal(hook.received.length, 1, 'not before the first back-off')
  await clock.advance(1)
  await waitFor('the second attempt, 10 s later', () => hook.received.length === 2)
  await clock.advance(20_000)
  await waitFor('the third attempt, 20 s after the second', () => hook.received.length === 3)
  t.same(hook.received.map((r) => r.status), [500, 503, 204])
  t.ok(hook.received.every((r) => r.raw.equals(hook.received[0].raw) && r.signed), 'the same signed bytes each time')
  await waitFor('counted', () => outcomes.length === 3)
  t.same(outcomes, [['ops', 'failed'], ['ops', 'failed'], ['ops', 'delivered']])

  const dead = await webhookReceiver(t, SECRET)
  dead.answer(500, 500, 500)
  const second = setup(t, [{ name: 'dead', url: dead.url, events: [] }], { maxAttempts: 3 })
  second.service.report('liveness', [failing('ca2')])
  await waitFor('attempt 1', () => dead.received.length === 1)
  await second.clock.advance(10_000)
  await waitFor('attempt 2', () => dead.received.length === 2)
  await second.clock.advance(20_000)
  await waitFor('attempt 3', () => dead.received.length === 3)
  await waitFor('given up', () => second.stores.alerts.deliveries(1)[0]?.status === 'failed' && second.stores.alerts.deliveries(1)[0])
  const d = second.stores.alerts.deliveries(1)[0]
  t.same([d.attempts, d.lastError], [3, 'HTTP 500'])
  await second.clock.advance(3600_000)
  t.equal(dead.received.length, 3, 'never tried again')
  t.ok(second.lines.some((l) => l.startsWith('warn webhook delivery given up')))
})

t.test('a follower raises nothing; a restart delivers what was pending', async (t) => {
  const hook = await webhookReceiver(t, SECRET)
  const follower = setup(t, [{ name: 'ops', url: hook.url, events: [] }], { leading: () => false })
  follower.service.report('liveness', [failing('ca1')])
  await follower.service.deliverDue()
  t.same([follower.service.active(), follower.stores.alerts.deliveries(5), hook.received.length], [[], [], 0])

  // A receiver down: the delivery waits in the store; a new service over the same database sends it.
  const down = setup(t, [{ name: 'ops', url: 'http://127.0.0.1:9/hook', events: [] }])
  down.service.report('liveness', [failing('ca3')])
  await waitFor('the first attempt failed', () => down.stores.alerts.deliveries(1)[0]?.attempts === 1)
  await down.service.stop()
  const again = setup(t, [{ name: 'ops', url: hook.url, events: [] }], { db: down.file })
  await again.clock.advance(10_000)
  await waitFor('delivered after the restart', () => hook.events('alarm.raised', 'ca3').length === 1)
  t.same(again.service.active().map((a) => a.subject), ['ca3'])
})

t.test('a test event goes to the named webhook only', async (t) => {
  const a = await webhookReceiver(t, SECRET)
  const b = await webhookReceiver(t, SECRET)
  const { service } = setup(t, [{ name: 'a', url: a.url, events: ['publish-stalled'] }, { name: 'b', url: b.url, events: [] }])
  t.same(service.test('a'), ['a'])
  await waitFor('the test event', () => a.received.length === 1)
  t.same([a.received[0].body.event, a.received[0].signed, b.received.length], ['test', true, 0])
  t.same(service.test('nobody'), [])
})
