/**
 * The publication server as an application service (design.md §1 "Publication-server first"): publishers from
 * RFC 8183 requests, RFC 8181 messages applied atomically (over CMS from remote CAs, in-process for local ones),
 * and the RRDP and rsync writers driven by pacers. The manager delegates every `pubd*` call here.
 */
import { createHash } from 'node:crypto'
import { closeSync, createReadStream, fstatSync, openSync, type ReadStream } from 'node:fs'
import { join } from 'node:path'
import type { RepositoryConfig } from '../config.js'
import { AppError, reasonOf, storageFault } from '../errors.js'
import type { Logger } from '../log.js'
import type { PublisherRequest, RepositoryResponse } from '../protocol/idexchange.js'
import { decodeManifest } from '../objects/manifest.js'
import { encodePublicationReply, type PublicationQuery, type PublicationReply } from '../protocol/publication.js'
import { planDelta } from '../pubd/content.js'
import { jailOf, type Publisher } from '../pubd/publishers.js'
import type { ReplayState } from '../protocol/replay.js'
import { RrdpWriter } from '../pubd/rrdp-writer.js'
import { RsyncWriter } from '../pubd/rsync-writer.js'
import { Db } from '../store/db.js'
import { PubdReader } from '../store/pubd-store.js'
import { publisherHandle } from '../util/handle.js'
import { Pacer } from './pacer.js'
import { Problems, type Problem, type ProblemJson } from './pubd-problems.js'
import { Rfc8181Endpoint } from './pubd-rfc8181.js'
import { RsyncDaemon } from './rsync-daemon.js'
import type { PubdStore, PublisherStats, RrdpState } from '../store/interfaces.js'
import { SqlitePubdStore } from '../store/pubd-store.js'

/** Signs our replies and verifies publishers' messages (RFC 8181 §2, CMS as RFC 6492 §3.1). */
export interface MessageCodec {
  /** Our BPKI identity certificate (DER), as given in repository responses. */
  readonly idCert: Uint8Array
  sign(xml: string, now: Date): Promise<Uint8Array>
  /** A message verified against the peer's identity certificate; throws with a reason otherwise. */
  verify(cms: Uint8Array, peer: { handle: string; idCert: Uint8Array }, now: Date): VerifiedQuery
}

/** A verified RFC 8181 message: its XML, signing time and content digest (hex SHA-256, for replay protection). */
export interface VerifiedQuery {
  xml: string
  signingTime: Date
  digest: string
}

export interface PubServerOptions {
  repository: RepositoryConfig
  serviceUri: string
  /** Address rsyncd binds (the config's `ip`). */
  ip: string
  dataDir: string
  db: Db
  /** Path of the database file: the writers read through their own connections. */
  dbPath: string
  codec: MessageCodec
  log: Logger
  now: () => Date
}

export interface RrdpFile {
  stream: ReadStream
  size: number
  mtime: Date
  etag: string
  notification: boolean
}

const RRDP_PATH = /^(notification\.xml|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[1-9][0-9]{0,15}\/[0-9a-f]{16}\/(snapshot|delta)\.xml)$/

export class PubServer {
  readonly store: PubdStore
  private readonly o: PubServerOptions
  private readonly rrdp: RrdpWriter
  private readonly rsync: RsyncWriter
  private readonly readers: Db[] = []
  private readonly rrdpPacer: Pacer
  private readonly rsyncPacer: Pacer
  private readonly problems = new Problems()
  private readonly endpoint: Rfc8181Endpoint
  private daemon: RsyncDaemon | undefined

  constructor(o: PubServerOptions) {
    this.o = o
    this.store = new SqlitePubdStore(o.db)
    this.endpoint = new Rfc8181Endpoint({ store: this.store, codec: o.codec, log: o.log, publish: (h, q, r) => this.publish(h, q, r) })
    const reader = () => {
      const db = Db.openSecondary(o.dbPath)
      this.readers.push(db)
      return new PubdReader(db)
    }
    const r = o.repository
    this.rrdp = new RrdpWriter({
      dir: join(o.dataDir, 'repo', 'rrdp'),
      baseUri: r.rrdp_base_uri!,
      store: this.store,
      reader: reader(),
      now: o.now,
      retention: { minNr: r.rrdp_delta_files_min_nr, minSeconds: r.rrdp_delta_files_min_seconds, maxNr: r.rrdp_delta_files_max_nr, maxSeconds: r.rrdp_delta_files_max_seconds },
    })
    this.rsync = new RsyncWriter({ dir: join(o.dataDir, 'repo', 'rsync'), baseUri: r.rsync_base_uri!, reader: reader(), now: o.now, onSwitch: (tree) => this.daemon?.setPath(tree) })
    // Issue 10: a failed write (full disk, I/O error) is retried by itself until the output holds everything
    // accepted, and is a problem (GET /ready, stats, one log line per change of state) until then.
    const retry = { firstMs: 1000, maxMs: 30_000 }
    this.rrdpPacer = new Pacer(() => this.rrdpCycle(), r.rrdp_delta_interval_min_seconds * 1000, (e) => this.failed('rrdp', 'sys-rrdp-behind', e), { retry, onSuccess: () => this.recovered('rrdp') })
    this.rsyncPacer = new Pacer(() => this.rsyncCycle(), 1000, (e) => this.failed('rsync', 'sys-rsync-behind', e), { retry, onSuccess: () => this.recovered('rsync') })
  }

