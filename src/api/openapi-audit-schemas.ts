/** The audit trail's schemas in the OpenAPI description (api/audit.ts; the route is in openapi-audit.ts). */
import type { Schema } from './openapi-types.js'

const str = (description: string, extra: Record<string, unknown> = {}): Schema => ({ type: 'string', description, ...extra })
const int = (description: string, extra: Record<string, unknown> = {}): Schema => ({ type: 'integer', description, ...extra })
const nullableStr = (description: string): Schema => ({ type: 'string', description, nullable: true })

export const AUDIT_SCHEMAS: Record<string, Schema> = {
  AuditRecordJson: {
    type: 'object',
    description: 'Who did what, when, from where (never a secret)',
    properties: {
      seq: int('Position in the audit trail', { minimum: 1 }),
      time: str('When', { format: 'date-time' }),
      actor: str('The user id, admin-token, anonymous (testbed self-service), svc (svcd itself), or the user id tried (login-failed)'),
      provider: str('admin-token, config-file, openid-connect, api-token, testbed or svc'),
      token: nullableStr('The name of the API token used, or null'),
      kind: str('What: a CA command kind (route-authorizations-update, roas-update, child-add, ca-init, ca-delete, ta-keyroll-init…), publisher-add, publisher-remove, login, login-failed, logout, token-add, token-revoke'),
      ca: nullableStr('The CA it was about, or null'),
      success: { type: 'boolean', description: 'Whether it succeeded' },
      source: nullableStr('The peer address of the request, or null'),
      details: { type: 'object', description: 'What was done: for a CA command its summary (label, msg, args: counts for ROA and ASPA updates) and history version, and the error when it failed', additionalProperties: {} },
    },
    required: ['seq', 'time', 'actor', 'provider', 'token', 'kind', 'ca', 'success', 'source', 'details'],
  },
  AuditPageJson: {
    type: 'object',
    description: 'A page of the audit trail',
    properties: {
      total: int('Matching records in all', { minimum: 0 }),
      offset: int('Matches skipped', { minimum: 0 }),
      limit: int('Most rows asked for', { minimum: 1 }),
      records: { type: 'array', items: { $ref: '#/components/schemas/AuditRecordJson' } },
    },
    required: ['total', 'offset', 'limit', 'records'],
  },
}
