/**
 * The alert service (design.md §11, issue 26 §3): the AlarmSink every producer of conditions reports to. What follows a
 * report is liveness/alarms.ts's table; this service stores the alarms, queues one delivery per event and webhook that
 * takes its kind (with the exact body, so every retry sends and signs the same bytes), and delivers in the background
 * with back-off: a failed delivery is retried after `retryMs`, doubled each time up to `maxRetryMs`, and given up after
 * `maxAttempts`. Deliveries survive a restart (they are rows). Only the leader raises, clears and delivers (it runs the
 * checks and the tasks); on a follower a report is ignored. The webhook secret is used to sign and never shown.
 */
import { toHex } from '../../util/hex.js'
import type { Logger } from '../../log.js'
import { type Alarm, applyReport, nextAttemptAt, SIGNATURE_HEADER, signBody, takes, type Transition, webhookBody, type WebhookBody } from '../../liveness/alarms.js'
import type { AlarmKind, Condition } from '../../liveness/model.js'
import type { AlertStore, Delivery } from '../../store/alert-interfaces.js'
import type { Clock, Random, TimerHandle } from '../../util/clock.js'
import type { AlarmSink } from './ports.js'

export interface Webhook {
  name: string
  url: string
  /** The alarm kinds it takes (empty: all). */
  events: readonly AlarmKind[]
  /** The HMAC-SHA256 key. */
  secret: Uint8Array
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'gave-up'

export interface AlertServiceDeps {
  store: AlertStore
  transaction: <T>(fn: () => T) => T
  webhooks: readonly Webhook[]
  /** POST a body; resolves to the HTTP status, rejects with a reason (webhook-post.ts). */
  post: (url: string, body: Uint8Array, headers: Record<string, string>, timeoutMs: number) => Promise<number>
  retry: { firstMs: number; maxMs: number; maxAttempts: number; timeoutMs: number }
  leading: () => boolean
  instance: string
  serviceUri: string
  clock: Clock
  random: Random
  log: Logger
  /** Told of each delivery attempt's outcome (svc_alert_deliveries_total). */
  delivered?: (webhook: string, outcome: DeliveryOutcome) => void
}

/** What GET /api/v1/alerts shows. */
export interface AlertsView {
  active: Alarm[]
  recent: Alarm[]
  deliveries: Delivery[]
  webhooks: { name: string; url: string; events: readonly AlarmKind[] }[]
}

/** Cleared alarms and finished deliveries are kept this long (then pruned). */
const KEEP_MS = 30 * 86400_000
/** Without anything due, the queue is looked at this often (a new leader picks up its predecessor's queue). */
const IDLE_MS = 30_000

export class AlertService implements AlarmSink {
  private timer: TimerHandle | undefined
  private pumping: Promise<void> | undefined
  private again = false
  private stopped = true
  private lastPrune = 0

  constructor(private readonly d: AlertServiceDeps) {}

  start(): void {
    this.stopped = false
    this.kick()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.d.clock.clear(this.timer)
    this.timer = undefined
    await this.pumping
  }

  report(source: string, conditions: readonly Condition[]): void {
    if (!this.d.leading()) return
    const now = this.d.clock.now()
    const transitions = this.d.transaction(() => {
      const active = new Map(this.d.store.active().map((a) => [a.key, a]))
      const outcome = applyReport(active, source, conditions, now)
      for (const a of outcome.updated) this.d.store.saveAlarm(a)
      for (const t of outcome.transitions) {
        this.d.store.saveAlarm(t.alarm)
        this.queue(t, now)
      }
      return outcome.transitions
    })
    for (const t of transitions) {
      const a = t.alarm
      const fields = { kind: a.kind, subject: a.subject, reason: a.reason }
      if (t.event === 'alarm.raised') this.d.log.warn('alarm raised', fields)
      else this.d.log.info('alarm cleared', fields)
    }
    if (transitions.length) this.kick()
  }

  /** Queue a test event to every webhook (or the one named); the names queued. */
  test(name?: string): string[] {
    const now = this.d.clock.now()
    const hooks = this.d.webhooks.filter((w) => name === undefined || w.name === name)
    this.d.transaction(() => {
      for (const w of hooks) {
        const body: WebhookBody = { delivery: this.deliveryId(), event: 'test', at: new Date(now).toISOString(), instance: this.d.instance, service_uri: this.d.serviceUri }
        this.d.store.addDelivery({ webhook: w.name, event: 'test', body: JSON.stringify(body), status: 'pending', attempts: 0, nextAt: now, created: now })
      }
    })
    this.kick()
    return hooks.map((w) => w.name)
  }

