/**
 * The console's API client: openapi-fetch typed with the generated description of svcd's API
 * (fixtures/openapi/schema.d.ts, from src/api/openapi.ts), so each call is checked against the routes svcd serves.
 * Every call carries the session's bearer token; any 401 ends the session and brings the login back (session.ts).
 */
import createClient, { type Middleware } from 'openapi-fetch'
import type { components, paths } from 'svc-api-schema'
import { currentSession, endSession } from './session.js'

export type Schemas = components['schemas']
export type ErrorBody = Schemas['ErrorBody']

/** An error answer of svcd: its status and labelled body (`{label, msg, args}` plus details such as delta_error). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ErrorBody) {
    super(body.msg || body.label)
  }
}

const auth: Middleware = {
  onRequest({ request }) {
    const s = currentSession()
    if (s && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${s.token}`)
    return request
  },
  onResponse({ request, response }) {
    // A refused login is the login form's own business; anything else means the session is gone.
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/auth/')) endSession('Your session has ended: log in again.')
    return response
  },
}

/** Calls under /api/v1. */
export const api = createClient<paths>({ baseUrl: `${location.origin}/api/v1` })
/** Calls at the host (/auth/login, /stats/info), described with the root server in the description. */
export const root = createClient<paths>({ baseUrl: location.origin })
api.use(auth)
root.use(auth)

/** The data of a successful answer, or an ApiError with the server's label and message. */
export async function ok<R extends { data?: unknown; error?: unknown; response: Response }>(p: Promise<R>): Promise<NonNullable<R['data']>> {
  const r = await p
  if (r.response.ok) return r.data as NonNullable<R['data']>
  throw new ApiError(r.response.status, errorBody(r.error, r.response))
}

function errorBody(e: unknown, res: Response): ErrorBody {
  if (typeof e === 'object' && e !== null && typeof (e as ErrorBody).label === 'string') return e as ErrorBody
  return { label: `http-${res.status}`, msg: typeof e === 'string' && e ? e : res.statusText || `HTTP ${res.status}`, args: {} }
}

/** Send an RFC 8183 XML document as the body (the routes that take JSON or XML read it by Content-Type). */
export const xmlBody = { bodySerializer: (b: unknown) => String(b), headers: { 'Content-Type': 'application/xml' } } as const

/** A text answer (RFC 8183 XML documents). */
export const asText = { parseAs: 'text' } as const

/**
 * A call to a route the generated description does not type yet (the contracts of issue 24 in progress: API tokens,
 * the audit trail), with the session's token; the answer's JSON, or an ApiError with the server's label and message.
 */
export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const s = currentSession()
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (s) headers.Authorization = `Bearer ${s.token}`
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch(`${location.origin}/api/v1${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = text
  }
  if (res.ok) return json as T
  if (res.status === 401) endSession('Your session has ended: log in again.')
  throw new ApiError(res.status, errorBody(json, res))
}
