/**
 * GET /api/v1/alerts as the caller may see it (api/alerts.ts): alarms and deliveries about CAs the caller does not
 * see are left out (a delivery's CA is read from its stored body), then the window of cleared alarms and deliveries is
 * cut; webhooks are shown by name, events and a URL without user info, query or fragment; the secret never.
 */
import type { AlarmJson, AlertsJson, AlertsQuery, ClearedAlarmJson, DeliveryJson } from '../../api/alerts.js'
import type { Alarm } from '../../liveness/alarms.js'
import type { AlarmKind } from '../../liveness/model.js'
import type { Delivery } from '../../store/alert-interfaces.js'

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString())

export function alarmJson(a: Alarm): AlarmJson {
  return { kind: a.kind, subject: a.subject, ca: a.ca ?? null, reason: a.reason, raised_at: new Date(a.raisedAt).toISOString() }
}

export function clearedAlarmJson(a: Alarm): ClearedAlarmJson {
  return { ...alarmJson(a), cleared_at: iso(a.clearedAt) }
}

export function deliveryJson(d: Delivery): DeliveryJson {
  return {
    id: d.id, webhook: d.webhook, event: d.event as DeliveryJson['event'], alarm: d.alarmKey ?? null, status: d.status, attempts: d.attempts,
    next_at: d.status === 'pending' ? iso(d.nextAt) : null, last_error: d.lastError ?? null, created: new Date(d.created).toISOString(), done: iso(d.done),
  }
}

/** A URL as shown: scheme, host, port and path (user info, query and fragment could hold a token). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

/** The CA a delivery is about, read from its stored body (undefined: a test event or an alarm naming no CA). */
export function deliveryCa(d: Delivery): string | undefined {
  try {
    const ca = (JSON.parse(d.body) as { alarm?: { ca?: unknown } }).alarm?.ca
    return typeof ca === 'string' ? ca : undefined
  } catch {
    return undefined
  }
}

/** The answer for a caller who sees the CAs `sees`; `view` holds every row the window may need. */
export function alertsJson(
  view: { active: Alarm[]; recent: Alarm[]; deliveries: Delivery[]; webhooks: readonly { name: string; url: string; events: readonly AlarmKind[] }[] },
  q: AlertsQuery,
  sees: (ca: string) => boolean,
): AlertsJson {
  const visible = (ca: string | undefined) => ca === undefined || sees(ca)
  const window = <T>(xs: T[]) => xs.slice(q.offset, q.offset + q.limit)
  return {
    active: view.active.filter((a) => visible(a.ca)).sort((a, b) => a.raisedAt - b.raisedAt).map(alarmJson),
    recent: q.activeOnly ? [] : window(view.recent.filter((a) => a.clearedAt !== undefined && visible(a.ca))).map(clearedAlarmJson),
    deliveries: window(view.deliveries.filter((d) => visible(deliveryCa(d)))).map(deliveryJson),
    webhooks: view.webhooks.map((w) => ({ name: w.name, url: shownUrl(w.url), events: [...w.events] })),
    offset: q.offset, limit: q.limit,
  }
}
