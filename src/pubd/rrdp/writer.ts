/**
 * The I/O half of the RRDP module (RFC 8182; design.md "Publication server", §6, §7), and the module's one entry for
 * the publication service: each cycle turns the changes accepted since the last serial into one delta plus a new
 * snapshot under <dir>/<session>/<serial>/<random>/, records the serial in the database, and then replaces
 * notification.xml by an atomic rename, so a reader never sees a notification that points at a missing file; an
 * instance that does not lead copies the leader's serial from the database instead (`mirror`). What a serial, a
 * session, a notification and a restore are is decided by the pure model beside it (model.ts, retention.ts); the
 * files on disk are tracked and removed by files.ts, served by serve.ts. A new snapshot is assembled from the
 * previous one (snapshot-copy.ts); the layout that makes this possible lives in memory, so after a start the first
 * snapshot is built whole.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { encodeDeltaChunks, encodeNotification, encodeSnapshotChunks } from '../../protocol/rrdp.js'
import type { PubdReader, PubdView } from '../../store/pubd-store.js'
import type { PublicationStore, RrdpFileStore } from '../../store/interfaces.js'
import type { Clock, Random } from '../../util/clock.js'
import { fsyncDir, writeDurably, writeGzip } from '../durable-writer.js'
import { RrdpFiles, servedOnDisk } from './files.js'
import { deltaElements, firstSerial, floorCounts, nextSerial, notificationOf, referencedFiles, restoreReason, serialDir, servedKey, sessionId, SERIAL_DIR_RANDOM_BYTES, type RrdpState } from './model.js'
import type { RrdpRetention } from './retention.js'
import { openRrdpFile, type RrdpFile } from './serve.js'
import { copySnapshot } from './snapshot-copy.js'
import { addElement, emptyLayout, type SnapshotLayout } from './snapshot-layout.js'

export interface RrdpWriterOptions {
  /** <data_dir>/repo/rrdp, and https://…/rrdp/ (ends with '/') */
  dir: string
  baseUri: string
  store: PublicationStore
  reader: PubdReader
  retention: RrdpRetention
  /** The service's time: recorded with serials and deltas, and the delta retention's `now`. */
  now: () => Date
  /** The files' ages for cleanup (like the mtimes of files found on disk after a start). */
  clock: Pick<Clock, 'now'>
  /** Session ids and the random part of file names. */
  random: Pick<Random, 'bytes'>
  /** Seconds an unreferenced file stays on disk, so readers of the previous notification can finish. */
  graceSeconds?: number
  /** Superseded snapshots kept within the grace period, together at most this many bytes (newest first). */
  supersededSnapshotBytes?: number
  /** The safety floor: why a serial from `before` to `after` objects must be held back, or undefined. */
  hold?: (before: number, after: number) => string | undefined
  /**
   * Several instances on one database (design.md §7): the leader records each serial together with its files in one
   * transaction fenced by its epoch, and the others copy the files from the database (`mirror`) through the reader.
   */
  replicate?: {
    transaction: <T>(fn: () => T) => T
    fence: () => void
    files: RrdpFileStore
    readerFiles: RrdpFileStore
  }
}

export interface CycleResult {
  serial: number
  elements: number
  snapshotBytes: number
  /** Whether the snapshot was assembled from the previous one (false: every object read and encoded). */
  incremental: boolean
  /** Set when the safety floor held the serial back (nothing written, the changes stay pending): why. */
  held?: string
  consumed: readonly number[] // the pending changes (seqs) this serial consumed; none when held
}

/** Default budget of superseded snapshots within the grace period: about four of 100,000 objects, all of small ones. */
const SUPERSEDED_SNAPSHOT_BYTES = 1024 * 1024 * 1024

/**
 * zlib level of the `.gz` copies written beside every RRDP file (the publication-server BCP: serve RRDP compressed to
 * clients that accept it). Level 1 is the fastest: base64 inside XML compresses by about a quarter at any level.
 */
const GZIP_LEVEL = 1

/**
 * A larger snapshot gets its gzip copy in the background once its notification is out: compressing costs more than
 * writing (at 100,000 objects, 268 MiB, seconds against the write's fraction of one: issue 28, where this was the
 * 12 s "fsync"), and until the copy is there the plain file is served (serve.ts), so neither a client nor the next
 * serial waits for it. A smaller one's copy is written before, as the delta's, so that every file the notification
 * names has its copy when it appears.
 */
export const GZIP_BEFORE_NOTIFICATION_BYTES = 8 * 1024 * 1024

const gzipAsync = promisify(gzip)

