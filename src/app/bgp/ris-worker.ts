/**
 * The worker thread that loads the RIS whois dumps (ris-loader.ts) for bgp-service.ts: it loads both families,
 * sends back the indexes' arrays (in SharedArrayBuffers, not copied) or the first error, and ends. One worker per refresh.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { loadDump, type DumpLimits } from './ris-loader.js'
import type { ParseCounts, RouteOriginArrays } from './route-origins.js'

export interface WorkerInput {
  v4: string
  v6: string
  minPeers: number
  limits: DumpLimits
}

export type WorkerOutput =
  | { ok: true; v4: RouteOriginArrays | undefined; v6: RouteOriginArrays | undefined; counts: { v4?: ParseCounts; v6?: ParseCounts } }
  | { ok: false; error: string }

async function main(input: WorkerInput): Promise<void> {
  let out: WorkerOutput
  try {
    // Both at once: two downloads in flight, and the parse of one overlaps the download of the other.
    const [v4, v6] = await Promise.all([
      input.v4 ? loadDump(input.v4, 4, input.minPeers, input.limits) : undefined,
      input.v6 ? loadDump(input.v6, 6, input.minPeers, input.limits) : undefined,
    ])
    out = { ok: true, v4: v4?.arrays, v6: v6?.arrays, counts: { ...(v4 ? { v4: v4.counts } : {}), ...(v6 ? { v6: v6.counts } : {}) } }
  } catch (e) {
    out = { ok: false, error: (e as Error).message }
  }
  // In SharedArrayBuffers: the main thread and the analysis worker (analysis-pool.ts) then hold the same bytes.
  if (out.ok) out = { ...out, v4: out.v4 && shared(out.v4), v6: out.v6 && shared(out.v6) }
  parentPort!.postMessage(out)
}

/** The arrays copied into SharedArrayBuffers (once per load: a few MB). */
function shared(a: RouteOriginArrays): RouteOriginArrays {
  const copy = <T extends Uint32Array | Uint8Array>(x: T, make: (b: SharedArrayBuffer) => T): T => {
    const out = make(new SharedArrayBuffer(x.byteLength))
    out.set(x)
    return out
  }
  return { ...a, words: copy(a.words, (b) => new Uint32Array(b)), lens: copy(a.lens, (b) => new Uint8Array(b)), asns: copy(a.asns, (b) => new Uint32Array(b)) }
}

void main(workerData as WorkerInput)
