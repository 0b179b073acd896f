/**
 * Wire types of the alarms (design.md §11, issue 26 §3): GET /api/v1/alerts shows the active alarms, the recently
 * cleared ones, the webhook deliveries and the configured webhooks; POST /api/v1/alerts/test queues a signed test event.
 *
 * Who sees what: the list needs `ca-list` (every operator role holds it). An alarm names a CA or none (a stalled
 * service, a quarantined task); a role limited to some CAs sees the alarms about those CAs and the CA-less ones, and
 * the deliveries of those alarms and the test events, never another CA's. A webhook is shown by its name, its events
 * and its URL without user info, query or fragment (either could hold a token); its secret is never part of any answer.
 */
/** The alarm kinds (liveness/model.ts ALARM_KINDS; test/unit/api/alerts.test.ts keeps the two equal). */
export const ALARM_KIND_NAMES = ['repository-check-failed', 'manifest-expiring', 'publish-stalled', 'child-nonfunctional', 'task-quarantined', 'service-stalled'] as const
export type AlarmKindJson = (typeof ALARM_KIND_NAMES)[number]

/** An active alarm: `ca` null when it names none. */
export interface AlarmJson {
  kind: AlarmKindJson
  subject: string
  ca: string | null
  reason: string
  raised_at: string
}

/** A cleared alarm. */
export interface ClearedAlarmJson extends AlarmJson {
  cleared_at: string | null
}

export interface DeliveryJson {
  id: number
  webhook: string
  event: 'alarm.raised' | 'alarm.cleared' | 'test'
  /** The alarm it tells of (`kind:subject`), null for a test event. */
  alarm: string | null
  status: 'pending' | 'delivered' | 'failed'
  attempts: number
  /** When the next attempt is due, while pending. */
  next_at: string | null
  /** Why the last attempt failed (an HTTP status or a transport error). */
  last_error: string | null
  created: string
  /** When it was delivered or given up. */
  done: string | null
}

export interface WebhookJson {
  name: string
  /** Scheme, host, port and path only. */
  url: string
  /** The alarm kinds it takes; empty: every kind. */
  events: AlarmKindJson[]
}

/** GET /api/v1/alerts. */
export interface AlertsJson {
  active: AlarmJson[]
  /** Cleared alarms, the most recently raised first (empty with ?active=true). */
  recent: ClearedAlarmJson[]
  /** The newest deliveries first. */
  deliveries: DeliveryJson[]
  webhooks: WebhookJson[]
  /** The window of `recent` and `deliveries`. */
  offset: number
  limit: number
}

/** POST /api/v1/alerts/test: the body (optional) and the answer. */
export interface AlertTestJson {
  webhook?: string
}
export interface AlertTestResultJson {
  /** The webhooks a test event was queued for. */
  queued: string[]
}

export function checkAlertTest(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'must be a JSON object'
  for (const k of Object.keys(v)) if (k !== 'webhook') return `unknown field '${k}'`
  const w = (v as AlertTestJson).webhook
  if (w !== undefined && (typeof w !== 'string' || w === '' || w.length > 100 || /[\u0000-\u001f]/.test(w))) return "'webhook' must be a webhook name (1 to 100 printable characters)"
  return undefined
}

/** What GET /api/v1/alerts asks: only the active alarms, and the window of cleared alarms and deliveries. */
export interface AlertsQuery {
  activeOnly: boolean
  offset: number
  limit: number
}
