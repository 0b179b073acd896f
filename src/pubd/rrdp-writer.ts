/**
 * RRDP output of the publication server (RFC 8182; design.md "Publication server"): each cycle turns the changes
 * accepted since the last serial into one delta plus a new snapshot under <dir>/<session>/<serial>/<random>/, records
 * the serial in the database, and then replaces notification.xml by an atomic rename, so a reader never sees a
 * notification that points at a missing file. Old files are removed by the retention rules of krill-reference.md §3.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { encodeDeltaChunks, encodeNotification, encodeSnapshotChunks, type DeltaElement } from '../protocol/rrdp.js'
import type { PubdReader, PubdStore, PubdView, RrdpDeltaInfo, RrdpState } from '../store/pubd-store.js'

export interface RrdpRetention {
  minNr: number
  minSeconds: number
  maxNr: number
  maxSeconds: number
}

export interface RrdpWriterOptions {
  /** <data_dir>/repo/rrdp */
  dir: string
  /** https://…/rrdp/ (ends with '/') */
  baseUri: string
  store: PubdStore
  reader: PubdReader
  retention: RrdpRetention
  now: () => Date
  /** Seconds an unreferenced file stays on disk, so readers of the previous notification can finish. */
  graceSeconds?: number
}

export interface CycleResult {
  serial: number
  elements: number
  snapshotBytes: number
}

export class RrdpWriter {
  private readonly o: RrdpWriterOptions

  constructor(options: RrdpWriterOptions) {
    this.o = options
  }

  /** At start-up: a first session if there is none, then the notification rewritten from the database. */
  async init(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true })
    const state = this.o.store.rrdpState()
    if (!state || !(await this.filesPresent(state))) return void (await this.resetSession())
    await this.writeNotification()
    await this.cleanup()
  }

  /** One cycle: undefined when nothing was pending. Never run two at once (the PubServer serialises them). */
  async cycle(): Promise<CycleResult | undefined> {
    const result = await this.o.reader.read(async (view) => {
      const state = view.state()
      if (!state) throw new Error('RRDP is not initialised')
      const { maxSeq, before } = view.pending()
      if (maxSeq === 0) return undefined
      const elements = deltaElements(view, before)
      if (elements.length === 0) return { state, maxSeq, serial: state.serial, snapshot: undefined, delta: undefined, elements: 0 }
      const serial = state.serial + 1
      const rel = `${state.session}/${serial}/${randomBytes(8).toString('hex')}`
      const delta = await this.writeFile(join(rel, 'delta.xml'), encodeDeltaChunks({ sessionId: state.session, serial, elements }))
      const snapshot = await this.writeFile(join(rel, 'snapshot.xml'), encodeSnapshotChunks({ sessionId: state.session, serial, publishes: view.all() }))
      return { state, maxSeq, serial, snapshot: { rel, ...snapshot }, delta: { rel, ...delta }, elements: elements.length }
    })
    if (!result) return undefined
    const now = this.o.now()
    if (!result.snapshot || !result.delta) {
      this.o.store.recordSerial(result.state, undefined, result.maxSeq, [])
      return { serial: result.serial, elements: 0, snapshotBytes: 0 }
    }
    const state: RrdpState = { session: result.state.session, serial: result.serial, snapshotPath: join(result.snapshot.rel, 'snapshot.xml'), snapshotHash: result.snapshot.hash, snapshotSize: result.snapshot.size, updated: now.toISOString() }
    const delta: RrdpDeltaInfo = { serial: result.serial, path: join(result.delta.rel, 'delta.xml'), hash: result.delta.hash, size: result.delta.size, time: now.toISOString() }
    const all = [delta, ...this.o.store.rrdpDeltas()]
    const keep = retainDeltas(all, state.snapshotSize, this.o.retention, now)
    const drop = all.filter((d) => !keep.includes(d)).map((d) => d.serial)
    this.o.store.recordSerial(state, delta, result.maxSeq, drop)
    await this.writeNotification()
    await this.cleanup()
    return { serial: result.serial, elements: result.elements, snapshotBytes: result.snapshot.size }
  }

  /** A new session with a random UUID and serial 1: one snapshot of everything, no deltas (RFC 8182 §3.3.2). */
  async resetSession(): Promise<void> {
    const session = randomUUID()
    await this.o.reader.read(async (view) => {
      const consumed = view.pending().maxSeq
      const rel = `${session}/1/${randomBytes(8).toString('hex')}`
      const snapshot = await this.writeFile(join(rel, 'snapshot.xml'), encodeSnapshotChunks({ sessionId: session, serial: 1, publishes: view.all() }))
      const state: RrdpState = { session, serial: 1, snapshotPath: join(rel, 'snapshot.xml'), snapshotHash: snapshot.hash, snapshotSize: snapshot.size, updated: this.o.now().toISOString() }
      this.o.store.resetSession(state, consumed)
    })
    await this.writeNotification()
    await this.cleanup(0)
  }

  /** The notification URI (for repository responses and TALs' neighbours). */
  notificationUri(): string {
    return `${this.o.baseUri}notification.xml`
  }

  /** Write notification.xml from the database state: temp file, fsync, rename, fsync the directory. */
  private async writeNotification(): Promise<void> {
    const state = this.o.store.rrdpState()!
    const xml = encodeNotification({
      sessionId: state.session,
      serial: state.serial,
      snapshot: { uri: this.uri(state.snapshotPath), hash: state.snapshotHash },
      deltas: this.o.store.rrdpDeltas().map((d) => ({ serial: d.serial, uri: this.uri(d.path), hash: d.hash })),
    })
    const tmp = join(this.o.dir, 'notification.xml.tmp')
    await writeDurably(tmp, [Buffer.from(xml, 'utf8')])
    await rename(tmp, join(this.o.dir, 'notification.xml'))
    await fsyncDir(this.o.dir)
  }

  private uri(rel: string): string {
    return this.o.baseUri + rel.split('\\').join('/')
  }

  private async writeFile(rel: string, chunks: Iterable<Buffer>): Promise<{ hash: string; size: number }> {
    const path = join(this.o.dir, rel)
    await mkdir(join(path, '..'), { recursive: true })
    const hash = createHash('sha256')
    let size = 0
    const tee = (function* () {
      for (const c of chunks) {
        hash.update(c)
        size += c.length
        yield c
      }
    })()
    await writeDurably(path, tee)
    return { hash: hash.digest('hex'), size }
  }

  private async filesPresent(state: RrdpState): Promise<boolean> {
    const paths = [state.snapshotPath, ...this.o.store.rrdpDeltas().map((d) => d.path)]
    for (const p of paths) if (!(await stat(join(this.o.dir, p)).catch(() => undefined))) return false
    return true
  }

  /**
   * Remove what the notification no longer references, once older than the grace period: whole session
   * directories of old sessions, and serial directories that hold neither the snapshot nor a kept delta.
   */
  private async cleanup(graceSeconds = this.o.graceSeconds ?? 120): Promise<void> {
    const state = this.o.store.rrdpState()!
    const keep = new Set([state.snapshotPath, ...this.o.store.rrdpDeltas().map((d) => d.path)].map((p) => p.split('/').slice(0, 3).join('/')))
    // File ages are measured on the real clock, like the mtimes they are compared with.
    const cutoff = Date.now() - graceSeconds * 1000
    for (const session of await readdir(this.o.dir).catch(() => [] as string[])) {
      if (session === 'notification.xml' || session.endsWith('.tmp')) continue
      for (const serial of await readdir(join(this.o.dir, session)).catch(() => [] as string[])) {
        for (const random of await readdir(join(this.o.dir, session, serial)).catch(() => [] as string[])) {
          const rel = `${session}/${serial}/${random}`
          if (keep.has(rel)) continue
          const st = await stat(join(this.o.dir, rel)).catch(() => undefined)
          if (st && st.mtimeMs < cutoff) await rm(join(this.o.dir, rel), { recursive: true, force: true })
        }
        await rmdirIfEmpty(join(this.o.dir, session, serial))
      }
      await rmdirIfEmpty(join(this.o.dir, session))
    }
  }
}

