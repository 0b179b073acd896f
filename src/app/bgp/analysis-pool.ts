/**
 * svcd's RouteAnalyser (analyser.ts): one long-lived worker thread (analysis-worker.ts) runs the BGP analysis, so that
 * 100,000 ROAs against a million announcements never hold up the event loop (issue 28 §3; krill-ui switches the
 * analysis off above 1,000 ROAs instead). The worker receives the announcement index once per RIS refresh (the arrays
 * live in SharedArrayBuffers, ris-worker.ts: nothing is copied) and each request's ROAs in chunks; the answer comes
 * back in chunks. One request at a time: a request that arrives while another CA's analysis runs waits its turn. A
 * worker that crashes fails the request it was running with sys-bgp-analysis, and the next request starts a new one.
 */
import { Worker } from 'node:worker_threads'
import type { BgpAnalysisEntry, BgpAnalysisSuggestion, ConfiguredRoa } from '../../api/cas.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { ResourceSet } from '../../resources/resource-set.js'
import type { RouteAnalyser } from './analyser.js'
import type { JsonChunks } from './analysis-json.js'
import { CHUNK, type AnalysisOp, type FromWorker, type ToWorker } from './analysis-protocol.js'
import type { RisWhois } from './route-origins.js'

export interface AnalysisPoolOptions {
  /** The announcements loaded last (ris-service.ts current()), undefined without any. */
  data: () => RisWhois | undefined
  log: Logger
  /** A yield to the event loop, between the chunks of ROAs sent. */
  pause: () => Promise<void>
}

interface Running {
  id: number
  parts: Map<string, unknown[]>
  /** A JSON answer's bytes, as they come. */
  bytes?: ByteQueue
  resolve: (parts: Map<string, unknown[]>) => void
  reject: (e: Error) => void
}

/** What the worker holds: nothing sent yet (a new worker), or the dataset last sent (undefined: none loaded). */
const NOTHING = Symbol('nothing sent')

export class AnalysisPool implements RouteAnalyser {
  private worker: Worker | undefined
  private sent: RisWhois | undefined | typeof NOTHING = NOTHING
  private running: Running | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private nextId = 1
  private stopped = false

  constructor(private readonly o: AnalysisPoolOptions) {}

  async report(roas: readonly ConfiguredRoa[], held: ResourceSet): Promise<BgpAnalysisEntry[]> {
    const parts = await this.enqueue('report', roas, held)
    return (parts.get('entries') ?? []) as BgpAnalysisEntry[]
  }