  /** Bring the RRDP files and the rsync tree in line with the database, and start rsyncd if configured. */
  async start(): Promise<void> {
    await this.rrdp.init()
    this.rsync.init()
    this.rrdpPacer.kick()
    this.rsyncPacer.kick()
    if (this.o.repository.rsync_daemon === 'auto') {
      this.daemon = new RsyncDaemon({ rsyncBaseUri: this.o.repository.rsync_base_uri!, modulePath: this.rsync.currentTree(), workDir: join(this.o.dataDir, 'repo'), address: this.o.ip, log: this.o.log })
      this.daemon.start()
    }
  }

  async stop(): Promise<void> {
    await this.rrdpPacer.stop()
    await this.rsyncPacer.stop()
    try {
      this.rsync.save()
    } catch (e) {
      this.o.log.warn('could not save the rsync tree listing; the next start rewrites the tree', { err: reasonOf(e) })
    }
    await this.daemon?.stop()
    for (const db of this.readers) db.close()
  }

  /** Resolves when everything accepted so far is in RRDP and in the rsync tree. */
  async flushed(): Promise<void> {
    await this.rrdpPacer.idle()
    await this.rsyncPacer.idle()
  }

  //------------ Publishers ----------------------------------------------------------------------------------------

  publisherAdd(req: PublisherRequest, handleOverride?: string): RepositoryResponse {
    const handle = checkedHandle(handleOverride ?? req.publisherHandle)
    if (this.store.publisher(handle)) throw new AppError('pub-duplicate', { publisher: handle })
    const baseUri = jailOf(this.o.repository.rsync_base_uri!, handle)
    this.store.addPublisher({ handle, idCert: req.idCert, baseUri, created: this.o.now().toISOString() })
    this.o.log.info('publisher added', { publisher: handle, base_uri: baseUri })
    return this.response(this.store.publisher(handle)!)
  }

  publisherRemove(handle: string): void {
    this.publisher(handle)
    const withdrawn = this.store.removePublisher(handle)
    this.endpoint.forget(handle)
    this.o.log.info('publisher removed', { publisher: handle, withdrawn })
    this.kick()
  }

  publisher(handle: string): Publisher {
    const p = this.store.publisher(handle)
    if (!p) throw new AppError('pub-unknown', { publisher: handle })
    return p
  }

  publisherResponse(handle: string): RepositoryResponse {
    return this.response(this.publisher(handle))
  }

  /** Publishers that have not published for `seconds` (never-published ones count from their creation). */
  stale(seconds: number): Publisher[] {
    const cutoff = this.o.now().getTime() - seconds * 1000
    return this.store.publishers().filter((p) => Date.parse(p.lastPublish ?? p.created) < cutoff)
  }

  stats(): { publishers: PublisherStats[]; rrdp: RrdpState; problems: ProblemJson[] } {
    return { publishers: this.store.stats(), rrdp: this.store.rrdpState()!, problems: this.problems.list(true) }
  }

  /**
   * What keeps RRDP or the rsync tree from holding everything accepted, for GET /ready: empty while they hold it or
   * are catching up without a failure. `withReason` adds the underlying failure (not for unauthenticated callers).
   */
  outputProblems(withReason = false): ProblemJson[] {
    return this.problems.list(withReason)
  }

  /** This update and next update of each manifest a publisher has published (for stats), undecodable ones skipped. */
  manifests(handle: string): { uri: string; this_update: string; next_update: string }[] {
    const out = []
    for (const o of this.store.objectsWithContent(handle)) {
      if (!o.uri.endsWith('.mft')) continue
      try {
        const m = decodeManifest(o.content)
        out.push({ uri: o.uri, this_update: m.thisUpdate.toISOString(), next_update: m.nextUpdate.toISOString() })
      } catch {
        // Not a manifest we can read: the publisher's business, not a statistics failure.
      }
    }
    return out
  }

  async sessionReset(): Promise<void> {
    await this.rrdpPacer.idle()
    await this.rrdp.resetSession()
    this.o.log.info('RRDP session reset', { session: this.store.rrdpState()?.session })
  }

  //------------ RFC 8181 ------------------------------------------------------------------------------------------

  /** Handle one CMS-wrapped RFC 8181 message; the answer is always a signed reply (report_error on failure). */
  rfc8181(handle: string, body: Uint8Array): Promise<Uint8Array> {
    const now = this.o.now()
    return this.o.codec.sign(encodePublicationReply(this.endpoint.reply(handle, body, now)), now)
  }