export class RrdpWriter {
  private readonly o: RrdpWriterOptions
  /** The layout of the current snapshot file (state.snapshotPath), once this process has written one. */
  private layout: SnapshotLayout | undefined
  /** The directory of files this cycle wrote and has not yet recorded in the database. */
  private partial: string | undefined
  /** The session and serial notification.xml was last written for. */
  private notified: string | undefined
  /** The files on disk, for cleanup without walking the directory at every cycle. */
  private readonly files: RrdpFiles
  /** The gzip copies of larger snapshots, written one after the other in the background (gzipLater). */
  private gzipping: Promise<void> = Promise.resolve()
  /** The snapshot whose copy waits for the one being written; a newer serial's replaces it. */
  private gzipNext: string | undefined

  constructor(options: RrdpWriterOptions) {
    this.o = options
    this.files = new RrdpFiles(options.dir, options.clock)
  }

  /**
   * At start-up: a first session if there is none, then the notification rewritten from the database. A new session
   * instead when the database is behind what was served (restored from a backup: the notification on disk names
   * another session or a later serial, or a serial directory later than the next one exists), so that no serial is
   * published twice with other content (RFC 9697; the publication-server BCP). Returns why a session was started.
   */
  async init(): Promise<string | undefined> {
    await mkdir(this.o.dir, { recursive: true })
    const state = this.o.store.rrdpState()
    const why = !state ? 'no session yet' : (await this.restored(state)) ?? ((await this.filesPresent(state)) ? undefined : 'files of the current serial are missing')
    if (why) {
      await this.resetSession()
      return why
    }
    await this.writeNotification()
    await this.cleanup()
    return undefined
  }

  /** Why the files on disk show more than the database holds (restored from a backup), or undefined (model.ts). */
  private async restored(state: RrdpState): Promise<string | undefined> {
    const disk = await servedOnDisk(this.o.dir, state.session)
    return restoreReason(state, disk.served, disk.serialDirs)
  }


  /**
   * One cycle: undefined when nothing was pending. Never run two at once (the PublicationService serialises them). A cycle
   * that fails (a full disk, an I/O error) removes the files it wrote and leaves the changes pending, so the next one
   * (the PublicationService retries) writes them; a notification that could not be replaced is written by the next cycle.
   */
  async cycle(): Promise<CycleResult | undefined> {
    try {
      return await this.cycleOnce()
    } catch (e) {
      const partial = this.partial
      this.partial = undefined
      if (partial) {
        await rm(join(this.o.dir, partial), { recursive: true, force: true }).catch(() => undefined)
        this.files.removedDir(partial)
      }
      throw e
    }
  }

  private async cycleOnce(): Promise<CycleResult | undefined> {
    const result = await this.o.reader.read(async (view) => {
      const state = view.state()
      if (!state) throw new Error('RRDP is not initialised')
      const { seqs, before } = view.pending()
      if (seqs.length === 0) return undefined
      const elements = deltaElements(view, before)
      if (elements.length === 0) return { state, seqs, serial: state.serial, snapshot: undefined, delta: undefined, elements: 0 }
      const counts = floorCounts(view.count(), elements)
      const held = this.o.hold?.(counts.before, counts.after)
      if (held) return { state, seqs, serial: state.serial, snapshot: undefined, delta: undefined, elements: 0, held }
      const serial = state.serial + 1
      const rel = serialDir(state.session, serial, this.o.random.bytes(SERIAL_DIR_RANDOM_BYTES))
      this.partial = rel
      const delta = await this.writeFile(join(rel, 'delta.xml'), encodeDeltaChunks({ sessionId: state.session, serial, elements }))
      const path = join(rel, 'snapshot.xml')
      const layout = emptyLayout(path, (this.layout?.count ?? 0) + 1024)
      const previous = await this.previousSnapshot(state)
      const head = { sessionId: state.session, serial }
      const snapshot = previous ? await this.copied(path, previous, head, before, view, layout) : await this.writeFile(path, this.snapshotWhole(head, view, layout))
      layout.size = snapshot.size
      return { state, seqs, serial, snapshot: { rel, ...snapshot }, delta: { rel, ...delta }, elements: elements.length, layout, incremental: previous !== undefined }
    })
    if (!result) return void (await this.repairNotification())
    const gzipLater = (result.snapshot?.size ?? 0) > GZIP_BEFORE_NOTIFICATION_BYTES
    if (result.snapshot && result.delta) await Promise.all([this.writeGzip(join(result.delta.rel, 'delta.xml')), gzipLater ? undefined : this.writeGzip(join(result.snapshot.rel, 'snapshot.xml'))])
    const now = this.o.now()
    if (result.held) return { serial: result.serial, elements: 0, snapshotBytes: 0, incremental: false, held: result.held, consumed: [] }
    if (!result.snapshot || !result.delta) {
      this.o.store.recordSerial(result.state, undefined, result.seqs, [])
      return { serial: result.serial, elements: 0, snapshotBytes: 0, incremental: false, consumed: result.seqs }
    }
    const written = { snapshot: { ...result.snapshot, path: join(result.snapshot.rel, 'snapshot.xml') }, delta: { ...result.delta, path: join(result.delta.rel, 'delta.xml') } }
    const { state, delta, keep, drop } = nextSerial(result.state, written, this.o.store.rrdpDeltas(), this.o.retention, now)
    const record = () => this.o.store.recordSerial(state, delta, result.seqs, drop)
    await this.recorded(record, [delta.path, state.snapshotPath], [state.snapshotPath, ...keep.map((d) => d.path)])
    this.partial = undefined
    this.layout = result.layout
    await this.writeNotification()
    if (gzipLater) this.gzipLater(written.snapshot.path)
    await this.cleanup()
    return { serial: result.serial, elements: result.elements, snapshotBytes: result.snapshot.size, incremental: result.incremental, consumed: result.seqs }
  }

