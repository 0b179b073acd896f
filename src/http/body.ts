/**
 * Request body readers with size limits and content-type checks. Bodies are read as raw bytes up to the limit
 * (the stream is abandoned beyond it: 413 `api-post-body-exceeds-limit`); JSON is then parsed strictly.
 */
import type { Context } from 'koa'
import { AppError, reasonOf } from '../errors.js'

/** Read the raw body, refusing more than `limit` bytes, and (if given) any other content type. */
export async function readBytes(ctx: Context, limit: number, contentType?: string | readonly string[]): Promise<Buffer> {
  if (contentType !== undefined) {
    const allowed = typeof contentType === 'string' ? [contentType] : contentType
    const got = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase()
    if (!allowed.includes(got)) throw new AppError('api-unsupported-media-type', { content_type: got, expected: allowed.join("' or '") })
  }
  const declared = Number(ctx.get('Content-Length') || NaN)
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume()
    throw new AppError('api-post-body-exceeds-limit', { limit: String(limit) })
  }
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length
      if (size > limit) {
        ctx.req.resume()
        throw new AppError('api-post-body-exceeds-limit', { limit: String(limit) })
      }
      chunks.push(chunk as Buffer)
    }
  } catch (e) {
    if (e instanceof AppError) throw e
    throw new AppError('api-post-body-cannot-read', { reason: reasonOf(e) })
  }
  return Buffer.concat(chunks, size)
}

/** Read a JSON body (any JSON content type, or none) and check its shape with `guard`. */
export async function readJson<T>(ctx: Context, limit: number, guard: (v: unknown) => string | undefined): Promise<T> {
  const bytes = await readBytes(ctx, limit)
  const value = parseJson(bytes)
  const problem = guard(value)
  if (problem) throw new AppError('api-invalid-body', { reason: problem })
  return value as T
}

/** Read a body that is either JSON or raw XML (detected by a leading '<', as Krill does for RFC 8183 documents). */
export async function readJsonOrXml(ctx: Context, limit: number): Promise<{ json: unknown } | { xml: string }> {
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
