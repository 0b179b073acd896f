/**
 * The quarantine in the OpenAPI description (issue 26 §5; http/routes/quarantine.ts): what was set aside because it
 * cannot be decoded or run, listed and dropped by an operator; and its schema.
 */
import { empty, json, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const item: SchemaObject = {
  type: 'object', description: 'An item set aside', required: ['id', 'what', 'subject', 'reason', 'at'],
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Its id: DELETE /api/v1/quarantine/{id}' },
    what: str('task (a scheduled task row), ca (a CA whose stored state does not decode) or publication (a stored object)', { enum: ['task', 'ca', 'publication'] }),
    subject: str('The task key (kind:ca/arg), the CA handle, or the publisher and URI'),
    reason: str('Why it cannot be decoded or run'),
    raw: str('The stored row as read (tasks only)'),
    at: str('When it was set aside', { format: 'date-time' }),
  },
}

export function quarantineRoutes(): DescribedRoute[] {
  return [
    route('get', '/quarantine', {
      id: 'quarantineList', tag: 'quarantine', summary: 'What was set aside because what is stored cannot be decoded or run', ok: json('QuarantineListJson', 'The items, oldest first'),
      description: 'Needs ca-admin. A task of an unknown kind or with an argument that does not decode, a CA whose stored state does not decode: each is logged once, reported (svcc issues, the task-quarantined condition, svc_quarantined) and never retried in a loop; everything else goes on.',
      errors: ['401', '403', '500'],
    }),
    route('delete', '/quarantine/{id}', {
      id: 'quarantineDrop', tag: 'quarantine', summary: 'Drop an item set aside (the report clears); a CA that still does not decode is set aside again when next read', ok: empty('Dropped'),
      description: 'Needs ca-admin. An id that is not set aside: 404 api-unknown-resource.', errors: ['400', '401', '403', '404', '500'],
    }),
  ]
}

export const QUARANTINE_SCHEMAS: Record<string, Schema> = {
  QuarantineListJson: { type: 'object', description: 'What was set aside', required: ['items'], properties: { items: { type: 'array', items: { $ref: '#/components/schemas/QuarantinedJson' }, description: 'Oldest first' } } },
  QuarantinedJson: item,
}
