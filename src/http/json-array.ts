/**
 * A large JSON array answer (the BGP analysis of hundreds of thousands of ROAs: tens of MB) serialised in slices,
 * yielding to the event loop between them (issue 22 defect 8), instead of one JSON.stringify in errors.ts. The text is
 * the same as JSON.stringify's.
 */
import type { Context } from 'koa'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { Readable } from 'node:stream'
import { JSON_CONTENT_TYPE } from '../api/media-types.js'
import type { JsonChunks } from '../app/bgp/analysis-json.js'

/** Entries serialised between two yields. */
const SLICE = 2_000

/** The JSON text of `items`, as JSON.stringify writes it, built a slice at a time. */
export async function jsonArrayText(items: readonly unknown[]): Promise<string> {
  if (items.length <= SLICE) return JSON.stringify(items)
  const parts: string[] = []
  for (let i = 0; i < items.length; i += SLICE) {
    if (i > 0) await yieldToLoop()
    parts.push(JSON.stringify(items.slice(i, i + SLICE)).slice(1, -1))
  }
  return `[${parts.join(',')}]`
}

/** Answer JSON text that comes in pieces (app/bgp/analysis-json.ts): streamed as it comes, never joined here. */
export function sendJsonChunks(ctx: Context, chunks: JsonChunks): void {
  ctx.body = Readable.from(chunks, { objectMode: false })
  ctx.set('Content-Type', JSON_CONTENT_TYPE)
}

/** Answer `items` as a JSON array streamed a slice at a time (yielding between slices): never one string. */
export function streamJsonArray(ctx: Context, items: readonly unknown[]): void {
  sendJsonChunks(ctx, (async function* () {
    if (items.length === 0) return void (yield '[]')
    for (let i = 0; i < items.length; i += SLICE) {
      if (i > 0) await yieldToLoop()
      yield `${i === 0 ? '[' : ','}${JSON.stringify(items.slice(i, i + SLICE)).slice(1, -1)}${i + SLICE >= items.length ? ']' : ''}`
    }
  })())
}

/** Answer `items` as a JSON array (200, the JSON content type). */
export async function sendJsonArray(ctx: Context, items: readonly unknown[]): Promise<void> {
  ctx.body = await jsonArrayText(items)
  ctx.set('Content-Type', JSON_CONTENT_TYPE)
}
