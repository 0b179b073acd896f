/**
 * The BGP analysis worker thread (analysis-pool.ts starts it, and a new one after a crash): it holds the announcement
 * index (route-origins.ts arrays, shared with the main thread, sent once per RIS refresh), receives a request's ROAs
 * in chunks, runs the pure analysis (app/ca/bgp-analysis.ts) and sends the answer back in chunks: objects, or the
 * JSON text's bytes for an HTTP answer (analysis-json.ts). Neither side ever clones one huge message: each chunk is a
 * short pause of the event loop, never the whole answer.
 */
import { parentPort } from 'node:worker_threads'
import type { ConfiguredRoa } from '../../api/cas.js'
import { ResourceSet } from '../../resources/resource-set.js'
import { analyseRoutes, bgpAnalysisReport, bgpSuggestion, reportEntries } from '../ca/bgp-analysis.js'
import { iterableJsonPieces, suggestionJsonPieces } from './analysis-json.js'
import { CHUNK, type FromWorker, type ToWorker } from './analysis-protocol.js'
import { RouteOrigins } from './route-origins.js'

let index: { v4: RouteOrigins; v6: RouteOrigins } | undefined
const pending = new Map<number, ConfiguredRoa[]>()
const port = parentPort!
const encoder = new TextEncoder()

port.on('message', (m: ToWorker) => {
  if (m.type === 'index') index = { v4: new RouteOrigins(m.v4), v6: new RouteOrigins(m.v6) }
  else if (m.type === 'no-index') index = undefined
  else if (m.type === 'roas') {
    const list = pending.get(m.id)
    if (list) for (const r of m.roas) list.push(r)
    else pending.set(m.id, m.roas)
  } else run(m)
})

function run(m: Extract<ToWorker, { type: 'run' }>): void {
  const roas = pending.get(m.id) ?? []
  pending.delete(m.id)
  try {
    const a = analyseRoutes(roas, ResourceSet.parse(m.held), index, m.scope ? ResourceSet.parse(m.scope) : undefined)
    if (m.op === 'report') send(m.id, 'entries', bgpAnalysisReport(a))
    else if (m.op === 'suggest') for (const [key, list] of Object.entries(bgpSuggestion(a))) send(m.id, key, list as unknown[])
    else {
      const pieces = m.op === 'report-json' ? iterableJsonPieces(reportEntries(a), CHUNK) : suggestionJsonPieces(bgpSuggestion(a), CHUNK)
      for (const piece of pieces) {
        const bytes = encoder.encode(piece)
        port.postMessage({ type: 'bytes', id: m.id, bytes } satisfies FromWorker, [bytes.buffer])
      }
    }
    port.postMessage({ type: 'done', id: m.id } satisfies FromWorker)
  } catch (e) {
    port.postMessage({ type: 'failed', id: m.id, error: (e as Error).message } satisfies FromWorker)
  }
}

function send(id: number, key: string, items: readonly unknown[]): void {
  // An empty list is sent too: the key is part of the answer.
  for (let i = 0; i === 0 || i < items.length; i += CHUNK) port.postMessage({ type: 'part', id, key, items: items.slice(i, i + CHUNK) } satisfies FromWorker)
}
