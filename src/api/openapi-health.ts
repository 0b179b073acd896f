/**
 * The relying-party view in the OpenAPI description (design.md §11, issue 26 §2; api/health.ts,
 * http/routes/health.ts): each CA's liveness, one CA's, and a check now; and their schemas.
 */
import { json, route, type DescribedRoute } from './openapi-operations.js'
import type { Parameter, Schema, SchemaObject } from './openapi-types.js'
import { HEALTH_SORTS } from './health.js'
import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX, LIST_QUERY_MAX } from './paging.js'

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const time = (description: string): SchemaObject => ({ type: 'string', format: 'date-time', description, nullable: true })
const num = (description: string): SchemaObject => ({ type: 'number', description, nullable: true })
const int = (description: string): SchemaObject => ({ type: 'integer', description, minimum: 0 })
const bool = (description: string): SchemaObject => ({ type: 'boolean', description })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const nullable = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true })
const obj = (description: string, properties: Record<string, Schema>): SchemaObject => ({ type: 'object', description, properties, required: Object.keys(properties) })
const arr = (description: string, items: Schema): SchemaObject => ({ type: 'array', description, items })

const FUNCTIONAL = 'Functional as registries define it (RIPE NCC 2025-02, APNIC prop-166): a current, valid manifest and CRL reachable by relying parties over at least one transport'

function healthParams(): Parameter[] {
  const q = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, required: false, schema })
  return [
    q('offset', 'CAs to skip (default 0)', { type: 'integer', minimum: 0 }),
    q('limit', `CAs to return (default ${LIST_PAGE_DEFAULT}, at most ${LIST_PAGE_MAX})`, { type: 'integer', minimum: 1, maximum: LIST_PAGE_MAX }),
    q('q', `Case-insensitive text in the CA handle (at most ${LIST_QUERY_MAX} characters)`, { type: 'string' }),
    q('sort', 'ca (default), functional (non-functional first, then never checked) or manifest_expiry (soonest first)', { type: 'string', enum: [...HEALTH_SORTS] }),
    q('order', 'asc (default) or desc', { type: 'string', enum: ['asc', 'desc'] }),
    q('functional', 'Only the functional (true) or the non-functional (false) CAs; never-checked ones match neither', { type: 'string', enum: ['true', 'false'] }),
    q('ca', 'Only this CA', { type: 'string' }),
  ]
}

export function healthRoutes(): DescribedRoute[] {
  return [
    route('get', '/health/cas', {
      id: 'healthCas', tag: 'health', summary: 'Each CA as relying parties see it: functional, expiries, last good fetch, findings', ok: json('HealthPageJson', 'A page of CAs'),
      params: healthParams(), errors: ['400', '401', '403', '500'],
      description: 'Needs ca-list; lists only the CAs the role may read (as GET /cas), and `summary` counts those. What svcd fetched of its own repository through its public URIs (RRDP and rsync) at the last check ([liveness] check_seconds, and after publishing), compared with what each CA published.',
    }),
    route('get', '/health/cas/{ca}', {
      id: 'healthCa', tag: 'health', summary: "One CA's liveness", ok: json('HealthCaJson', 'The CA'), errors: ['400', '401', '403', '404', '500'],
      description: 'Needs ca-read on the CA. An unknown CA: 404 ca-unknown.',
    }),
    route('post', '/health/check', {
      id: 'healthCheck', tag: 'health', summary: 'Check every CA now and answer the fresh page', ok: json('HealthCheckJson', 'The page after the check'),
      params: healthParams(), errors: ['400', '401', '403', '413', '500'],
      description: 'Needs ca-admin. Takes no body. A check already running is joined (check: joined); one asked within 10 seconds of the last asked one runs no new fetch (check: recent), so the call cannot make svcd hammer repositories.',
    }),
  ]
}

