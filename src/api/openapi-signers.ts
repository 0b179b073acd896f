/**
 * Signers in the OpenAPI description (design.md §10, issue 25; api/signers.ts, http/routes/signers.ts): the list of
 * configured signers, a CA's keys with the signer of each, the optional body of the key roll inits; and their schemas.
 */
import { json, route, type DescribedRoute } from './openapi-operations.js'
import type { RequestBody, Schema, SchemaObject } from './openapi-types.js'

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const int = (description: string): SchemaObject => ({ type: 'integer', description, minimum: 0 })
const bool = (description: string): SchemaObject => ({ type: 'boolean', description })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const nullable = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})

/** The optional body of POST /cas/{ca}/keys/roll_init and /ta/keyroll/init (Krill's call has none). */
export const KEY_ROLL_INIT_BODY: RequestBody = {
  description: 'Optional (Krill sends none): the configured signer the new keys are made in; without it, default_signer',
  required: false,
  content: { 'application/json': { schema: ref('KeyRollInitJson') } },
}

/** What the key roll inits say of a named signer. */
export const KEY_ROLL_SIGNER_REFUSALS = "A signer that is not configured: 400 signer-unknown; one that cannot make keys now: 503 with its problem's label (sys-signer-unavailable, sys-signer-login). Either way nothing changed. A key roll is how a CA's keys move from one signer to another: the old key's objects are withdrawn only after activation, so no VRP disappears."

export function signerRoutes(): DescribedRoute[] {
  return [
    route('get', '/cas/{ca}/keys', {
      id: 'caKeys', tag: 'keys', summary: "The CA's keys per resource class: state, signer and certificate validity", ok: json('CaKeysJson', 'Keys'),
      description: 'Per resource class the current key (pending or active) and, during an RFC 6489 key roll, the new or the old key, each with the configured signer that holds it.',
    }),
    route('get', '/signers', {
      id: 'signerList', tag: 'signers', summary: 'The configured signers: type, handle, token, keys held, whether each can sign now', ok: json('SignerListJson', 'Signers'),
      description: 'Needs ca-admin. The PIN of a token is never shown. A signer that cannot sign has its problem (the label /ready and svcc issues show), since when.',
    }),
  ]
}

const caKey = obj('A key of a resource class', {
  key_id: str('Key identifier, 40 hex digits'),
  signer: str('The configured signer that holds the key (absent when unknown)'),
  state: str('pending (no certificate yet), active (current), new (made by a key roll), old (kept until the roll finishes)', { enum: ['pending', 'active', 'new', 'old'] }),
  cert: nullable(obj('The certificate the parent issued for the key', { uri: str('rsync URI where the parent publishes it'), not_before: str('notBefore', { format: 'date-time' }), not_after: str('notAfter', { format: 'date-time' }) })),
}, ['signer'])

export const SIGNER_SCHEMAS: Record<string, Schema> = {
  KeyRollInitJson: obj('The signer of the new keys of a key roll', { signer: str('A configured signer ([[signers]] name)') }, ['signer']),
  CaKeysJson: obj("A CA's keys", {
    handle: str('The CA'),
    resource_classes: { type: 'array', description: 'Its resource classes', items: obj('A resource class', {
      name: str('Class name'), parent: str('Local name of the parent'), key_state: str('active, pending, roll_pending, roll_new or roll_old'), keys: { type: 'array', items: caKey, description: 'Current key first, then the new or the old one' },
    }) },
  }),
  SignerListJson: obj('The configured signers', {
    signers: { type: 'array', description: 'In the order of the configuration', items: obj('A signer', {
      name: str('Its [[signers]] name'),
      type: str('OpenSSL or PKCS#11', { enum: ['OpenSSL', 'PKCS#11'] }),
      handle: nullable(str('Its handle (for PKCS#11 kept in the token); null until the token was ever opened')),
      default: bool('New CA keys are made here (default_signer)'),
      one_off: bool('One-off EE keys come from here (one_off_signer)'),
      token_label: str('PKCS#11: the token label'),
      serial: str('PKCS#11: the token serial number'),
      lib_path: str('PKCS#11: the library'),
      keys: int('Persistent keys recorded for this signer'),
      available: bool('Whether it can sign now'),
      problem: nullable(obj('Why it cannot sign now', { label: str('Error label (sys-signer-*)'), message: str('Message'), since: str('Since when', { format: 'date-time' }) })),
      operations: obj('Operations since svcd started', { sign: int('Signatures'), sign_errors: int('Failed signatures'), keygen: int('Key generations'), keygen_errors: int('Failed key generations') }),
    }, ['token_label', 'serial', 'lib_path']) },
  }),
}