  /**
   * Apply a query for a publisher: the in-process path for local CAs, with RFC 8181 semantics, and the RFC 8181
   * endpoint's (which passes the publisher's `replay` state after the message, saved with the changes). A failure of
   * the storage is a labelled AppError (sys-storage-full, sys-storage-io) and changes nothing.
   */
  publish(handle: string, query: PublicationQuery, replay?: ReplayState): PublicationReply {
    const publisher = this.publisher(handle)
    if (query.type === 'list') return { type: 'list_reply', elements: this.store.listObjects(handle).map((o) => ({ uri: o.uri, hash: o.hash })) }
    const held = { hash: (uri: string) => this.store.objectHash(handle, uri), under: (dir: string) => this.store.objectsUnder(handle, dir) }
    const plan = planDelta(query.pdus, publisher.baseUri, held, sha256Hex)
    if (!plan.ok) return { type: 'error_reply', errors: plan.errors }
    if (plan.changes.length || replay) {
      try {
        this.store.applyChanges(handle, plan.changes, this.o.now(), replay)
      } catch (e) {
        throw storageFault(e) ?? e
      }
      if (plan.changes.length) this.kick()
    }
    return { type: 'success' }
  }

  //------------ Serving RRDP --------------------------------------------------------------------------------------

  /** A file under /rrdp/, or undefined for anything that is not a current RRDP file name. */
  rrdpFile(rel: string): RrdpFile | undefined {
    if (!RRDP_PATH.test(rel)) return undefined
    const path = join(this.o.dataDir, 'repo', 'rrdp', rel)
    // Open first, then look at what was opened: the notification is replaced by a rename at any moment, and a size
    // taken from the name before the open could belong to another file than the bytes sent (a cut-off answer).
    let fd: number
    try {
      fd = openSync(path, 'r')
    } catch {
      return undefined
    }
    const st = fstatSync(fd)
    if (!st.isFile()) {
      closeSync(fd)
      return undefined
    }
    return { stream: createReadStream('', { fd }), size: st.size, mtime: st.mtime, etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`, notification: rel === 'notification.xml' }
  }

  notificationUri(): string {
    return this.rrdp.notificationUri()
  }

  private kick(): void {
    this.rrdpPacer.kick()
  }

  private async rrdpCycle(): Promise<void> {
    const r = await this.rrdp.cycle()
    if (r) {
      this.o.log.debug('RRDP serial written', { serial: r.serial, elements: r.elements, snapshot_bytes: r.snapshotBytes })
      this.rsyncPacer.kick()
    }
  }

  /**
   * One rsync tree cycle. Publishers whose files could not be written kept their previous files and are problems of
   * their own; the cycle then counts as failed, so that the pacer retries it, but the tree did switch for the rest.
   */
  private async rsyncCycle(): Promise<void> {
    const r = await this.rsync.cycle()
    const failed = new Set(r.failed.map((f) => f.publisher))
    for (const key of this.problems.keys()) {
      const publisher = key.startsWith('rsync:') ? key.slice('rsync:'.length) : undefined
      if (publisher !== undefined && !failed.has(publisher)) this.recovered(key)
    }
    for (const f of r.failed) this.report(`rsync:${f.publisher}`, { label: 'sys-rsync-publisher', args: { publisher: f.publisher }, reason: f.reason })
    if (r.failed.length) throw new PublishersFailed(r.failed.length)
  }

  /** A pacer's run failed: record the problem (a partial rsync failure is recorded per publisher instead). */
  private failed(key: 'rrdp' | 'rsync', label: 'sys-rrdp-behind' | 'sys-rsync-behind', e: unknown): void {
    if (e instanceof PublishersFailed) return this.recovered(key)
    this.report(key, { label, args: {}, reason: reasonOf(e) }, (e as Error)?.stack)
  }

  /** Record a problem; logged when it is new or changed, not on every retry. */
  private report(key: string, p: Problem, stack?: string): void {
    if (this.problems.set(key, p, this.o.now())) this.o.log.error('publication output problem', { problem: key, label: p.label, ...p.args, err: p.reason, ...(stack ? { stack } : {}) })
  }

  /** A problem is over; logged once. */
  private recovered(key: string): void {
    const old = this.problems.clear(key)
    if (old) this.o.log.info('publication output problem resolved', { problem: key, label: old.label, ...old.args })
  }

  private response(p: Publisher): RepositoryResponse {
    return {
      publisherHandle: p.handle,
      serviceUri: `${this.o.serviceUri}rfc8181/${p.handle}/`,
      siaBase: p.baseUri,
      rrdpNotificationUri: this.rrdp.notificationUri(),
      idCert: this.o.codec.idCert,
    }
  }
}

/** An rsync cycle switched the tree but some publishers kept old files: retry, without a problem of the whole tree. */
class PublishersFailed extends Error {
  constructor(n: number) {
    super(`the files of ${n} publisher(s) could not be written to the rsync tree`)
  }
}

function checkedHandle(text: string): string {
  try {
    return publisherHandle(text)
  } catch (e) {
    throw new AppError('pub-request-invalid-xml', { reason: reasonOf(e) })
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}
