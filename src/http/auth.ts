/**
 * Default deny (issue 10): one step in front of all routing that requires valid credentials (the admin bearer token,
 * checked by the AuthProvider of http/auth-provider.ts) for every request except those on the explicit list of
 * public routes below (krill-reference.md §1.2). The path it looks at is the one the routers match (http/path.ts has
 * refused every other spelling before this runs), compared case-sensitively.
 */
import type { Context, Next } from 'koa'
import type { AccessService } from '../app/access/access-service.js'
import { AppError } from '../errors.js'
import { bearer } from './auth-provider.js'
import { withoutTrailingSlash } from './path.js'

/** A route anyone may call: methods and a pattern over the path without its one optional trailing slash. */
export interface PublicRoute {
  readonly methods: readonly string[]
  readonly path: RegExp
  /** Why it needs no token. */
  readonly why: string
}

const READ = ['GET', 'HEAD']
const SEGMENT = '[^/]+'

/**
 * Everything that is reachable without the token. Anything else (unknown paths included, so they reveal nothing)
 * answers 401 without a valid token.
 */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { methods: READ, path: /^\/health$/, why: 'liveness probe, answers nothing but the status' },
  { methods: READ, path: /^\/ready$/, why: 'readiness probe for load balancers' },
  { methods: READ, path: /^\/stats\/info$/, why: "the version and start time (Krill serves it to anyone; Krill's web UI asks for it before a login, for its footer)" },
  { methods: READ, path: /^\/rrdp\/.+$/, why: 'RRDP files for relying parties (RFC 8182); the file name is checked where it is served' },
  { methods: READ, path: /^\/ta\/ta\.(tal|cer)$/, why: 'the trust anchor locator and certificate (RFC 8630)' },
  { methods: READ, path: /^\/ta\/(ta-next\.tal|ta-[^/]+\.cer)$/, why: "during a TA key roll (RFC 9691) the successor's TAL, and each TA key's certificate (the key id is checked where it is served)" },
  { methods: ['POST'], path: new RegExp(`^/rfc6492/${SEGMENT}$`), why: 'RFC 6492 up-down: each message is CMS-signed by a registered child (RFC 6492 §3.1)' },
  { methods: ['POST'], path: new RegExp(`^/rfc8181/${SEGMENT}$`), why: 'RFC 8181 publication: each message is CMS-signed by a registered publisher (RFC 8181 §2)' },
  { methods: READ, path: /^\/$/, why: 'redirects to the web console at /ui/' },
  { methods: READ, path: /^\/ui(\/.*)?$/, why: "the web console's static files (http/routes/ui.ts): they hold no data; the console asks for the token and sends it with each API call" },
  { methods: READ, path: /^\/auth\/login$/, why: "where a web client's login page is (a relative URL, or the OpenID Connect provider's)" },
  { methods: ['POST'], path: /^\/auth\/(login|logout)$/, why: 'log in and out (Krill): the provider checks the credentials of the request itself (the admin token, a user and password, a session to end); failures are rate-limited and audited' },
  { methods: READ, path: /^\/auth\/callback$/, why: "the OpenID Connect provider's redirect back after a login (RFC 6749 §4.1.2); state, nonce and PKCE are checked where it is served" },
  { methods: READ, path: /^\/testbed\/enabled$/, why: 'whether the testbed self-service is on (Krill testbed; 404 when it is off)' },
  { methods: ['POST'], path: /^\/testbed\/(children|publishers)$/, why: 'a public testbed lets anyone register a child of CA testbed or a publisher in the embedded repository (Krill testbed); rate-limited, off unless [testbed] is on' },
  { methods: ['DELETE'], path: new RegExp(`^/testbed/(children|publishers)/${SEGMENT}$`), why: "unregister a testbed child or publisher (Krill testbed); confined to CA testbed's children and to publishers that are not CAs of this svcd; rate-limited" },
]

/** GET /metrics, public only when the config says so (`metrics_public`; Krill serves it unauthenticated). */
export const PUBLIC_METRICS: PublicRoute = { methods: READ, path: /^\/metrics$/, why: 'Prometheus metrics, opened by metrics_public = true' }

/** True when `method path` is on the public list (or on `extra`). `path` is a canonical path (http/path.ts). */
export function isPublic(method: string, path: string, extra: readonly PublicRoute[] = []): boolean {
  const p = withoutTrailingSlash(path)
  return [...PUBLIC_ROUTES, ...extra].some((r) => r.methods.includes(method) && r.path.test(p))
}

/**
 * Require valid credentials for every request that is not on the public list; the actor is kept in `ctx.state.actor`,
 * and the rest of the request runs on its behalf (app/shared/acting.ts: history and audit name it).
 */
export function defaultDeny(access: AccessService, extra: readonly PublicRoute[] = []) {
  return async function requireTokenUnlessPublic(ctx: Context, next: Next): Promise<void> {
    if (isPublic(ctx.method, ctx.path, extra)) return next()
    const actor = access.authenticate(bearer(ctx))
    if (!actor) throw new AppError('api-invalid-credentials', { reason: 'token refused' })
    ctx.state.actor = actor
    await access.runAs(actor, ctx.ip, next)
  }
}
