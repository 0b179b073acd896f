/**
 * How one operation of the OpenAPI description is written: the shared error responses, answers and bodies, path
 * parameters, and `route()`, which builds an Operation from a short spec. Used by openapi-paths.ts; the document
 * itself is assembled in openapi.ts.
 */
import { ref } from './openapi-schemas.js'
import type { Header, Operation, Parameter, RequestBody, Response, Schema } from './openapi-types.js'

//------------ Errors ----------------------------------------------------------------------------------------------

export type ErrorStatus = '400' | '401' | '403' | '404' | '409' | '413' | '415' | '429' | '500' | '503' | '507'

export const ERROR_RESPONSES: Record<ErrorStatus, [name: string, response: Response]> = {
  '400': ['BadRequest', errorResponse('Bad request: invalid input or a refused operation (label says which)')],
  '401': ['Unauthorized', { ...errorResponse('No or wrong bearer token (api-invalid-credentials)'), headers: { 'WWW-Authenticate': wwwAuthenticate() } }],
  '403': ['Forbidden', errorResponse('Not allowed for this caller (api-insufficient-rights), e.g. a testbed removal of a CA of this svcd')],
  '404': ['NotFound', errorResponse('Unknown CA, child, parent, publisher, history key or path')],
  '409': ['Conflict', errorResponse("Refused by the state of the thing asked about: a stale plan (ca-plan-stale), a plan's status (ca-plan-status), a plan not yet approved under four-eyes (ca-plan-not-approved) or one that invalidates announcements (ca-plan-invalidates), a direct update under four-eyes (ca-plan-required); nothing was changed")],
  '413': ['PayloadTooLarge', errorResponse('The request body exceeds the configured limit (api-post-body-exceeds-limit)')],
  '415': ['UnsupportedMediaType', errorResponse('Wrong Content-Type for a protocol message (api-unsupported-media-type)')],
  '429': ['TooManyRequests', { ...errorResponse('Too many requests from this address (api-rate-limited); nothing was done'), headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } } }],
  '500': ['InternalError', errorResponse('Server error: always the bare sys-internal body, details are only logged')],
  '503': ['StorageUnavailable', errorResponse('The data directory cannot be written (sys-storage-io) or the database cannot be reached (sys-storage-unavailable): nothing was changed, retry later')],
  '507': ['InsufficientStorage', errorResponse('No space left in the data directory (sys-storage-full): nothing was changed, retry when space has been freed')],
}

function errorResponse(description: string): Response {
  return { description, content: { 'application/json': { schema: ref('ErrorBody') } } }
}

function wwwAuthenticate(): Header {
  return { description: 'Always `Bearer`', schema: { type: 'string', enum: ['Bearer'] } }
}

/** References to the shared error responses for the given statuses. */
export function errors(...statuses: ErrorStatus[]): Record<string, { $ref: string }> {
  return Object.fromEntries(statuses.map((s) => [s, { $ref: `#/components/responses/${ERROR_RESPONSES[s][0]}` }]))
}

//------------ Bodies and answers -----------------------------------------------------------------------------------

/** 200 with an empty body: what mutations answer when they return no document (design.md §4). */
export function empty(description: string): Response {
  return { description: `${description}: 200 with an empty body` }
}

export function json(schema: string | Schema, description: string): Response {
  return { description, content: { 'application/json': { schema: typeof schema === 'string' ? ref(schema) : schema } } }
}

/** An RFC 8183 XML document (or an RRDP file) as text. */
export function xml(description: string): Response {
  return { description, content: { 'application/xml': { schema: { type: 'string' } } } }
}

export function binary(contentType: string, description: string): Response {
  return { description, content: { [contentType]: { schema: { type: 'string', format: 'binary' } } } }
}

export function jsonBody(schema: string, description: string): RequestBody {
  return { description, required: true, content: { 'application/json': { schema: ref(schema) } } }
}

/** JSON or the raw RFC 8183 XML document; svcd tells them apart by a leading `<`, as Krill does. */
export function jsonOrXmlBody(schema: string, description: string, document: string): RequestBody {
  const xmlSchema: Schema = { type: 'string', description: `The RFC 8183 ${document} XML` }
  return { description: `${description}: JSON, or the RFC 8183 ${document} as XML`, required: true, content: { 'application/json': { schema: ref(schema) }, 'application/xml': { schema: xmlSchema } } }
}

export function binaryBody(contentType: string, description: string): RequestBody {
  return { description, required: true, content: { [contentType]: { schema: { type: 'string', format: 'binary' } } } }
}

//------------ Parameters ------------------------------------------------------------------------------------------