/** The net change per URI since the last serial: publish (with the old hash when replacing) or withdraw. */
function deltaElements(view: PubdView, before: Map<string, string | null>): DeltaElement[] {
  const out: DeltaElement[] = []
  for (const [uri, previous] of before) {
    const now = view.object(uri)
    if (now && now.hash === previous) continue
    if (now) out.push(previous ? { type: 'publish', uri, hash: previous, content: now.content } : { type: 'publish', uri, content: now.content })
    else if (previous) out.push({ type: 'withdraw', uri, hash: previous })
  }
  return out
}

/**
 * Delta retention (krill-reference.md §3): keep while fewer than minNr or younger than minSeconds; beyond that
 * stop at maxNr or at the first older than maxSeconds; then drop the oldest until the deltas together are not
 * larger than the snapshot. `deltas` newest first.
 */
export function retainDeltas(deltas: readonly RrdpDeltaInfo[], snapshotSize: number, r: RrdpRetention, now: Date): RrdpDeltaInfo[] {
  const keep: RrdpDeltaInfo[] = []
  for (const d of deltas) {
    const age = (now.getTime() - Date.parse(d.time)) / 1000
    if (keep.length < r.minNr || age < r.minSeconds) keep.push(d)
    else if (keep.length >= r.maxNr || age > r.maxSeconds) break
    else keep.push(d)
  }
  let total = keep.reduce((n, d) => n + d.size, 0)
  while (keep.length && total > snapshotSize) total -= keep.pop()!.size
  return keep
}

async function writeDurably(path: string, chunks: Iterable<Buffer>): Promise<void> {
  const fh = await open(path, 'w', 0o644)
  try {
    let pending: Buffer[] = []
    let size = 0
    for (const c of chunks) {
      pending.push(c)
      size += c.length
      if (size >= 4 * 1024 * 1024) {
        await fh.write(Buffer.concat(pending, size))
        pending = []
        size = 0
      }
    }
    if (size) await fh.write(Buffer.concat(pending, size))
    await fh.sync()
  } finally {
    await fh.close()
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

async function rmdirIfEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => undefined)
  if (entries && entries.length === 0) await rm(dir, { recursive: true, force: true })
}
