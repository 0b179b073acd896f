/**
 * Krill's CA structure import in the OpenAPI description (api/structure.ts, http/routes/bulk-import.ts,
 * app/ca/structure-import.ts): POST /api/v1/bulk/cas/import and the Structure schema, with svcd's `aspas` addition.
 */
import { empty, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'
import { IMPORT_CAS_MAX } from './structure.js'

export function importRoutes(): DescribedRoute[] {
  return [
    route('post', '/bulk/cas/import', {
      id: 'bulkImport', tag: 'bulk', summary: 'Import a CA structure (Krill\'s) into an empty svcd: the trust anchor, CAs with parents and resources, ROAs and ASPAs', body: jsonBody('StructureJson', 'The structure'), ok: empty('The tree is set up, certified and published'),
      description: [
        'Only into an empty svcd (400 ca-import-not-empty). Everything is checked first and every problem is listed in one 400 ca-import-invalid; then nothing changes.',
        "svcd's trust anchor and repository are its own: ta_aia, ta_uri, rrdp_base_uri and rsync_jail must be svcd's own URIs; ta_key_pem (an existing TA key) and ta_mft_nr_override are refused.",
        "`aspas` per CA is svcd's addition. Needs ca-admin on the trust anchor 'ta' and on each CA created.",
        'A failure half-way answers ca-import-failed naming the CAs created: delete them (the last first) and import again.',
      ].join(' '),
      errors: ['400', '401', '403', '409', '413', '500', '503', '507'],
    }),
  ]
}

const str = (description: string): SchemaObject => ({ type: 'string', description })
const int = (description: string): SchemaObject => ({ type: 'integer', minimum: 0, description })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})
const resources = obj('Resources the parent gives', { asn: str('e.g. AS65000-AS65535'), ipv4: str('e.g. 10.0.0.0/8'), ipv6: str('e.g. fc00::/7') }, ['asn', 'ipv4', 'ipv6'])
const parent = obj('A parent: the trust anchor `ta` or a CA listed before', { handle: str('Parent handle'), resources })

export const IMPORT_SCHEMAS: Record<string, Schema> = {
  StructureJson: obj('Krill\'s import structure (krill:src/api/import.rs)', {
    ta: obj('The trust anchor', { ta_aia: str("rsync URI of the TA certificate (svcd's own)"), ta_uri: str("https URI of the TA certificate (svcd's own)"), ta_key_pem: str('Refused: svcd makes its TA key'), ta_mft_nr_override: int('Refused') }, ['ta_key_pem', 'ta_mft_nr_override']),
    publication_server: obj("The repository (svcd's [repository] URIs)", { rrdp_base_uri: str('RRDP base URI'), rsync_jail: str('rsync base URI') }),
    cas: { type: 'array', description: `The CAs, a parent before its children (at most ${IMPORT_CAS_MAX})`, items: ref('ImportCaJson') },
  }, ['ta', 'publication_server']),
  ImportCaJson: obj('A CA to create', {
    handle: str('CA handle'),
    parent: { oneOf: [parent, { type: 'array', items: parent }], description: 'One parent or several' },
    roas: { type: 'array', items: ref('RoaJson'), description: 'Its ROAs' },
    aspas: { type: 'array', items: ref('AspaDefinitionJson'), description: "Its ASPA definitions (svcd's addition)" },
  }, ['roas', 'aspas']),
}
