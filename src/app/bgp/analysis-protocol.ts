/**
 * The messages between svcd's main thread (analysis-pool.ts) and the BGP analysis worker (analysis-worker.ts): a
 * module of its own, so that the pool does not load the worker's entry file on the main thread.
 */
import type { ConfiguredRoa } from '../../api/cas.js'
import type { ResourceSetText } from '../../resources/resource-set.js'
import type { RouteOriginArrays } from './route-origins.js'

/** Items in one message, either way. */
export const CHUNK = 2_000

/** The report or the suggestion, as objects (for svcd's own use) or as JSON bytes (an HTTP answer, analysis-json.ts). */
export type AnalysisOp = 'report' | 'suggest' | 'report-json' | 'suggest-json'

export type ToWorker =
  | { type: 'index'; v4: RouteOriginArrays; v6: RouteOriginArrays }
  | { type: 'no-index' }
  | { type: 'roas'; id: number; roas: ConfiguredRoa[] }
  | { type: 'run'; id: number; op: AnalysisOp; held: ResourceSetText; scope?: ResourceSetText }

export type FromWorker =
  /** Items to append to the answer's list `key` (the report: 'entries'; a suggestion: one of its lists). */
  | { type: 'part'; id: number; key: string; items: unknown[] }
  /** The next piece of the answer's JSON text, UTF-8 (transferred). */
  | { type: 'bytes'; id: number; bytes: Uint8Array }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; error: string }