const handle = (description: string): Schema => ({ type: 'string', description })
const count = (description: string, max?: number): Schema => ({ type: 'integer', minimum: 0, ...(max ? { maximum: max } : {}), description })

/** Every path parameter of the interface, by name; a path may only use these. */
const PATH_PARAMS: Record<string, [description: string, schema: Schema]> = {
  ca: ['CA handle', handle('a-z, A-Z, 0-9, - and _')],
  parent: ['Local name of a parent of the CA', handle('URL-encoded')],
  child: ['Handle of a child of the CA', handle('URL-encoded')],
  publisher: ['Publisher handle', handle('URL-encoded')],
  key: ['Action key of a history entry (`version` in the history)', { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }],
  rows: ['Rows to return, 1 to 250 (default 100)', { ...count('Rows', 250), minimum: 1 }],
  offset: ['Rows to skip (default 0)', count('Offset')],
  after: ['Only entries after this time, in unix seconds (0: no lower bound)', count('Unix seconds')],
  before: ['Only entries before this time, in unix seconds', count('Unix seconds')],
  seconds: ['Minimum time without publication, in seconds', count('Seconds')],
  customer: ['The customer AS of an ASPA definition: `AS65000` or `65000`', { type: 'string', pattern: '^([Aa][Ss])?[0-9]{1,10}$' }],
  key_id: ['Key identifier of a trust anchor key: 40 upper-case hex digits', { type: 'string', pattern: '^[0-9A-F]{40}$' }],
  id: ['Public id of an API token (the 16 characters after svct_ in its secret)', { type: 'string', pattern: '^[A-Za-z0-9_-]{16}$' }],
  file: ['Path of the RRDP file below /rrdp/: `notification.xml` or `<session>/<serial>/<random>/snapshot.xml|delta.xml` (contains `/`)', { type: 'string' }],
}

/** The path parameters of a path template, in order (`/cas/{ca}/children/{child}` → ca, child). */
export function pathParameters(path: string): Parameter[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => {
    const p = PATH_PARAMS[name]
    if (!p) throw new Error(`openapi: path parameter '${name}' in ${path} has no description`)
    return { name, in: 'path', description: p[0], required: true, schema: p[1] }
  })
}

//------------ Operations ------------------------------------------------------------------------------------------

export interface OperationSpec {
  /** The operationId: the name of the service method behind the route (style.md §6 "Mirrored names"). */
  id: string
  summary: string
  tag: string
  description?: string
  body?: RequestBody
  /** The 200 answer. */
  ok: Response
  /** Other answers that are not errors (e.g. 304). */
  more?: Record<string, Response>
  /** Query and header parameters (path parameters come from the path). */
  params?: Parameter[]
  /** Error statuses; by default derived from the path and method (api) or none (public). */
  errors?: ErrorStatus[]
}

export interface DescribedRoute {
  method: 'get' | 'post' | 'delete'
  /** Relative to the API server for API routes, to the host for root ones. */
  path: string
  /** Relative to the host (not under /api/v1). */
  root: boolean
  /** Needs no token (on the public list of http/auth.ts). */
  public: boolean
  op: Operation
}

/**
 * The errors any /api/v1 call may answer: 401 always; 400/404 with path parameters; 400/413 with a body; 503/507 for
 * a change the storage could not take.
 */
function apiErrors(method: DescribedRoute['method'], path: string, tag: string): ErrorStatus[] {
  const params = path.includes('{')
  const statuses: ErrorStatus[] = []
  if (params || method === 'post' || tag === 'publication-server') statuses.push('400')
  statuses.push('401')
  if (params) statuses.push('404')
  if (method === 'post') statuses.push('413')
  return method === 'get' ? [...statuses, '500'] : [...statuses, '500', '503', '507']
}

/**
 * One described route: the operation with its parameters, answers and errors. `place`: under /api/v1 behind the
 * token (`api`), at the host behind the token (`host`), or at the host without a token (`public`).
 */
export function route(method: DescribedRoute['method'], path: string, spec: OperationSpec, place: 'api' | 'host' | 'public' = 'api'): DescribedRoute {
  const isPublic = place === 'public'
  const parameters = [...pathParameters(path), ...(spec.params ?? [])]
  const statuses = spec.errors ?? (isPublic ? [] : apiErrors(method, path, spec.tag))
  const op: Operation = {
    operationId: spec.id,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body ? { requestBody: spec.body } : {}),
    responses: { '200': spec.ok, ...spec.more, ...errors(...statuses) },
    ...(isPublic ? { security: [] } : {}),
  }
  return { method, path, root: place !== 'api', public: isPublic, op }
}
