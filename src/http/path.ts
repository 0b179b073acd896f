/**
 * The one meaning of a request path (issue 10 "default deny"): authentication, the public-route list and the routers
 * all look at the same string, the raw path of the request target, and this module refuses every spelling that some
 * component (Koa, path-to-regexp, a proxy, a CDN, an rsync or file-system layer) could read as another path.
 *
 * The rules, decided once (RFC 3986 §3.3, §6.2.2):
 * - The target must be in origin form (`/…`, RFC 9112 §3.2.1); absolute-form, authority-form and `*` are refused.
 * - `/` separates segments and nothing else does: a percent-encoded `/` (`%2F`) is data inside one segment (a child
 *   handle such as `Alice/Bob`, RFC 8183 §5, travels as `Alice%2FBob`), never a separator. A backslash is refused,
 *   since some servers and proxies treat it as `/`.
 * - Percent-encoding must be well formed (`%` and two hex digits). No segment may decode to `.` or `..` (dot
 *   segments, literal or encoded, are refused rather than resolved), and none may contain a control character or
 *   NUL, literal or encoded.
 * - Empty segments are refused (`//api`, `/api//v1`), except for one trailing `/`, which the routers and the public
 *   list both ignore (`/rfc8181/pub/` is `/rfc8181/pub`).
 * - `;` parameters are refused: some servers strip `;…` from a segment before routing, svcd never does.
 * - Case is significant everywhere: `/API/v1/cas` is not `/api/v1/cas` (the routers are case-sensitive, and an
 *   unknown path is refused with 401 without the token, like any path that is not public).
 * - The query string is not part of the path and plays no part in routing or authentication.
 */

import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'

/** Characters allowed literally in a path (RFC 3986 pchar plus `/`), without `;` and `\`. */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string }

/**
 * Check the raw request target (`req.url`) and return its path, or the reason it is refused. The path returned is
 * exactly the raw path (still percent-encoded), which is what the routers match against.
 */
export function canonicalPath(target: string): PathCheck {
  if (!target.startsWith('/')) return refuse('the request target must be an absolute path (RFC 9112 §3.2.1 origin form)')
  const q = target.indexOf('?')
  const path = q < 0 ? target : target.slice(0, q)
  if (path.includes('#')) return refuse('a fragment is not part of a request target')
  if (!PATH_CHARS.test(path)) return refuse(path.includes(';') ? "';' parameters are not allowed in the path" : 'the path has a character that must be percent-encoded or is not allowed (RFC 3986 §3.3)')
  if (path === '/') return { ok: true, path }
  const segments = withoutTrailingSlash(path).slice(1).split('/')
  for (const seg of segments) {
    const problem = segmentProblem(seg)
    if (problem) return refuse(problem)
  }
  return { ok: true, path }
}

/** Why one raw segment is refused, or undefined when it is fine. */
function segmentProblem(seg: string): string | undefined {
  if (seg === '') return 'empty path segments are not allowed (repeated slashes)'
  let decoded: string
  try {
    decoded = decodeURIComponent(seg)
  } catch {
    return 'malformed percent-encoding (RFC 3986 §2.1)'
  }
  if (decoded === '.' || decoded === '..') return 'dot segments are not allowed (RFC 3986 §3.3)'
  if (/[\u0000-\u001f\u007f\\]/.test(decoded)) return 'control characters and backslashes are not allowed in a path segment'
  return undefined
}

/** The same path with one trailing slash dropped (the root stays `/`): the form the public list compares. */
export function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

function refuse(reason: string): PathCheck {
  return { ok: false, reason }
}

/** Options every router of svcd is built with: case-sensitive, one trailing slash ignored (as the public list). */
export const ROUTER_OPTIONS = { sensitive: true, strict: false } as const

/** Refuse (400 `api-invalid-path`) a request whose target is not a canonical path, before authentication and routing. */
export function requireCanonicalPath() {
  return async function canonicalPathOnly(ctx: Context, next: Next): Promise<void> {
    const check = canonicalPath(ctx.req.url ?? '')
    if (!check.ok) throw new AppError('api-invalid-path', { reason: check.reason })
    // Koa derives ctx.path from the same target; should its parser ever read it differently, refuse rather than guess.
    if (ctx.path !== check.path) throw new AppError('api-invalid-path', { reason: 'the path is read differently by the HTTP parser' })
    await next()
  }
}