  /** The current snapshot's layout when it describes the file on disk (same path and size), else undefined. */
  private async previousSnapshot(state: RrdpState): Promise<SnapshotLayout | undefined> {
    const l = this.layout
    if (!l || l.path !== state.snapshotPath || l.size !== state.snapshotSize) return undefined
    const st = await stat(join(this.o.dir, l.path)).catch(() => undefined)
    return st?.size === l.size ? l : undefined
  }

  /** The new snapshot assembled from the previous one (snapshot-copy.ts), noted for cleanup. */
  private async copied(rel: string, previous: SnapshotLayout, head: { sessionId: string; serial: number }, changed: ReadonlyMap<string, unknown>, view: PubdView, layout: SnapshotLayout): Promise<{ hash: string; size: number }> {
    const written = await copySnapshot(this.o.dir, rel, previous, head, changed, view, layout)
    this.files.written(rel, written.size)
    return written
  }

  /** Every object read and encoded, its place noted in `layout`. */
  private snapshotWhole(head: { sessionId: string; serial: number }, view: PubdView, layout: SnapshotLayout): Iterable<Buffer> {
    return encodeSnapshotChunks({ ...head, publishes: view.all() }, { onElement: (uri, offset, length) => addElement(layout, uri, offset, length) })
  }

  /** A new session with a random UUID and serial 1: one snapshot of everything, no deltas (RFC 8182 §3.3.2); the seqs it consumed. */
  async resetSession(): Promise<readonly number[]> {
    const session = sessionId(this.o.random.bytes(16))
    const consumedSeqs = await this.o.reader.read(async (view) => {
      const consumed = view.pending().seqs
      const rel = serialDir(session, 1, this.o.random.bytes(SERIAL_DIR_RANDOM_BYTES))
      const layout = emptyLayout(join(rel, 'snapshot.xml'))
      const snapshot = await this.writeFile(layout.path, this.snapshotWhole({ sessionId: session, serial: 1 }, view, layout))
      layout.size = snapshot.size
      if (snapshot.size <= GZIP_BEFORE_NOTIFICATION_BYTES) await this.writeGzip(layout.path)
      const state = firstSerial(session, { path: layout.path, ...snapshot }, this.o.now())
      await this.recorded(() => this.o.store.resetSession(state, consumed), [layout.path], [layout.path])
      this.layout = layout
      return consumed
    })
    await this.writeNotification()
    if (this.layout!.size > GZIP_BEFORE_NOTIFICATION_BYTES) this.gzipLater(this.layout!.path)
    await this.cleanup(0)
    return consumedSeqs
  }

  /**
   * Record a serial; with replication, in one transaction fenced by the leader's epoch, together with the files it
   * wrote (`written`), dropping the files of the database that the new notification no longer names.
   */
  private async recorded(record: () => void, written: string[], named: string[]): Promise<void> {
    const r = this.o.replicate
    if (!r) return record()
    const files = await Promise.all(written.map(async (path) => ({ path, content: await readFile(join(this.o.dir, path)) })))
    r.transaction(() => {
      r.fence()
      r.files.put(files)
      record()
      r.files.keepOnly(named)
    })
  }

  /**
   * An instance that does not lead: write the files of the database's current serial that are not on disk yet (their
   * hashes checked), then its notification, from one consistent read (`inRead` runs first in it); true when written.
   */
  async mirror(inRead?: (view: Pick<PubdView, 'stillPending'>) => void): Promise<boolean> {
    const r = this.o.replicate
    if (!r) throw new Error('mirror needs replication')
    const got = await this.o.reader.read(async (view) => {
      inRead?.(view)
      const state = view.state()
      if (!state || this.notified === servedKey(state)) return undefined
      const deltas = view.deltas()
      for (const f of [{ path: state.snapshotPath, hash: state.snapshotHash }, ...deltas]) {
        if (await stat(join(this.o.dir, f.path)).catch(() => undefined)) continue
        const content = r.readerFiles.get(f.path)
        if (!content) throw new Error(`RRDP file ${f.path} of serial ${state.serial} is not in the database`)
        const written = await this.writeFile(f.path, [Buffer.from(content)])
        if (written.hash !== f.hash) throw new Error(`RRDP file ${f.path} in the database does not match its hash`)
        await this.writeGzip(f.path)
      }
      return { state, deltas }
    })
    if (!got) return false
    await this.writeNotification(got.state, got.deltas)
    await this.cleanup()
    return true
  }

