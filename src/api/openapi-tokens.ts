/**
 * Scoped API tokens in the OpenAPI description (beyond Krill; api/tokens.ts, http/routes/tokens.ts): the list, the
 * creation that answers the secret once, the revocation; and their schemas.
 */
import { empty, json, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'

const TAG = 'tokens'
const ERRORS = ['400', '401', '403', '404', '413', '500', '503', '507'] as const

export function tokenRoutes(): DescribedRoute[] {
  return [
    route('get', '/tokens', {
      id: 'tokenList', tag: TAG, summary: 'List API tokens: your own, or every token for the admin token (or a role with every permission on every CA)', ok: json('TokenListJson', 'The tokens, oldest first; never a secret'),
      description: 'Shows the last use of each token (written at most once a minute). An API token cannot list tokens (403).', errors: ['401', '403', '500'],
    }),
    route('post', '/tokens', {
      id: 'tokenAdd', tag: TAG, summary: 'Create an API token; its secret is in the answer, this once', body: jsonBody('AddTokenJson', 'Name, role or permissions, CAs, expiry'), ok: json('NewTokenJson', 'The token with its secret (`token`)'),
      description: "The role must be within the creator's (else 403 api-insufficient-rights naming the wider permission or CA); without `cas` the token is limited as the named role or the creator is. Expiry: at most 400 days ahead, 90 days by default. A name already used by a live token of the same owner: 400 api-token-duplicate. Only a logged-in user or the admin token creates tokens (an API token: 403).",
      errors: ['400', '401', '403', '413', '500', '503', '507'],
    }),
    route('delete', '/tokens/{id}', {
      id: 'tokenRevoke', tag: TAG, summary: 'Revoke an API token (its owner, or an administrator); refused at once on every instance', ok: empty('Revoked (also when it already was)'),
      description: "Someone else's token, or one that never was: 404 api-token-unknown.", errors: [...ERRORS],
    }),
  ]
}

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const time = (description: string, nullable = false): SchemaObject => str(description, { format: 'date-time', ...(nullable ? { nullable: true } : {}) })
const list = (description: string, nullable = false): SchemaObject => ({ type: 'array', items: { type: 'string' }, description, ...(nullable ? { nullable: true } : {}) })

const tokenFields: Record<string, Schema> = {
  id: str('Public id of the token (in its secret after svct_): DELETE /api/v1/tokens/{id}'),
  name: str('Name, unique per owner among live tokens', { pattern: '^[A-Za-z0-9._-]{1,64}$' }),
  owner: str('Who created it: a user id, or admin-token'),
  owner_provider: str('How the owner logged in: admin-token, config-file or openid-connect'),
  role: str('The configured role it was given, or custom for a list of permissions'),
  permissions: list('Its permissions (Krill names)'),
  cas: list('The CAs it is limited to; null: every CA', true),
  created: time('Created'),
  expires: time('Expires; null: never', true),
  last_used: time('Last used (to the minute); null: never', true),
  revoked: time('Revoked; null: live', true),
}
const required = (fields: Record<string, Schema>) => Object.keys(fields)

export const TOKEN_SCHEMAS: Record<string, Schema> = {
  TokenJson: { type: 'object', description: 'A scoped API token, without its secret', properties: tokenFields, required: required(tokenFields) },
  TokenListJson: { type: 'object', description: 'API tokens', properties: { tokens: { type: 'array', items: { $ref: '#/components/schemas/TokenJson' } } }, required: ['tokens'] },
  NewTokenJson: {
    type: 'object', description: 'A new API token with its secret, shown this once',
    properties: { ...tokenFields, token: str('The secret, svct_<id>_<secret>: send it as the bearer token') }, required: [...required(tokenFields), 'token'],
  },
  AddTokenJson: {
    type: 'object', description: 'A new API token: either role or permissions',
    properties: {
      name: str('1 to 64 of A-Z, a-z, 0-9, ".", "_", "-"', { pattern: '^[A-Za-z0-9._-]{1,64}$' }),
      role: str('A configured role (admin, readwrite, readonly, or one of [auth_roles])'),
      permissions: list('Permission names and shortcuts (any, read, update)'),
      cas: list('Limit the token to these CAs'),
      expires: time('When it expires (at most 400 days ahead; default 90 days)'),
    },
    required: ['name'],
  },
}