  async suggest(roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<BgpAnalysisSuggestion> {
    // The lists arrive in the order bgpSuggestion has them, and a Map keeps that order.
    return Object.fromEntries(await this.enqueue('suggest', roas, held, scope)) as BgpAnalysisSuggestion
  }

  reportJson(roas: readonly ConfiguredRoa[], held: ResourceSet): Promise<JsonChunks> {
    return this.streamed('report-json', roas, held)
  }

  suggestJson(roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<JsonChunks> {
    return this.streamed('suggest-json', roas, held, scope)
  }

  /** Ends the worker; a request running is failed, later ones are refused. */
  async stop(): Promise<void> {
    this.stopped = true
    const w = this.worker
    this.fail('svcd is stopping')
    await w?.terminate()
  }

  /** A JSON answer: resolved at its first bytes (an error before them rejects); the next request waits for its end. */
  private async streamed(op: 'report-json' | 'suggest-json', roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet): Promise<JsonChunks> {
    const bytes = new ByteQueue()
    this.enqueue(op, roas, held, scope, bytes).catch((e: Error) => bytes.end(e))
    await bytes.started
    return bytes
  }

  private enqueue(op: AnalysisOp, roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet, bytes?: ByteQueue): Promise<Map<string, unknown[]>> {
    const run = this.queue.then(() => this.run(op, roas, held, scope, bytes))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async run(op: AnalysisOp, roas: readonly ConfiguredRoa[], held: ResourceSet, scope?: ResourceSet, bytes?: ByteQueue): Promise<Map<string, unknown[]>> {
    if (this.stopped) throw new AppError('sys-bgp-analysis', { reason: 'svcd is stopping' })
    const w = this.start()
    const data = this.o.data()
    if (data !== this.sent) {
      w.postMessage((data ? { type: 'index', v4: data.v4.arrays(), v6: data.v6.arrays() } : { type: 'no-index' }) satisfies ToWorker)
      this.sent = data
    }
    const id = this.nextId++
    const answer = new Promise<Map<string, unknown[]>>((resolve, reject) => (this.running = { id, parts: new Map(), ...(bytes ? { bytes } : {}), resolve, reject }))
    // Failed while the ROAs are still being sent: the caller sees it once they are.
    answer.catch(() => undefined)
    for (let i = 0; i < roas.length && this.running?.id === id; i += CHUNK) {
      w.postMessage({ type: 'roas', id, roas: roas.slice(i, i + CHUNK) } satisfies ToWorker)
      await this.o.pause()
    }
    if (this.running?.id === id) w.postMessage({ type: 'run', id, op, held: held.toJSON(), ...(scope ? { scope: scope.toJSON() } : {}) } satisfies ToWorker)
    return answer
  }

  /** The worker, started when there is none. */
  private start(): Worker {
    if (this.worker) return this.worker
    const file = import.meta.url.endsWith('.ts') ? './analysis-worker.ts' : './analysis-worker.js'
    const w = new Worker(new URL(file, import.meta.url))
    w.unref()
    this.worker = w
    this.sent = NOTHING
    w.on('message', (m: FromWorker) => this.answer(m))
    w.once('error', (e) => this.crashed(w, e.message))
    w.once('exit', (code) => this.crashed(w, `the analysis worker ended (exit code ${code})`))
    return w
  }

  private answer(m: FromWorker): void {
    const r = this.running
    if (!r || r.id !== m.id) return
    if (m.type === 'part') {
      const list = r.parts.get(m.key)
      if (list) for (const x of m.items) list.push(x)
      else r.parts.set(m.key, m.items)
    } else if (m.type === 'bytes') r.bytes?.push(m.bytes)
    else if (m.type === 'done') {
      this.running = undefined
      r.bytes?.end()
      r.resolve(r.parts)
    } else this.fail(m.error)
  }

  private crashed(w: Worker, reason: string): void {
    if (this.worker !== w) return
    this.worker = undefined
    if (!this.stopped) this.o.log.warn('the BGP analysis worker failed; the next analysis starts a new one', { reason })
    this.fail(reason)
  }

  private fail(reason: string): void {
    const r = this.running
    this.running = undefined
    const e = new AppError('sys-bgp-analysis', { reason })
    r?.bytes?.end(e)
    r?.reject(e)
  }
}

/** A JSON answer's bytes between the worker and the HTTP answer; `started` settles at the first bytes or the end. */
class ByteQueue implements AsyncIterable<Uint8Array> {
  readonly started: Promise<void>
  private begin!: (e?: Error) => void
  private readonly chunks: Uint8Array[] = []
  private wake: (() => void) | undefined
  private ended = false
  private error: Error | undefined

  constructor() {
    this.started = new Promise<void>((resolve, reject) => (this.begin = (e) => (e ? reject(e) : resolve())))
    this.started.catch(() => undefined)
  }

  push(b: Uint8Array): void {
    this.chunks.push(b)
    this.begin()
    this.wake?.()
  }

  end(e?: Error): void {
    if (this.ended) return
    this.ended = true
    this.error = e
    this.begin(e)
    this.wake?.()
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      const next = this.chunks.shift()
      if (next) yield next
      else if (this.error) throw this.error
      else if (this.ended) return
      else {
        await new Promise<void>((resolve) => (this.wake = resolve))
        this.wake = undefined
      }
    }
  }
}
