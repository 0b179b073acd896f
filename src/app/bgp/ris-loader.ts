/**
 * Reading one RIS whois dump (route-origins.ts has the format) from an http(s) URL, a file:// URL or a file path,
 * gzip-compressed (detected by its magic bytes) or plain, into a route origin index. Streams: the dump is
 * decompressed and parsed chunk by chunk, never held whole. Runs in the loader's worker thread (ris-worker.ts), so
 * neither the download nor the parse ever holds up svcd's event loop (krill #1177).
 */
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { fileURLToPath } from 'node:url'
import { createGunzip } from 'node:zlib'
import type { IpFamily } from '../../resources/ip.js'
import { RouteOriginBuilder, type ParseCounts, type RouteOriginArrays } from './route-origins.js'

export interface DumpLimits {
  /** The whole exchange, download and parse, in milliseconds. */
  timeoutMs: number
  /** Bytes after decompression, at most (a bound on a runaway or hostile source). */
  maxBytes: number
}

/**
 * A full-table RIS whois dump holds about a million IPv4 route origins at some 25 bytes a line (about 30 MB unpacked,
 * the IPv6 one less): 256 MiB leaves room for years of growth, and stops a gzip bomb or a runaway source long before
 * it costs minutes of CPU (issue 22 defect 11: it was 2 GiB). `bgp_riswhois_max_bytes` sets it.
 */
export const DEFAULT_MAX_DUMP_BYTES = 256 * 1024 ** 2

export const DEFAULT_DUMP_LIMITS: DumpLimits = { timeoutMs: 10 * 60_000, maxBytes: DEFAULT_MAX_DUMP_BYTES }

/** Load and index one dump; throws with the source named when it cannot be read. */
export async function loadDump(source: string, family: IpFamily, minPeers: number, limits: DumpLimits = DEFAULT_DUMP_LIMITS): Promise<{ arrays: RouteOriginArrays; counts: ParseCounts }> {
  const signal = AbortSignal.timeout(limits.timeoutMs)
  const builder = new RouteOriginBuilder(family, minPeers)
  try {
    let rest = Buffer.alloc(0)
    let total = 0
    for await (const chunk of decompressed(await open(source, signal))) {
      total += chunk.length
      // Checked per decompressed chunk (zlib hands out 16 KiB at a time), before more is inflated: it stops here.
      if (total > limits.maxBytes) throw new Error(`larger than ${limits.maxBytes} bytes after decompression`)
      const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk
      let start = 0
      for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
        builder.addLine(buf.toString('latin1', start, nl))
        start = nl + 1
      }
      rest = Buffer.from(buf.subarray(start))
      if (rest.length > 64 * 1024) throw new Error('a line longer than 64 KiB: not a RIS whois dump')
    }
    if (rest.length) builder.addLine(rest.toString('latin1'))
    // An error page or another file in its place: refused, so that the data there was stays (ris-service.ts).
    const c = builder.counts
    if (c.kept === 0 && c.malformed > 0) throw new Error(`no route origins in it: ${c.malformed} lines are not '<asn> <prefix> <peers>' (the first: '${c.firstMalformed}')`)
  } catch (e) {
    const cause = (e as Error).cause instanceof Error ? `: ${((e as Error).cause as Error).message}` : ''
    const why = signal.aborted ? `no answer within ${limits.timeoutMs / 1000} s` : `${(e as Error).message}${cause}`
    throw new Error(`cannot load the IPv${family} RIS whois dump from ${source}: ${why}`, { cause: e })
  }
  return { arrays: builder.finish(), counts: builder.counts }
}

/** The raw bytes of the source. */
async function open(source: string, signal: AbortSignal): Promise<AsyncIterable<Buffer>> {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { signal, redirect: 'follow' })
    if (!res.ok || !res.body) {
      await res.body?.cancel()
      throw new Error(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`)
    }
    return Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>, { signal })
  }
  const path = /^file:\/\//i.test(source) ? fileURLToPath(source) : source
  return createReadStream(path, { signal })
}

/** The bytes, gunzipped when they start with the gzip magic (1f 8b). */
async function* decompressed(raw: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const it = raw[Symbol.asyncIterator]()
  let first = Buffer.alloc(0)
  let done = false
  // The first two bytes decide (a first chunk of one byte is rare but possible).
  while (first.length < 2 && !done) {
    const r = await it.next()
    if (r.done) done = true
    else first = Buffer.concat([first, bytes(r.value)])
  }
  async function* all(): AsyncIterable<Buffer> {
    if (first.length) yield first
    if (done) return
    for (let r = await it.next(); !r.done; r = await it.next()) yield bytes(r.value)
  }
  try {
    if (first[0] === 0x1f && first[1] === 0x8b) {
      const gunzip = createGunzip()
      const src = Readable.from(all())
      src.once('error', (e) => gunzip.destroy(e))
      try {
        for await (const c of src.pipe(gunzip)) yield c as Buffer
      } finally {
        // Stopped early (too large, a bad line, a timeout): no more inflating, and the source is let go.
        gunzip.destroy()
        src.destroy()
      }
    } else yield* all()
  } finally {
    // Close the raw source (file or HTTP body) too, without waiting on a read that may still be pending.
    it.return?.().catch(() => undefined)
  }
}

/** A chunk as a Buffer, without a copy. */
function bytes(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v
  const u = v as Uint8Array
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength)
}
