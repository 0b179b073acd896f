/**
 * The BGP announcements svcd knows (krill-reference.md §2 `bgp_riswhois_*`, §3 "BGP RIS data": in memory, refreshed
 * periodically): RIPE RIS whois dumps loaded in a worker thread (ris-worker.ts) at start and then every
 * `refreshSeconds`, and swapped in whole when a load has finished. Readers take `current()`, which never waits: a
 * download holds no lock (krill #1177), and until the first load has finished there is no data (the analysis then
 * says roa_no_announcement_info, as without any configured dump). A failed load keeps the data there was and is
 * tried again sooner.
 */
import { Worker } from 'node:worker_threads'
import type { Logger } from '../../log.js'
import { DEFAULT_DUMP_LIMITS, type DumpLimits } from './ris-loader.js'
import type { WorkerInput, WorkerOutput } from './ris-worker.js'
import { RouteOrigins, type RisWhois } from './route-origins.js'

export interface RisWhoisOptions {
  /** Where the dumps are: http(s) URLs, file:// URLs or paths; '' leaves a family out. */
  v4Uri: string
  v6Uri: string
  refreshSeconds: number
  minPeers: number
  log: Logger
  now: () => Date
  limits?: DumpLimits
}

/** After a failed load, the next try comes after this (or the refresh interval when that is shorter). */
const RETRY_SECONDS = 300

export class RisWhoisService {
  private data: RisWhois | undefined
  private timer: NodeJS.Timeout | undefined
  private worker: Worker | undefined
  private loading: Promise<boolean> | undefined
  private stopped = false
  private lastError: string | undefined

  constructor(private readonly o: RisWhoisOptions) {}

  /** The announcements loaded last, or undefined before the first load finished. */
  current(): RisWhois | undefined {
    return this.data
  }

  /** The last load's problem, if it failed. */
  problem(): string | undefined {
    return this.lastError
  }

  /** Load now, then every refreshSeconds. */
  start(): void {
    void this.refresh()
  }

  /** Load the dumps now (a load already running is joined); true when new data was swapped in. */
  refresh(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false)
    this.loading ??= this.load().finally(() => {
      this.loading = undefined
      this.schedule(this.lastError ? Math.min(RETRY_SECONDS, this.o.refreshSeconds) : this.o.refreshSeconds)
    })
    return this.loading
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.worker?.terminate()
    await this.loading
  }

  private schedule(seconds: number): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(() => void this.refresh(), seconds * 1000)
    this.timer.unref()
  }

  private async load(): Promise<boolean> {
    const o = this.o
    const started = Date.now()
    const input: WorkerInput = { v4: o.v4Uri, v6: o.v6Uri, minPeers: o.minPeers, limits: o.limits ?? DEFAULT_DUMP_LIMITS }
    const out = await this.inWorker(input)
    if (this.stopped) return false
    if (!out.ok) {
      this.lastError = out.error
      o.log.warn('RIS whois dumps not loaded; the BGP analysis keeps the data it had', { reason: out.error, had: this.data?.loaded ?? null })
      return false
    }
    this.lastError = undefined
    this.data = { v4: out.v4 ? new RouteOrigins(out.v4) : RouteOrigins.empty(4), v6: out.v6 ? new RouteOrigins(out.v6) : RouteOrigins.empty(6), loaded: o.now().toISOString() }
    const counts = Object.fromEntries(Object.entries(out.counts).map(([f, c]) => [f, { lines: c.lines, kept: c.kept, skipped: c.skipped, malformed: c.malformed, ...(c.firstMalformed ? { first_malformed: c.firstMalformed } : {}) }]))
    o.log.info('RIS whois dumps loaded', { v4: this.data.v4.size, v6: this.data.v6.size, ms: Date.now() - started, counts })
    return true
  }

  private inWorker(input: WorkerInput): Promise<WorkerOutput> {
    const file = import.meta.url.endsWith('.ts') ? './ris-worker.ts' : './ris-worker.js'
    return new Promise((resolve) => {
      let settled = false
      const done = (out: WorkerOutput) => {
        if (settled) return
        settled = true
        this.worker = undefined
        // A failed family may leave the other's download running: the worker goes once it has answered.
        void worker.terminate()
        resolve(out)
      }
      const worker = new Worker(new URL(file, import.meta.url), { workerData: input })
      this.worker = worker
      worker.unref()
      worker.once('message', (m: WorkerOutput) => done(m))
      worker.once('error', (e) => done({ ok: false, error: `the loader failed: ${e.message}` }))
      worker.once('exit', (code) => done({ ok: false, error: this.stopped ? 'stopped' : `the loader ended (exit code ${code}) without an answer` }))
    })
  }
}