const expiry: Record<string, Schema> = {
  manifest_expires: time('Earliest nextUpdate of the manifests relying parties see'),
  crl_expires: time('Earliest nextUpdate of the CRLs relying parties see'),
  cert_expires: time('Earliest notAfter of the certificates'),
  hours_to_manifest_expiry: num('Hours from now to manifest_expires, to a tenth (negative once past)'),
  hours_to_crl_expiry: num('Hours from now to crl_expires'),
  hours_to_cert_expiry: num('Hours from now to cert_expires'),
}

const seen = obj('What one transport served at the last check', {
  at: str('When the fetch ended', { format: 'date-time' }),
  reachable: bool('Whether the transport could be fetched'),
  valid: bool('Whether the manifest and its CRL are present, current and valid'),
  manifest_number: { ...str('Manifest number (decimal)'), nullable: true },
  manifest_this_update: time('Manifest thisUpdate'),
  manifest_next_update: time('Manifest nextUpdate'),
  crl_next_update: time('CRL nextUpdate'),
  manifest_hash: { ...str('SHA-256 of the manifest served (hex)'), nullable: true },
})

export const HEALTH_SCHEMAS: Record<string, Schema> = {
  HealthFindingJson: obj('A problem of a publication point as fetched', {
    kind: str('What is wrong', { enum: ['missing', 'extra', 'changed', 'stale', 'invalid', 'unreachable', 'transport-disagreement', 'expiring'] }),
    transport: { ...str('Over which transport; null for both', { enum: ['rrdp', 'rsync'] }), nullable: true },
    uri: { ...str('rsync URI of the object; null for a whole repository'), nullable: true },
    rule: { ...str('The rule broken (RFC section or rpki-client rule)'), nullable: true },
    detail: str('Why, in one line'),
  }),
  HealthPointJson: obj('A publication point: a key of the CA, or a delegated child elsewhere', {
    dir: str('rsync URI of the directory'),
    key_id: { ...str('Key identifier (hex)'), nullable: true },
    functional: bool(FUNCTIONAL),
    ...expiry,
    rsync_lag_seconds: num('How long rsync trailed RRDP in serving the current manifest'),
    seen: obj('Per transport, null when not fetched', { rrdp: nullable(seen), rsync: nullable(seen) }),
    findings: arr('Problems found', ref('HealthFindingJson')),
  }),
  HealthChildJson: obj('A delegated child that publishes outside this svcd (from the SIA of the certificate issued to it)', {
    child: str('Child handle'),
    functional: bool(FUNCTIONAL),
    non_functional_since: time('Since when it has been non-functional, as observed by this svcd'),
    revoke_at: time('When a policy revoking after [liveness] child_revoke_days would revoke it'),
    hours_to_revoke: num('Hours from now to revoke_at'),
    point: ref('HealthPointJson'),
  }),
  HealthCaJson: obj("A CA's liveness", {
    ca: str('CA handle'),
    functional: { ...bool(`${FUNCTIONAL}; null until the first check`), nullable: true },
    checked_at: time('When it was last checked'),
    last_good_fetch: obj('The last fetch that reached the repository, per transport', { rrdp: time('RRDP'), rsync: time('rsync') }),
    ...expiry,
    rsync_lag_seconds: num('The longest rsync lag among its points'),
    findings_count: int('Findings over all its points'),
    points: arr('Its publication points (one per key)', ref('HealthPointJson')),
    children: arr('Its delegated children that publish elsewhere', ref('HealthChildJson')),
  }),
  HealthPageJson: obj('A page of CAs', {
    total: int('Matches in all'), offset: int('Offset'), limit: int('Limit'),
    summary: obj('The CAs the caller may read, before the filters', {
      cas: int('CAs'), checked: int('Checked at least once'), functional: int('Functional'), non_functional: int('Checked and not functional'), children_non_functional: int('Delegated children elsewhere not functional'),
    }),
    cas: arr('The page', ref('HealthCaJson')),
  }),
  HealthCheckJson: { allOf: [ref('HealthPageJson'), obj('What this call did', { check: str('ran, joined (a check was running) or recent (one was asked moments ago)', { enum: ['ran', 'joined', 'recent'] }) })] },
}