  /** The session and serial of the last notification written (what this instance serves). */
  served(): { session?: string; serial?: number } {
    const [session, serial] = this.notified?.split('/') ?? []
    return session ? { session, serial: Number(serial) } : {}
  }

  /** The notification URI (for repository responses and TALs' neighbours). */
  notificationUri(): string {
    return `${this.o.baseUri}notification.xml`
  }

  /** GET /rrdp/{rel}: a file this writer wrote (its gzip copy when `gzip`), or undefined for any other name (serve.ts). */
  file(rel: string, gzip = false): RrdpFile | undefined {
    return openRrdpFile(this.o.dir, rel, gzip)
  }

  /** Write notification.xml from the database state: temp file, fsync, rename, fsync the directory. */
  private async writeNotification(state = this.o.store.rrdpState()!, deltas = this.o.store.rrdpDeltas()): Promise<void> {
    const xml = encodeNotification(notificationOf(state, deltas, this.o.baseUri))
    const plain = Buffer.from(xml, 'utf8')
    // The compressed copy first: either one is a valid notification, and both name files that stay for the grace period.
    const tmpGz = join(this.o.dir, 'notification.xml.gz.tmp')
    await writeDurably(tmpGz, [await gzipAsync(plain, { level: GZIP_LEVEL })])
    await rename(tmpGz, join(this.o.dir, 'notification.xml.gz'))
    const tmp = join(this.o.dir, 'notification.xml.tmp')
    await writeDurably(tmp, [plain])
    await rename(tmp, join(this.o.dir, 'notification.xml'))
    await fsyncDir(this.o.dir)
    this.notified = servedKey(state)
  }

  /** When a serial was recorded but writing its notification failed, write it now (and clean up after it). */
  private async repairNotification(): Promise<void> {
    const state = this.o.store.rrdpState()
    if (!state || this.notified === servedKey(state)) return
    await this.writeNotification()
    await this.cleanup()
  }

  private async writeFile(rel: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<{ hash: string; size: number }> {
    const path = join(this.o.dir, rel)
    await mkdir(join(path, '..'), { recursive: true })
    const hash = createHash('sha256')
    let size = 0
    const tee = (async function* () {
      for await (const c of chunks) {
        hash.update(c)
        size += c.length
        yield c
      }
    })()
    await writeDurably(path, tee)
    this.files.written(rel, size)
    return { hash: hash.digest('hex'), size }
  }

  /**
   * The gzip copy of the snapshot `rel` in the background (GZIP_BEFORE_NOTIFICATION_BYTES): one at a time, and a
   * copy still waiting when a newer serial comes is skipped (superseded: its readers get the plain file). A copy that
   * fails is given up for the same reason: the plain file is served.
   */
  private gzipLater(rel: string): void {
    const waiting = this.gzipNext !== undefined
    this.gzipNext = rel
    if (waiting) return
    this.gzipping = this.gzipping.then(() => {
      const next = this.gzipNext!
      this.gzipNext = undefined
      return this.writeGzip(next).catch(() => undefined)
    })
  }

  /** Resolves once the gzip copies begun in the background are written (or given up): before a stop, and for tests. */
  async settled(): Promise<void> {
    for (let p = this.gzipping; ; p = this.gzipping) {
      await p
      if (p === this.gzipping) return
    }
  }

  /** The gzip copy of the file `rel`, noted for cleanup. */
  private async writeGzip(rel: string): Promise<void> {
    const size = await writeGzip(join(this.o.dir, rel), GZIP_LEVEL)
    this.files.written(`${rel}.gz`, size)
  }

  private async filesPresent(state: RrdpState): Promise<boolean> {
    const paths = [state.snapshotPath, ...this.o.store.rrdpDeltas().map((d) => d.path)]
    for (const p of paths) if (!(await stat(join(this.o.dir, p)).catch(() => undefined))) return false
    return true
  }

  /** Remove what the notification no longer references, once older than the grace period (retention.ts, files.ts). */
  private async cleanup(graceSeconds = this.o.graceSeconds ?? 120): Promise<void> {
    const referenced = referencedFiles(this.o.store.rrdpState()!, this.o.store.rrdpDeltas())
    await this.files.cleanup({ referenced, graceSeconds, supersededSnapshotBytes: this.o.supersededSnapshotBytes ?? SUPERSEDED_SNAPSHOT_BYTES })
  }
}
