/**
 * Alarms (design.md §11, issue 26 §3): the one table of what follows a report of conditions, as Krill's mq.rs decides
 * what follows each event in one place. Each producer ("liveness", "publication", "queues") reports every condition of
 * its own that holds now; against the alarms active from that source:
 *
 *   condition now │ alarm active │ what follows
 *   ──────────────┼──────────────┼────────────────────────────────────────────────────────────────
 *   holds         │ no           │ raise: a new alarm, event `alarm.raised` to every webhook that takes its kind
 *   holds         │ yes          │ keep; a changed reason is stored (no event: the raise already told)
 *   gone          │ yes          │ clear: the alarm ends, event `alarm.cleared` to the same webhooks
 *   gone          │ no           │ nothing
 *
 * The webhook body and its signature (HMAC-SHA256 over the exact body bytes) and the back-off of failed deliveries
 * are pure too. Nothing here reads the clock: the time comes in.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { type AlarmKind, alarmKey, type Condition } from './model.js'

/** An alarm as stored: raised by a condition of `source`, cleared when that condition no longer holds. */
export interface Alarm {
  key: string
  kind: AlarmKind
  subject: string
  ca?: string
  source: string
  reason: string
  /** ms since the epoch. */
  raisedAt: number
  clearedAt?: number
}

export type AlarmEvent = 'alarm.raised' | 'alarm.cleared'

export interface Transition {
  event: AlarmEvent
  alarm: Alarm
}

/** What follows a report: the transitions (in the order of the conditions, then the clears) and reasons that changed. */
export interface ReportOutcome {
  transitions: Transition[]
  /** Active alarms whose condition still holds with another reason. */
  updated: Alarm[]
}

/** The table above: `active` are the alarms active now (any source); only those of `source` can be cleared. */
export function applyReport(active: ReadonlyMap<string, Alarm>, source: string, conditions: readonly Condition[], now: number): ReportOutcome {
  const transitions: Transition[] = []
  const updated: Alarm[] = []
  const holding = new Set<string>()
  for (const c of conditions) {
    const key = alarmKey(c)
    if (holding.has(key)) continue // the first report of a key wins within one report
    holding.add(key)
    const a = active.get(key)
    if (!a) transitions.push({ event: 'alarm.raised', alarm: { key, kind: c.kind, subject: c.subject, ...(c.ca !== undefined ? { ca: c.ca } : {}), source, reason: c.reason, raisedAt: now } })
    else if (a.reason !== c.reason) updated.push({ ...a, reason: c.reason })
  }
  for (const a of active.values()) {
    if (a.source === source && !holding.has(a.key)) transitions.push({ event: 'alarm.cleared', alarm: { ...a, clearedAt: now } })
  }
  return { transitions, updated }
}

/** The JSON body of a webhook delivery (the signature covers these exact bytes). */
export interface WebhookBody {
  /** The delivery's id: the same on every retry, so a receiver can drop a duplicate. */
  delivery: string
  event: AlarmEvent | 'test'
  /** When the event happened (ISO 8601); retries keep it. */
  at: string
  /** The instance that raised it (its instance_id) and its service URI. */
  instance: string
  service_uri: string
  alarm?: { kind: AlarmKind; subject: string; ca?: string; reason: string; raised_at: string; cleared_at?: string }
}

export function webhookBody(delivery: string, t: Transition, instance: string, serviceUri: string): WebhookBody {
  const a = t.alarm
  return {
    delivery, event: t.event, at: new Date(t.event === 'alarm.cleared' ? a.clearedAt! : a.raisedAt).toISOString(), instance, service_uri: serviceUri,
    alarm: {
      kind: a.kind, subject: a.subject, ...(a.ca !== undefined ? { ca: a.ca } : {}), reason: a.reason, raised_at: new Date(a.raisedAt).toISOString(),
      ...(a.clearedAt !== undefined ? { cleared_at: new Date(a.clearedAt).toISOString() } : {}),
    },
  }
}

/** The header carrying the signature, as GitHub's X-Hub-Signature-256: `sha256=` and the hex HMAC of the body. */
export const SIGNATURE_HEADER = 'X-Svc-Signature-256'

export function signBody(secret: Uint8Array, body: Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/** A receiver's check (constant time): `header` is the signature of `body` under `secret`. */
export function signatureValid(secret: Uint8Array, body: Uint8Array, header: string | undefined): boolean {
  if (header === undefined) return false
  const want = Buffer.from(signBody(secret, body))
  const got = Buffer.from(header)
  return want.length === got.length && timingSafeEqual(want, got)
}

/** The back-off of a failed delivery: `firstMs` doubled with each failure, at most `maxMs`. */
export function nextAttemptAt(failures: number, now: number, o: { firstMs: number; maxMs: number }): number {
  return now + Math.min(o.firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 20), o.maxMs)
}

/** Does a webhook listening for `kinds` (empty: every kind) take an alarm of `kind`? */
export function takes(kinds: readonly AlarmKind[], kind: AlarmKind): boolean {
  return kinds.length === 0 || kinds.includes(kind)
}
