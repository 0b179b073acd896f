/**
 * Alarms in the OpenAPI description (design.md §11, issue 26 §3; api/alerts.ts, http/routes/alerts.ts): the list of
 * active and cleared alarms with the webhook deliveries, the test event; and their schemas.
 */
import { ALARM_KIND_NAMES } from './alerts.js'
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from './paging.js'
import { json, route, type DescribedRoute } from './openapi-operations.js'
import type { Parameter, Schema, SchemaObject } from './openapi-types.js'

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const int = (description: string): SchemaObject => ({ type: 'integer', description, minimum: 0 })
const nullable = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true })
const time = (description: string) => str(description, { format: 'date-time' })
const query = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, required: false, schema })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})
const kind = str('The alarm kind', { enum: [...ALARM_KIND_NAMES] })

export function alertRoutes(): DescribedRoute[] {
  return [
    route('get', '/alerts', {
      id: 'alertsView', tag: 'alerts', summary: 'Active and recently cleared alarms, webhook deliveries and the webhooks (not in Krill)',
      description: 'Needs ca-list. An alarm is raised when a condition holds (a repository check failed, a manifest or CRL about to expire, publishing stalled, a child not functional, a task quarantined, a service stalled) and cleared when it no longer does; each raise and clear is delivered to the webhooks that take its kind. A role limited to some CAs sees the alarms about them and those naming no CA, and their deliveries. Webhook secrets are never shown, and a URL only by scheme, host, port and path. Bad parameters: 400 api-invalid-query.',
      params: [
        query('active', 'true: only the active alarms (recent is empty)', { type: 'string', enum: ['true', 'false'] }),
        query('offset', 'Cleared alarms and deliveries to skip', { type: 'integer', minimum: 0 }),
        query('limit', `Most cleared alarms and deliveries to answer (default ${LIST_PAGE_DEFAULT}, at most ${LIST_PAGE_MAX})`, { type: 'integer', minimum: 1, maximum: LIST_PAGE_MAX }),
      ],
      ok: json('AlertsJson', 'Alarms and deliveries'), errors: ['400', '401', '403', '500'],
    }),
    route('post', '/alerts/test', {
      id: 'alertsTest', tag: 'alerts', summary: 'Queue a signed test event to every webhook, or the one named (not in Krill)',
      description: 'Needs ca-admin. The event is delivered as alarms are (signed, retried); see it in GET /alerts deliveries. A webhook that is not configured: 404 alert-webhook-unknown, nothing queued.',
      body: { description: 'Optional: the webhook', required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/AlertTestJson' } } } },
      ok: json('AlertTestResultJson', 'The webhooks a test event was queued for'), errors: ['400', '401', '403', '404', '413', '500', '503', '507'],
    }),
  ]
}

const alarm = (withCleared: boolean) => obj(withCleared ? 'A cleared alarm' : 'An active alarm', {
  kind,
  subject: str('What it is about: a CA handle, ca/child, a task or a component'),
  ca: nullable(str('The CA it names, null when none')),
  reason: str('Why, in words'),
  raised_at: time('When it was raised'),
  ...(withCleared ? { cleared_at: nullable(time('When it was cleared')) } : {}),
})

export const ALERT_SCHEMAS: Record<string, Schema> = {
  AlertsJson: obj('Alarms, deliveries and webhooks', {
    active: { type: 'array', description: 'Active alarms, oldest first', items: alarm(false) },
    recent: { type: 'array', description: 'Cleared alarms, the most recently raised first', items: alarm(true) },
    deliveries: { type: 'array', description: 'Webhook deliveries, newest first', items: obj('A delivery', {
      id: int('Its id'),
      webhook: str('The webhook name'),
      event: str('alarm.raised, alarm.cleared or test', { enum: ['alarm.raised', 'alarm.cleared', 'test'] }),
      alarm: nullable(str('The alarm (kind:subject), null for a test event')),
      status: str('pending (retried with back-off), delivered, or failed (given up)', { enum: ['pending', 'delivered', 'failed'] }),
      attempts: int('Attempts made'),
      next_at: nullable(time('When the next attempt is due, while pending')),
      last_error: nullable(str('Why the last attempt failed (an HTTP status or a transport error)')),
      created: time('When it was queued'),
      done: nullable(time('When it was delivered or given up')),
    }) },
    webhooks: { type: 'array', description: 'The configured webhooks ([[alerts.webhooks]])', items: obj('A webhook', {
      name: str('Its name'), url: str('Scheme, host, port and path of its URL'), events: { type: 'array', description: 'The alarm kinds it takes; empty: every kind', items: kind },
    }) },
    offset: int('Cleared alarms and deliveries skipped'),
    limit: int('Most cleared alarms and deliveries answered'),
  }),
  AlertTestJson: obj('The webhook to test', { webhook: str('A configured webhook name; absent: every webhook') }, ['webhook']),
  AlertTestResultJson: obj('What was queued', { queued: { type: 'array', description: 'Webhook names', items: str('A webhook name') } }),
}
