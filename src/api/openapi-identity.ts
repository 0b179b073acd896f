/**
 * RFC 8183 identity key rolls in the OpenAPI description (issue 25, beyond Krill; app/ca/id-roll-service.ts,
 * http/routes/id-roll.ts): the identity with a pending roll, the roll and its finish; and the publication server's
 * update of a publisher's identity certificate.
 */
import { json, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'

const TAG = 'identity'
const answer = json('IdRollJson', 'The identity after the step')

export function identityRoutes(): DescribedRoute[] {
  return [
    route('get', '/cas/{ca}/id', { id: 'caIdRoll', tag: TAG, summary: "The CA's RFC 8183 identity, and a pending identity key roll", ok: answer }),
    route('post', '/cas/{ca}/id/roll', {
      id: 'caIdRollInit', tag: TAG, summary: 'Roll the CA\'s identity key: a new key and self-signed id certificate', body: jsonBody('IdRollInitJson', 'Where the new key is made (the body may be left out)'), ok: answer,
      description: 'Parents that are CAs of this server and the embedded publication server get the new id certificate at once (the previous one stays accepted until the CA signs with the new one), and the roll finishes at once when there is nobody else. Otherwise the child and publisher requests show the new certificate for the operator to give to the parent or repository, and the CA keeps signing with the old key until POST …/id/roll/finish. A roll while one is pending: 409 ca-id-roll-pending; an unknown signer: 400 signer-unknown.',
      errors: ['400', '401', '403', '404', '409', '413', '500', '503'],
    }),
    route('post', '/cas/{ca}/id/roll/finish', {
      id: 'caIdRollFinish', tag: TAG, summary: 'Finish the identity key roll: sign with the new key, destroy the old one', ok: answer,
      description: 'After the parents and repository elsewhere were given the new id certificate. No roll pending: 409 ca-id-roll-none.',
      errors: ['400', '401', '403', '404', '409', '500', '503'],
    }),
    route('post', '/pubd/publishers/{publisher}/id_cert', {
      id: 'pubdPublisherIdCert', tag: 'publishers', summary: "Update a publisher's identity certificate (its identity key roll)", body: jsonBody('PublisherIdCertJson', 'The new certificate'), ok: { description: 'Updated: 200 with an empty body' },
      description: 'Messages signed with the previous certificate are accepted until the first one signed with the new one (or until the server restarts).',
      errors: ['400', '401', '403', '404', '413', '500'],
    }),
  ]
}

const str = (description: string): SchemaObject => ({ type: 'string', description })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})

export const IDENTITY_SCHEMAS: Record<string, Schema> = {
  IdRollInitJson: obj('Where the new identity key is made', { signer: str('A configured signer ([[signers]] name); default: default_signer') }, ['signer']),
  IdRollJson: obj("A CA's identity", {
    current: obj('The identity in use', { hash: str('SHA-256 of the id certificate (hex)'), signer: str('The signer holding its key') }, ['signer']),
    pending: obj('A pending identity key roll', {
      hash: str('SHA-256 of the new id certificate (hex)'), signer: str('The signer holding its key'), id_cert: str('The new id certificate, base64 DER'),
      waiting_for: { type: 'array', items: str('A parent or repository'), description: 'Who must still be given the new certificate (svcc parents request / repo request)' },
    }, ['signer']),
  }, ['pending']),
  PublisherIdCertJson: obj("A publisher's new identity certificate", { id_cert: str('Base64 DER') }),
}
