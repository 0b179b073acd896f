/**
 * The only catch in the HTTP path (style.md §7): AppError → its status and {label,msg,args} body; anything else
 * is logged in full and answered with a bare 500 `sys-internal` (Koa's `expose` rule: 5xx never shows internals).
 * Every JSON answer, errors included, goes out as `Content-Type: application/json` exactly, without a charset
 * parameter, as Krill sends it (krill:src/daemon/http/response.rs): Krill clients compare the header as a string.
 */
import type { Context, Next } from 'koa'
import { JSON_CONTENT_TYPE } from '../api/media-types.js'
import { AppError, internalErrorBody, storageFault } from '../errors.js'
import type { Logger } from '../log.js'
import type { Clock } from '../util/clock.js'

export function errorMiddleware(log: Logger, clock: Pick<Clock, 'now'>) {
  const storage = storageLog(log, clock)
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next()
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError('api-unknown-resource', { path: ctx.path })
      }
      serialiseJson(ctx)
      if (ctx.path === '/health') storage.up()
    } catch (err) {
      const appError = toAppError(err, ctx)
      if (appError) {
        if (appError.label === 'sys-storage-unavailable') storage.down(ctx, err)
        else if (appError.status >= 500) log.error('request failed', { method: ctx.method, path: ctx.path, label: appError.label, err: errFields(err) })
        ctx.status = appError.status
        sendJson(ctx, appError.body())
      } else {
        log.error('unexpected error', { method: ctx.method, path: ctx.path, err: errFields(err) })
        ctx.status = 500
        sendJson(ctx, internalErrorBody())
      }
      if (ctx.status === 401) ctx.set('WWW-Authenticate', 'Bearer')
    }
  }
}

/**
 * The database lost (sys-storage-unavailable): one error line when it goes (without a stack: the reason says it all),
 * one info line when /health answers again, and only debug lines in between, so that probes and retries do not fill
 * the log with a stack each (issue 22 defect 9). Repeated as an error every ten minutes while it lasts.
 */
function storageLog(log: Logger, clock: Pick<Clock, 'now'>): { down: (ctx: Context, err: unknown) => void; up: () => void } {
  let since: number | undefined
  let logged = 0
  return {
    down(ctx, err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
      const fields = { method: ctx.method, path: ctx.path, label: 'sys-storage-unavailable', reason: cause instanceof Error ? cause.message : String(cause) }
      const now = clock.now()
      if (since !== undefined && now - logged < 600_000) return log.debug('request failed: the database cannot be reached', fields)
      since ??= now
      logged = now
      log.error('the database cannot be reached: requests answer sys-storage-unavailable (503) until it is back', fields)
    },
    up() {
      if (since === undefined) return
      log.info('the database answers again', { down_seconds: Math.round((clock.now() - since) / 1000) })
      since = undefined
    },
  }
}

/**
 * Turn a JSON body into its text here, inside the catch, rather than in Koa's respond() after every middleware has
 * run: a body that cannot be serialised (too large for a string, say) is then a logged 500 with the labelled body,
 * and the request log shows 500, not the 200 the status was before the failure (issue 10, defect 5).
 */
function serialiseJson(ctx: Context): void {
  const body: unknown = ctx.body
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || body instanceof Uint8Array || typeof (body as { pipe?: unknown }).pipe === 'function') return
  // Koa typed an object body `application/json; charset=utf-8` when it was set; a type the handler chose stays.
  const type = ctx.response.get('Content-Type')
  ctx.body = JSON.stringify(body)
  ctx.set('Content-Type', type === '' || /^application\/json\s*(;|$)/i.test(type) ? JSON_CONTENT_TYPE : type)
}

/** Answer `body` as JSON text with the JSON content type, whatever type the failed handler had set. */
function sendJson(ctx: Context, body: unknown): void {
  ctx.body = JSON.stringify(body)
  ctx.set('Content-Type', JSON_CONTENT_TYPE)
}

/**
 * AppErrors pass; a full or failing data directory becomes sys-storage-full / sys-storage-io (issue 10: a labelled
 * answer, not a bare 500); the router's 405 and Koa's client errors (e.g. 413 from a stream) become labelled ones.
 */
function toAppError(err: unknown, ctx: Context): AppError | undefined {
  if (err instanceof AppError) return err
  const storage = storageFault(err)
  if (storage) return storage
  const status = (err as { status?: number }).status
  if (status === 405) return new AppError('api-unknown-method', { method: ctx.method, path: ctx.path })
  if (status === 404) return new AppError('api-unknown-resource', { path: ctx.path })
  return undefined
}

function errFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { value: String(err) }
  const cause = err.cause instanceof Error ? { message: err.cause.message, stack: err.cause.stack } : err.cause
  return { message: err.message, stack: err.stack, cause }
}
