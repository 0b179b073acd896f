/**
 * Moving a delegated child between parents in the OpenAPI description (Krill's child export and import,
 * api/child-import.ts, http/routes/child-transfer.ts): the two routes and Krill's ImportChild schema.
 */
import { empty, json, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'

const TAG = 'children'

export function childTransferRoutes(): DescribedRoute[] {
  return [
    route('get', '/cas/{ca}/children/{child}/export', {
      id: 'caChildExport', tag: TAG, summary: "A child as another parent imports it (Krill's ExportChild)", ok: json('ImportChildJson', 'The child'),
      description: 'Its identity certificate, resources, and its certificate as key and SIA (no private key). A child without a certificate, or with two (a key roll in progress), cannot be exported: 400 ca-child-export-unsupported.',
    }),
    route('post', '/cas/{ca}/children/{child}/import', {
      id: 'caChildImport', tag: TAG, summary: 'Add a child moved from another parent, certifying its current key again', body: jsonBody('ImportChildJson', "Krill's ImportChild, as the old parent exported it"), ok: empty('Imported'),
      description: "Needs ca-admin. The name must be the {child} of the path (ca-child-import-handle-mismatch). Refused, with nothing changed, when the child exists (ca-child-duplicate), its resources are not held (ca-child-resources-extra), or the certificate does not fit (ca-child-import-invalid: the key is not RSA-2048, the SIA is not an rsync directory with its manifest inside, the key is the CA's, another child's or the child's identity key, the CA does not have exactly one certified resource class, or class_name differs from it). The child's objects are then valid under this CA too; the child adds this CA as a parent from GET …/children/{child}/contact and removes the old one.",
    }),
  ]
}

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })

export const CHILD_TRANSFER_SCHEMAS: Record<string, Schema> = {
  ImportChildJson: {
    type: 'object', description: "Krill's ImportChild (= ExportChild): a delegated child moved between parents", required: ['name', 'id_cert', 'resources', 'issued_cert'],
    properties: {
      name: str('The child handle; equal to {child} of the path'),
      id_cert: str("The child's RFC 8183 identity certificate, DER (base64)", { format: 'byte' }),
      resources: { $ref: '#/components/schemas/ResourceSet' },
      issued_cert: {
        type: 'object', description: "The child's current certificate as its new parent certifies it again (Krill's CsrInfo)", required: ['ca_repository', 'rpki_manifest', 'key'],
        properties: {
          ca_repository: str('caRepository of the SIA (rsync directory, ends with /)'),
          rpki_manifest: str('rpkiManifest of the SIA (a .mft in ca_repository)'),
          rpki_notify: str('rpkiNotify of the SIA (https), if any', { nullable: true }),
          key: str("The child's public key, DER SubjectPublicKeyInfo (base64; RSA 2048)", { format: 'byte' }),
          class_name: str('The class the child knows its certificate in, when it differs from the parent\'s (svcd accepts only its own)', { nullable: true }),
        },
      },
    },
  },
}
