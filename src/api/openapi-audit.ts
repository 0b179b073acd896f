/**
 * The audit trail in the OpenAPI description (api/audit.ts; http/routes/audit.ts): GET /api/v1/audit and its page
 * (its schemas: openapi-audit-schemas.ts).
 */
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX } from './audit.js'
import { json, route, type DescribedRoute } from './openapi-operations.js'
import type { Parameter, Schema } from './openapi-types.js'

const query = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, required: false, schema })

export function auditRoutes(): DescribedRoute[] {
  const params: Parameter[] = [
    query('actor', 'Only records of this actor (user id, admin-token, svc, anonymous…)', { type: 'string' }),
    query('ca', 'Only records about this CA', { type: 'string' }),
    query('kind', 'Only records of this kind', { type: 'string' }),
    query('since', 'Only records at or after this time (ISO 8601, e.g. 2026-11-27T09:00:00Z or 2026-11-27)', { type: 'string' }),
    query('until', 'Only records before this time (ISO 8601)', { type: 'string' }),
    query('offset', 'Matches to skip', { type: 'integer', minimum: 0 }),
    query('limit', `Most records to answer (default ${AUDIT_PAGE_DEFAULT}, at most ${AUDIT_PAGE_MAX})`, { type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX }),
    query('order', 'asc (default: oldest first) or desc (newest first; the offset counts from the newest)', { type: 'string', enum: ['asc', 'desc'] }),
  ]
  return [
    route('get', '/audit', {
      id: 'audit', tag: 'audit', summary: 'The audit trail across CAs and the publication server (not in Krill)',
      description: 'Every CA command (success or error), CA creation and deletion, publishers added and removed, testbed self-service registrations, logins, failed logins, logouts, API tokens added and revoked. Each caller sees what its role may: records about a CA on which it holds ca-read; records without a CA for pub-admin (publishers) or a role with every permission (logins, tokens); and its own. Bad or unknown parameters: 400 api-invalid-query.',
      params, ok: json('AuditPageJson', 'A page of the audit trail'), errors: ['400', '401', '500'],
    }),
  ]
}
