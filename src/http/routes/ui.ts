/**
 * The web console's static files (design.md §8, issue 15): `make build` bundles src/ui/ into dist/ui/ (index.html and
 * assets/ with content-hashed names); svcd serves them at /ui/, and `/` redirects there. Every other path under /ui/
 * answers index.html, so the console's own URLs (/ui/cas/{ca}/roas, …) load from a bookmark or a reload (history-API
 * routing). These paths are on the public list of http/auth.ts (GET and HEAD only): the files hold no data, the
 * console asks for the token and sends it with each API call. Every answer carries a Content-Security-Policy that
 * allows nothing from other hosts and no inline script.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Context, Next } from 'koa'
import { AppError } from '../../errors.js'
import { withoutTrailingSlash } from '../path.js'

/** dist/ui/ next to dist/http/ (this file is dist/http/routes/ui.js once built). */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url))

/** Same origin only; no inline script or style elements; no framing (clickjacking); forms post nowhere else. */
export const UI_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

/** A built asset's name: `main-<hash>.js`, `main-<hash>.css` (no directories, no dot segments). */
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(js|css|svg|map)$/
const MAX_ASSET_NAME = 200
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml', map: 'application/json' }

/**
 * GET/HEAD `/`, `/ui` and `/ui/…` (a plain middleware, like RRDP's: static files are not API operations and are not in
 * the OpenAPI description). Any other method on these paths is refused; other paths go on to the routers.
 */
export function uiMiddleware(dir = UI_DIR) {
  return async function ui(ctx: Context, next: Next): Promise<void> {
    const path = withoutTrailingSlash(ctx.path)
    if (path !== '/' && path !== '/ui' && !path.startsWith('/ui/')) return void (await next())
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new AppError('api-unknown-method', { method: ctx.method, path: ctx.path })
    headers(ctx)
    if (path === '/') return ctx.redirect('/ui/')
    if (path.startsWith('/ui/assets/')) return asset(ctx, dir, path.slice('/ui/assets/'.length))
    const body = await file(join(dir, 'index.html'))
    if (!body) throw new AppError('sys-internal', { reason: 'the console is not built (make build writes dist/ui/)' })
    ctx.set('Cache-Control', 'no-cache')
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = body
  }
}

/** One built asset: immutable (its name changes with its content), or 404. */
async function asset(ctx: Context, dir: string, name: string): Promise<void> {
  // A built name is short: a long one is no asset (and would fail the open with ENAMETOOLONG; issue 22 defect 9).
  const ext = name.length <= MAX_ASSET_NAME ? ASSET_NAME.exec(name)?.[2] : undefined
  const body = ext ? await file(join(dir, 'assets', name)) : undefined
  if (!ext || !body) throw new AppError('api-unknown-resource', { path: ctx.path })
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable')
  ctx.type = TYPES[ext]
  ctx.body = body
}

function headers(ctx: Context): void {
  ctx.set('Content-Security-Policy', UI_CSP)
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('Referrer-Policy', 'no-referrer')
}

const NOT_FOUND = new Set(['ENOENT', 'ENAMETOOLONG', 'ENOTDIR', 'EISDIR'])

/**
 * The built files, kept once read: they change only with a build (the asset names with their content), and a read
 * from disk waits for a thread of libuv's small pool, which a busy svcd fills with key generation, gzip and file
 * writes (a console page took 20 s to load beside a 50,000-ROA publication). A rebuilt console needs a restart.
 */
const cache = new Map<string, Buffer>()
const MAX_CACHED = 64

async function file(path: string): Promise<Buffer | undefined> {
  const kept = cache.get(path)
  if (kept) return kept
  try {
    const body = await readFile(path)
    if (cache.size < MAX_CACHED) cache.set(path, body)
    return body
  } catch (e) {
    // No such file, however the name fails: a 404, not a 500 with a stack in the log (issue 22 defect 9).
    if (NOT_FOUND.has((e as NodeJS.ErrnoException).code ?? '')) return undefined
    throw e
  }
}
