/**
 * The JSON text of a BGP analysis answer in pieces of at most `per` entries, equal when joined to JSON.stringify of
 * the whole: the analysis worker (analysis-worker.ts) sends the pieces as bytes, and the HTTP answer streams them, so
 * that neither svcd's event loop nor its heap ever holds the answer as objects or as one string (issue 28 §3: the
 * report of 100,000 ROAs against a full table is tens of MB). Pure.
 */
import type { BgpAnalysisSuggestion } from '../../api/cas.js'

/** Entries per piece: a few hundred KB of JSON. */
export const PIECE = 2_000

/** An answer as it is sent: its JSON text in pieces (strings or UTF-8 bytes). */
export type JsonChunks = AsyncIterable<string | Uint8Array>

/** The pieces of a JSON array. */
export function* arrayJsonPieces(items: readonly unknown[], per = PIECE): Generator<string> {
  if (items.length === 0) return void (yield '[]')
  for (let i = 0; i < items.length; i += per) {
    const body = JSON.stringify(items.slice(i, i + per)).slice(1, -1)
    yield `${i === 0 ? '[' : ','}${body}${i + per >= items.length ? ']' : ''}`
  }
}

/** The pieces of a JSON array of `items` taken one at a time (a report's entries as they are made): never all held. */
export function* iterableJsonPieces(items: Iterable<unknown>, per = PIECE): Generator<string> {
  let chunk: unknown[] = []
  let pending: string | undefined
  for (const item of items) {
    chunk.push(item)
    if (chunk.length < per) continue
    if (pending !== undefined) yield pending
    pending = `${pending === undefined ? '[' : ','}${JSON.stringify(chunk).slice(1, -1)}`
    chunk = []
  }
  if (chunk.length) {
    if (pending !== undefined) yield pending
    pending = `${pending === undefined ? '[' : ','}${JSON.stringify(chunk).slice(1, -1)}`
  }
  yield pending === undefined ? '[]' : `${pending}]`
}

/** The pieces of Krill's suggestion object: its lists in their order. */
export function* suggestionJsonPieces(s: BgpAnalysisSuggestion, per = PIECE): Generator<string> {
  const entries = Object.entries(s) as [string, unknown[]][]
  if (entries.length === 0) return void (yield '{}')
  for (let k = 0; k < entries.length; k++) {
    const [key, list] = entries[k]!
    let head = `${k === 0 ? '{' : ','}${JSON.stringify(key)}:`
    for (const piece of arrayJsonPieces(list, per)) {
      yield head + piece
      head = ''
    }
  }
  yield '}'
}
