/**
 * Request body readers with size limits and content-type checks. Bodies are read as raw bytes up to the limit
 * (413 `api-post-body-exceeds-limit` beyond it); JSON is then parsed strictly. A refused body is read on and
 * dropped for a bounded amount and time before the answer goes out: a connection closed with unread data is reset,
 * and the reset takes the client's copy of the answer with it. The time bound runs on the clock createApp puts on the
 * app's context (`ctx.clock`).
 */
import type { IncomingMessage } from 'node:http'
import type { Context } from 'koa'
import { AppError, reasonOf } from '../errors.js'
import type { Clock } from '../util/clock.js'

/** What createApp adds to every request's context: the injected clock. */
export interface ClockedContext {
  clock: Clock
}

/** How long a refused body is read on and dropped, at most (beyond this or the byte bound the connection goes). */
const DISCARD_MS = 3_000

/** Read the raw body, refusing more than `limit` bytes, and (if given) any other content type. */
export async function readBytes(ctx: Context, limit: number, contentType?: string | readonly string[]): Promise<Buffer> {
  if (contentType !== undefined) {
    const allowed = typeof contentType === 'string' ? [contentType] : contentType
    const got = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase()
    if (!allowed.includes(got)) {
      await discard(ctx, limit)
      throw new AppError('api-unsupported-media-type', { content_type: got, expected: allowed.join("' or '") })
    }
  }
  const tooLarge = () => new AppError('api-post-body-exceeds-limit', { limit: String(limit) })
  const declared = Number(ctx.get('Content-Length') || NaN)
  if (Number.isFinite(declared) && declared > limit) {
    // Read on only when the whole body fits the discard bound; a far larger one is cut off at once.
    if (declared <= 2 * limit) await discard(ctx, declared)
    throw tooLarge()
  }
  const chunks: Buffer[] = []
  let size = 0
  try {
    // destroyOnReturn: false: leaving the loop early must not destroy the request (and the socket with it).
    for await (const chunk of ctx.req.iterator({ destroyOnReturn: false })) {
      size += (chunk as Buffer).length
      if (size > limit) break
      chunks.push(chunk as Buffer)
    }
  } catch (e) {
    throw new AppError('api-post-body-cannot-read', { reason: reasonOf(e) })
  }
  if (size > limit) {
    await discard(ctx, limit)
    throw tooLarge()
  }
  return Buffer.concat(chunks, size)
}

/** Read and drop the rest of a refused body: until it ends, `maxBytes` more arrived, or DISCARD_MS passed. */
function discard(ctx: Context, maxBytes: number): Promise<void> {
  const req: IncomingMessage = ctx.req
  const { clock } = ctx as Context & ClockedContext
  if (req.readableEnded || req.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    let seen = 0
    const done = () => {
      clock.clear(timer)
      req.off('data', onData).off('end', done).off('error', done).off('close', done)
      resolve()
    }
    const onData = (c: Buffer) => {
      seen += c.length
      if (seen > maxBytes) done()
    }
    const timer = clock.setTimeout(done, DISCARD_MS)
    req.on('data', onData).once('end', done).once('error', done).once('close', done)
  })
}

/**
 * The content types a JSON (or RFC 8183 XML) body may be declared with: none, JSON, XML where allowed, and text/plain
 * (what a browser's fetch sends for a string body; Krill reads such bodies whatever their type). Form encodings and
 * binary types are refused with 415: they are what a cross-site HTML form sends, and never a JSON document.
 */
const JSON_TYPES = ['', 'application/json', 'text/plain']
const XML_TYPES = ['application/xml', 'text/xml']

function textType(ctx: Context, xml: boolean): string | undefined {
  const got = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase()
  if (JSON_TYPES.includes(got) || /^application\/[a-z0-9.+-]+\+json$/.test(got)) return undefined
  if (xml && (XML_TYPES.includes(got) || /^application\/[a-z0-9.+-]+\+xml$/.test(got))) return undefined
  return got
}

async function refuseType(ctx: Context, limit: number, xml: boolean): Promise<void> {
  const got = textType(ctx, xml)
  if (got === undefined) return
  await discard(ctx, limit)
  throw new AppError('api-unsupported-media-type', { content_type: got, expected: xml ? 'application/json' + "' or '" + 'application/xml' : 'application/json' })
}

/** Read a JSON body (a JSON or text content type, or none) and check its shape with `guard`. */
export async function readJson<T>(ctx: Context, limit: number, guard: (v: unknown) => string | undefined): Promise<T> {
  await refuseType(ctx, limit, false)
  const bytes = await readBytes(ctx, limit)
  const value = parseJson(bytes)
  const problem = guard(value)
  if (problem) throw new AppError('api-invalid-body', { reason: problem })
  return value as T
}

/** Read a JSON body that may be left out (then `dflt`): an action whose options all have defaults. */
export async function readOptionalJson<T>(ctx: Context, limit: number, guard: (v: unknown) => string | undefined, dflt: T): Promise<T> {
  await refuseType(ctx, limit, false)
  const bytes = await readBytes(ctx, limit)
  if (bytes.toString('utf8').trim() === '') return dflt
  const value = parseJson(bytes)
  const problem = guard(value)
  if (problem) throw new AppError('api-invalid-body', { reason: problem })
  return value as T
}

/** Read a body that is either JSON or raw XML (detected by a leading '<', as Krill does for RFC 8183 documents). */
export async function readJsonOrXml(ctx: Context, limit: number): Promise<{ json: unknown } | { xml: string }> {
  await refuseType(ctx, limit, true)
  const bytes = await readBytes(ctx, limit)
  const text = decodeUtf8(bytes)
  if (text.trimStart().startsWith('<')) return { xml: text }
  return { json: parseJson(bytes) }
}

/** Refuse a body on requests that take none. */
export async function readNoBody(ctx: Context): Promise<void> {
  const bytes = await readBytes(ctx, 1024)
  if (bytes.length > 0 && bytes.toString('utf8').trim() !== '') throw new AppError('api-unexpected-body')
}

function parseJson(bytes: Buffer): unknown {
  const text = decodeUtf8(bytes)
  if (text.trim() === '') throw new AppError('api-json', { reason: 'empty body' })
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new AppError('api-json', { reason: reasonOf(e) })
  }
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new AppError('api-invalid-utf8')
  }
}
