/**
 * The relying-party view's RRDP client (RFC 8182, issue 26 §1): the notification over HTTPS, then the deltas from the
 * serial kept last time when the session is the same and every delta is listed, else the snapshot; each file's hash
 * checked against the notification (RFC 8182 §3.5.1.3) and decoded by protocol/rrdp.ts. The mirror (uri → bytes) per
 * notification is kept in memory between fetches, bounded by maxBytes. Never throws: a failure is a FetchedRepository
 * with a one-line `error`. Constructed by the composition root (compose-liveness.ts).
 */
import { sha256Hex } from '../../crypto/digest.js'
import type { FetchedRepository } from '../../liveness/model.js'
import type { Logger } from '../../log.js'
import { decodeDelta, decodeNotification, decodeSnapshot, type Notification } from '../../protocol/rrdp.js'
import type { Clock } from '../../util/clock.js'
import { GetError, httpsGet } from './http-get.js'

export interface RrdpFetcherOptions {
  /** The deadline of each HTTPS GET. */
  timeoutMs: number
  /** The largest file read, and the largest mirror kept, in bytes. */
  maxBytes: number
  clock: Clock
  log?: Logger
}

interface Mirror {
  session: string
  serial: number
  files: Map<string, Uint8Array>
}

/** What the fetcher read since it was made (for tests and the debug log). */
export interface RrdpStats {
  requests: number
  bytes: number
  snapshots: number
  deltas: number
}

export class RrdpFetcher {
  private readonly mirrors = new Map<string, Mirror>()
  readonly stats: RrdpStats = { requests: 0, bytes: 0, snapshots: 0, deltas: 0 }

  constructor(private readonly o: RrdpFetcherOptions) {}

  /** Fetch the repository behind the notification URI `source`. */
  async fetch(source: string): Promise<FetchedRepository> {
    try {
      const n = decodeNotification(await this.get(source, source), { maxBytes: this.o.maxBytes })
      if (typeof n.serial !== 'number') throw new GetError(`serial ${n.serial} is too large`)
      const m = (await this.fromDeltas(source, n)) ?? (await this.fromSnapshot(source, n))
      this.mirrors.set(source, m)
      return { transport: 'rrdp', source, at: this.o.clock.now(), files: new Map(m.files), session: m.session, serial: m.serial }
    } catch (e) {
      const error = e instanceof Error ? e.message.split('\n')[0] : String(e)
      this.o.log?.debug('liveness: RRDP fetch failed', { source, error })
      return { transport: 'rrdp', source, at: this.o.clock.now(), error, files: new Map() }
    }
  }

  /** Forget the mirrors of notification URIs not in `sources`. */
  retain(sources: ReadonlySet<string>): void {
    for (const source of [...this.mirrors.keys()]) if (!sources.has(source)) this.mirrors.delete(source)
  }

  /** The mirror brought up to date with the deltas, or undefined when they cannot be used. */
  private async fromDeltas(source: string, n: Notification): Promise<Mirror | undefined> {
    const kept = this.mirrors.get(source)
    if (!kept || kept.session !== n.sessionId || kept.serial > (n.serial as number)) return undefined
    if (kept.serial === n.serial) return kept
    const wanted = new Map(n.deltas.map((d) => [d.serial, d]))
    for (let s = kept.serial + 1; s <= (n.serial as number); s++) if (!wanted.has(s)) return undefined
    const files = new Map(kept.files)
    for (let s = kept.serial + 1; s <= (n.serial as number); s++) {
      const ref = wanted.get(s)!
      const bytes = await this.get(ref.uri, source)
      if (sha256Hex(bytes) !== ref.hash) throw new GetError(`hash mismatch for delta ${s}`)
      const d = decodeDelta(bytes, { maxBytes: this.o.maxBytes })
      if (d.sessionId !== n.sessionId || d.serial !== s) throw new GetError(`delta ${s} is of session ${d.sessionId} serial ${d.serial}`)
      for (const e of d.elements) {
        // RFC 8182 §3.5.3.3: a withdraw, or a publish that replaces, names the hash of the object it replaces.
        const old = files.get(e.uri)
        if (e.hash !== undefined && (old === undefined || sha256Hex(old) !== e.hash)) {
          this.o.log?.debug('liveness: an RRDP delta does not apply, reading the snapshot', { source, serial: s, uri: e.uri })
          return undefined
        }
        if (e.type === 'withdraw') files.delete(e.uri)
        else files.set(e.uri, e.content)
      }
      this.stats.deltas++
    }
    this.checkSize(files)
    return { session: n.sessionId, serial: n.serial as number, files }
  }

  private async fromSnapshot(source: string, n: Notification): Promise<Mirror> {
    const bytes = await this.get(n.snapshot.uri, source)
    if (sha256Hex(bytes) !== n.snapshot.hash) throw new GetError('hash mismatch for snapshot')
    const s = decodeSnapshot(bytes, { maxBytes: this.o.maxBytes })
    if (s.sessionId !== n.sessionId || s.serial !== n.serial) throw new GetError(`the snapshot is of session ${s.sessionId} serial ${s.serial}, the notification of ${n.sessionId} serial ${n.serial}`)
    const files = new Map(s.publishes.map((p) => [p.uri, p.content]))
    this.checkSize(files)
    this.stats.snapshots++
    return { session: s.sessionId, serial: s.serial, files }
  }

  /** GET a file of the repository: on the notification's origin only (RFC 8182 §3.3: no other scheme or host). */
  private async get(uri: string, source: string): Promise<Uint8Array> {
    if (uri !== source && !sameOrigin(uri, source)) throw new GetError(`${uri.slice(0, 100)} is not on the notification's origin`)
    const body = await httpsGet(uri, { timeoutMs: this.o.timeoutMs, maxBytes: this.o.maxBytes, clock: this.o.clock })
    this.stats.requests++
    this.stats.bytes += body.length
    return body
  }

  private checkSize(files: Map<string, Uint8Array>): void {
    let total = 0
    for (const b of files.values()) total += b.length
    if (total > this.o.maxBytes) throw new GetError(`the repository holds ${total} bytes, more than ${this.o.maxBytes}`)
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}
