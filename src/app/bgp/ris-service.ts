/**
 * The BGP announcements svcd knows (krill-reference.md §2 `bgp_riswhois_*`, §3 "BGP RIS data": in memory, refreshed
 * periodically): RIPE RIS whois dumps loaded in a worker thread (ris-worker.ts) at start and then every
 * `refreshSeconds`, and swapped in whole when a load has finished. Readers take `current()`, which never waits: a
 * download holds no lock (krill #1177), and until the first load has finished there is no data (the analysis then
 * says roa_no_announcement_info, as without any configured dump). A failed load keeps the data there was and is
 * tried again sooner. The refresh timer runs on the injected Clock.
 */
import { Worker } from 'node:worker_threads'
import type { Logger } from '../../log.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import { DEFAULT_DUMP_LIMITS, type DumpLimits } from './ris-loader.js'
import type { WorkerInput, WorkerOutput } from './ris-worker.js'
import { RouteOrigins, type RisWhois } from './route-origins.js'
import { detached } from '../shared/acting.js'

export interface RisWhoisOptions {
  /** Where the dumps are: http(s) URLs, file:// URLs or paths; '' leaves a family out. */
  v4Uri: string
  v6Uri: string
  refreshSeconds: number
  minPeers: number
  log: Logger
  clock: Clock
  limits?: DumpLimits
}

/** A dataset less than this share of the one loaded is suspect (a cut or wrong file); see refuseSwap. */
export const SHRINK_SHARE = 0.5
/** A suspect shrink is taken when this many loads in a row show it: the table did shrink. */
export const SHRINK_CONFIRMATIONS = 3

/**
 * Whether a freshly loaded dataset must not replace the one there is (issue 22 defect 11): a configured family whose
 * dump holds no route origin at all (a real RIS dump never is empty: a cut download, a placeholder file, a min_peers
 * no route reaches), or one that has less than SHRINK_SHARE of what is loaded now, until SHRINK_CONFIRMATIONS loads in
 * a row show it. `got` has undefined for a family that is not configured; `shrinks` counts the earlier refusals in a row.
 */
export function refuseSwap(had: { v4: number; v6: number } | undefined, got: { v4: number | undefined; v6: number | undefined }, shrinks: number): { reason: string; shrink: boolean } | undefined {
  for (const f of ['v4', 'v6'] as const) {
    if (got[f] === 0) return { reason: `the IP${f} dump holds no route origin seen by enough peers: not taken, so that an empty or cut dump never replaces good data`, shrink: false }
  }
  if (had === undefined || shrinks + 1 >= SHRINK_CONFIRMATIONS) return undefined
  for (const f of ['v4', 'v6'] as const) {
    const n = got[f]
    if (n !== undefined && n < had[f] * SHRINK_SHARE) {
      return { reason: `the IP${f} dump holds ${n} route origins, less than ${SHRINK_SHARE * 100}% of the ${had[f]} loaded: not taken unless ${SHRINK_CONFIRMATIONS} loads in a row show it`, shrink: true }
    }
  }
  return undefined
}

/** After a failed load, the next try comes after this (or the refresh interval when that is shorter). */
const RETRY_SECONDS = 300

export class RisWhoisService {
  private data: RisWhois | undefined
  private timer: TimerHandle | undefined
  private worker: Worker | undefined
  private loading: Promise<boolean> | undefined
  private stopped = false
  private lastError: string | undefined
  /** Loads in a row refused only for being much smaller than the data there is (refuseSwap). */
  private shrinks = 0

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
    this.o.clock.clear(this.timer)
    await this.worker?.terminate()
    await this.loading
  }

  private schedule(seconds: number): void {
    this.o.clock.clear(this.timer)
    if (this.stopped) return
    this.timer = this.o.clock.setTimeout(() => detached(() => void this.refresh()), seconds * 1000, { background: true })
  }

  private async load(): Promise<boolean> {
    const o = this.o
    const started = o.clock.now()
    const input: WorkerInput = { v4: o.v4Uri, v6: o.v6Uri, minPeers: o.minPeers, limits: o.limits ?? DEFAULT_DUMP_LIMITS }
    const out = await this.inWorker(input)
    if (this.stopped) return false
    if (!out.ok) {
      this.lastError = out.error
      o.log.warn('RIS whois dumps not loaded; the BGP analysis keeps the data it had', { reason: out.error, had: this.data?.loaded ?? null })
      return false
    }
    const refused = refuseSwap(this.data ? { v4: this.data.v4.size, v6: this.data.v6.size } : undefined, { v4: out.v4?.size, v6: out.v6?.size }, this.shrinks)
    if (refused) {
      this.shrinks = refused.shrink ? this.shrinks + 1 : 0
      this.lastError = refused.reason
      o.log.warn('RIS whois dumps not taken; the BGP analysis keeps the data it had', { reason: refused.reason, had: this.data?.loaded ?? null })
      return false
    }
    if (this.shrinks && this.data) o.log.warn('RIS whois dumps much smaller than before, taken after repeated loads', { v4: out.v4?.size ?? 0, v6: out.v6?.size ?? 0 })
    this.shrinks = 0
    this.lastError = undefined
    this.data = { v4: out.v4 ? new RouteOrigins(out.v4) : RouteOrigins.empty(4), v6: out.v6 ? new RouteOrigins(out.v6) : RouteOrigins.empty(6), loaded: o.clock.date().toISOString() }
    const counts = Object.fromEntries(Object.entries(out.counts).map(([f, c]) => [f, { lines: c.lines, kept: c.kept, skipped: c.skipped, malformed: c.malformed, ...(c.firstMalformed ? { first_malformed: c.firstMalformed } : {}) }]))
    o.log.info('RIS whois dumps loaded', { v4: this.data.v4.size, v6: this.data.v6.size, ms: o.clock.now() - started, counts })
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