  active(): Alarm[] {
    return this.d.store.active()
  }

  view(limit = 100): AlertsView {
    return {
      active: this.d.store.active(), recent: this.d.store.recent(limit), deliveries: this.d.store.deliveries(limit),
      webhooks: this.d.webhooks.map((w) => ({ name: w.name, url: w.url, events: w.events })),
    }
  }

  /** Deliver what is due now (also run by the timer); resolves when this round is done. */
  async deliverDue(): Promise<void> {
    if (this.pumping) {
      this.again = true
      return this.pumping
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined
    })
    return this.pumping
  }

  private queue(t: Transition, now: number): void {
    for (const w of this.d.webhooks) {
      if (!takes(w.events, t.alarm.kind)) continue
      const body = webhookBody(this.deliveryId(), t, this.d.instance, this.d.serviceUri)
      this.d.store.addDelivery({ webhook: w.name, event: t.event, alarmKey: t.alarm.key, body: JSON.stringify(body), status: 'pending', attempts: 0, nextAt: now, created: now })
    }
  }

  private deliveryId(): string {
    return toHex(this.d.random.bytes(16))
  }

  private kick(): void {
    if (this.stopped) return
    this.d.clock.clear(this.timer)
    this.timer = undefined
    void this.deliverDue().catch((e: unknown) => this.d.log.warn('alert delivery failed', { err: String(e) })).finally(() => this.arm())
  }

  private arm(): void {
    if (this.stopped) return
    this.d.clock.clear(this.timer)
    let next: number | undefined
    try {
      next = this.d.store.nextDue()
    } catch {
      next = undefined
    }
    const wait = Math.max(0, Math.min((next ?? Infinity) - this.d.clock.now(), IDLE_MS))
    this.timer = this.d.clock.setTimeout(() => this.kick(), wait, { background: true })
  }

  private async pump(): Promise<void> {
    do {
      this.again = false
      if (!this.d.leading()) return
      const now = this.d.clock.now()
      if (now - this.lastPrune > 3600_000) {
        this.lastPrune = now
        this.d.store.prune(now - KEEP_MS)
      }
      const due = this.d.store.dueDeliveries(now, 20)
      await Promise.all(due.map((x) => this.attempt(x)))
      if (due.length === 20) this.again = true
    } while (this.again && !this.stopped)
  }

  private async attempt(x: Delivery): Promise<void> {
    const hook = this.d.webhooks.find((w) => w.name === x.webhook)
    const attempts = x.attempts + 1
    if (!hook) {
      this.d.store.updateDelivery(x.id, { status: 'failed', attempts: x.attempts, lastError: 'the webhook is no longer configured', done: this.d.clock.now() })
      return
    }
    const body = new TextEncoder().encode(x.body)
    let error: string
    try {
      const status = await this.d.post(hook.url, body, { [SIGNATURE_HEADER]: signBody(hook.secret, body), 'X-Svc-Event': x.event, 'X-Svc-Delivery': deliveryOf(x) }, this.d.retry.timeoutMs)
      if (status >= 200 && status < 300) {
        this.d.store.updateDelivery(x.id, { status: 'delivered', attempts, done: this.d.clock.now() })
        this.d.delivered?.(hook.name, 'delivered')
        return
      }
      error = `HTTP ${status}`
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    const now = this.d.clock.now()
    if (attempts >= this.d.retry.maxAttempts) {
      this.d.store.updateDelivery(x.id, { status: 'failed', attempts, lastError: error, done: now })
      this.d.delivered?.(hook.name, 'gave-up')
      this.d.log.warn('webhook delivery given up', { webhook: hook.name, event: x.event, attempts, error })
      return
    }
    this.d.store.updateDelivery(x.id, { status: 'pending', attempts, nextAt: nextAttemptAt(attempts, now, this.d.retry), lastError: error })
    this.d.delivered?.(hook.name, 'failed')
    if (attempts === 1) this.d.log.warn('webhook delivery failed: retrying', { webhook: hook.name, event: x.event, error })
  }
}

function deliveryOf(x: Delivery): string {
  try {
    return String((JSON.parse(x.body) as { delivery?: unknown }).delivery ?? x.id)
  } catch {
    return String(x.id)
  }
}
