/**
 * The OpenAPI 3.0.3 description of svcd's HTTP interface (spec §9, design.md §4), served at /api/v1/openapi.json
 * by http/routes/status.ts. Paths under /api/v1 are relative to the server `https://{host}/api/v1`; the others
 * (/stats/info and the public /health, /rfc6492, /rfc8181, /rrdp, /ta) override it with the bare host.
 * test/unit/openapi.test.ts keeps this document and the routers in step.
 */
import { ERROR_RESPONSES, type DescribedRoute } from './openapi-operations.js'
import { ROUTES } from './openapi-paths.js'
import { SCHEMAS } from './openapi-schemas.js'
import { TOKEN_SCHEMAS } from './openapi-tokens.js'
import { PLAN_SCHEMAS } from './openapi-plans.js'
import { IDENTITY_SCHEMAS } from './openapi-identity.js'
import { SIGNER_SCHEMAS } from './openapi-signers.js'
import { ALERT_SCHEMAS } from './openapi-alerts.js'
import { HEALTH_SCHEMAS } from './openapi-health.js'
import { QUARANTINE_SCHEMAS } from './openapi-quarantine.js'
import { ROA_IO_SCHEMAS } from './openapi-roa-io.js'
import { IMPORT_SCHEMAS } from './openapi-import.js'
import { CHILD_TRANSFER_SCHEMAS } from './openapi-child-transfer.js'
import type { OpenApiDocument, PathItem, Server } from './openapi-types.js'

/** The version of this description: its own number, bumped when the description changes (spec §9 rule 3). */
export const OPENAPI_VERSION = '1.7.0'

const HOST = { host: { default: 'localhost:3000', description: 'host:port of svcd' } }
export const API_SERVER: Server = { url: 'https://{host}/api/v1', description: 'The svcd JSON API', variables: HOST }
export const ROOT_SERVER: Server = { url: 'https://{host}', description: 'svcd itself (paths at the host)', variables: HOST }

//------------ The document ----------------------------------------------------------------------------------------

const TAGS: [string, string][] = [
  ['ca', 'CA lifecycle and RFC 8183 requests'],
  ['parents', 'Parents of a CA (RFC 6492 as child)'],
  ['children', 'Children of a CA (RFC 6492 as parent)'],
  ['roas', 'ROA configuration and BGP analysis'],
  ['aspas', 'ASPA configuration'],
  ['bgpsec', 'BGPsec router keys'],
  ['rsc', 'Signed checklists (RFC 9323)'],
  ['repo', 'Repository of a CA (RFC 8181 as publisher)'],
  ['history', 'Command history of a CA'],
  ['issues', 'Failures of parent and repository exchanges'],
  ['keys', 'Key rolls (RFC 6489)'],
  ['trust-anchor', "The embedded trust anchor's key roll (RFC 9691)"],
  ['bulk', 'Operations on all CAs'],
  ['publication-server', 'The embedded publication server'],
  ['status', 'Server status, token check and this description'],
  ['protocols', 'RFC 6492 and RFC 8181 endpoints (CMS-signed messages, no bearer token)'],
  ['repository-files', 'Public files: RRDP (RFC 8182) and the testbed trust anchor'],
  ['auth', "Login of web clients (Krill's admin-token provider)"],
  ['testbed', 'Testbed self-service (no token; only with [testbed] on; rate-limited)'],
  ['audit', 'Who did what, across CAs and the publication server (not in Krill)'],
  ['tokens', 'Scoped API tokens (beyond Krill)'],
  ['plans', 'Change plans and four-eyes approval (beyond Krill)'],
  ['identity', 'RFC 8183 identity key rolls (beyond Krill)'],
  ['signers', 'The configured signers: software and PKCS#11 tokens (beyond Krill)'],
  ['alerts', 'Alarms and their webhook deliveries (beyond Krill)'],
  ['health', 'The repository as relying parties see it: liveness of each CA (beyond Krill)'],
  ['quarantine', 'What was set aside because it cannot be decoded or run (beyond Krill)'],
]

const DESCRIPTION = [
  'svc: an RPKI Certificate Authority service and publication server.',
  '',
  'Every call under /api/v1 carries `Authorization: Bearer <token>`. Errors answer a JSON body {label, msg, args}',
  '(400 by default; 401 with `WWW-Authenticate: Bearer`; 404; 5xx without details). Mutations answer 200 with an',
  'empty body unless they return a document. `info.version` is the version of this description, not of svc',
  '(GET /stats/info reports that).',
].join('\n')

function pathsOf(routes: DescribedRoute[]): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {}
  for (const r of routes) {
    const item = (paths[r.path] ??= r.root ? { servers: [ROOT_SERVER] } : {})
    if (item[r.method]) throw new Error(`openapi: ${r.method.toUpperCase()} ${r.path} is described twice`)
    item[r.method] = r.op
  }
  return paths
}

export const OPENAPI: OpenApiDocument = {
  openapi: '3.0.3',
  info: { title: 'svc', version: OPENAPI_VERSION, description: DESCRIPTION, license: { name: 'MPL-2.0', url: 'https://mozilla.org/MPL/2.0/' } },
  servers: [API_SERVER],
  security: [{ bearerAuth: [] }],
  tags: TAGS.map(([name, description]) => ({ name, description })),
  paths: pathsOf(ROUTES),
  components: {
    schemas: { ...SCHEMAS, ...TOKEN_SCHEMAS, ...PLAN_SCHEMAS, ...ROA_IO_SCHEMAS, ...IMPORT_SCHEMAS, ...CHILD_TRANSFER_SCHEMAS, ...IDENTITY_SCHEMAS, ...SIGNER_SCHEMAS, ...HEALTH_SCHEMAS, ...ALERT_SCHEMAS, ...QUARANTINE_SCHEMAS },
    responses: Object.fromEntries(Object.values(ERROR_RESPONSES)),
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The admin token (config `admin_token` or SVC_ADMIN_TOKEN)' } },
  },
}
