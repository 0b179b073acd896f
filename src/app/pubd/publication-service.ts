/**
 * The publication service (design.md §6): publishers from RFC 8183 requests, RFC 8181 messages applied atomically
 * (over CMS from remote CAs, in-process for local ones), and the RRDP and rsync outputs driven by pacers. The HTTP
 * routes (http/routes/pubd.ts) call its `pubd*`, `rfc8181` and `rrdpFile` methods; the CA code publishes through
 * `publish`. The composition root builds its store, writers, rsyncd and CMS codec and hands them in.
 */
import { repositoryResponseJson, type PublisherDetails, type PublisherList, type PublisherRequestJson, type RepoStats, type RepositoryResponseJson } from '../../api/pubd.js'
import { AppError, reasonOf, storageFault } from '../../errors.js'
import type { Logger } from '../../log.js'
import { idCertInfo } from '../../protocol/id-cert.js'
import { encodeRepositoryResponse, type PublisherRequest, type RepositoryResponse } from '../../protocol/idexchange.js'
import { encodePublicationReply, type PublicationQuery, type PublicationReply } from '../../protocol/publication.js'
import type { ReplayState } from '../../protocol/replay.js'
import { planDelta } from '../../pubd/content.js'
import { jailOf, type Publisher } from '../../pubd/publishers.js'
import type { QuotaSettings } from '../../pubd/quota.js'
import type { ListQuery, PublisherSort, PublishersPageJson } from '../../api/paging.js'
import type { PubdStore, SharedLocks } from '../../store/interfaces.js'
import type { Clock } from '../../util/clock.js'
import { toBase64 } from '../../util/base64.js'
import { checkedPublisherHandle, pathHandle, publisherRequestInput } from '../ca/inputs.js'
import { sha256Hex } from '../ca/object-signing.js'
import { Pacer } from '../shared/pacer.js'
import type { MessageCodec } from './message-codec.js'
import { lagObserver, OUTPUT_LAG_MAX_SECONDS, OutputLag, RSYNC_PACING } from './output-lag.js'
import type { RrdpOutput, RsyncOutput, RsyncServer } from './outputs.js'
import { OutputProblems, type ProblemJson } from './problems.js'
import { isStale, publishersPage } from './publisher-page.js'
import { publishedManifests, repoStats } from './repo-stats.js'
import { Rfc8181Endpoint } from './rfc8181-endpoint.js'
import type { PublishObserver } from './publish-latency.js'
import { messageOverQuota, publisherQuotaJson, rfc8181MessageLimit, UNLIMITED } from './publisher-quotas.js'
import { openRrdpFile, type RrdpFile } from './rrdp-files.js'
import type { SafetyFloor } from './safety-floor.js'

/** The share of the time RRDP serials may take (the pacer's busyShare; see the constructor). */
export const RRDP_BUSY_SHARE = 0.05
const RRDP_MAX_SPACING_MS = 10_000 // however slow the last serial (a loaded machine), the next comes within 10 s

/** The settings the service reads (from the config's service_uri and [repository]). */
export interface PublicationConfig {
  /** service_uri (RFC 8181 service URIs are `<serviceUri>rfc8181/<handle>/`), rsync_base_uri (jails are `<rsyncBaseUri><handle>/`), rrdp_base_uri. */
  serviceUri: string
  rsyncBaseUri: string
  rrdpBaseUri: string
  /** The directory of the RRDP files (<data_dir>/repo/rrdp), served under /rrdp/. */
  rrdpDir: string
  /** rrdp_delta_interval_min_seconds: the least time between two RRDP serials. */
  rrdpIntervalSeconds: number
  /** output_lag_max_seconds: an acknowledged change missing from RRDP or the rsync tree after this long is a problem. */
  outputLagMaxSeconds?: number
  quotas?: QuotaSettings // [repository] quota_* (pubd/quota.ts); none when absent (unit tests)
}

/** The collaborators of the service, built by the composition root. */
export interface PublicationServiceDeps {
  store: PubdStore
  rrdp: RrdpOutput
  rsync: RsyncOutput
  /** rsyncd, for rsync_daemon = "auto"; undefined when the tree is served by something else. */
  daemon: RsyncServer | undefined
  codec: MessageCodec
  now: () => Date
  /** The timers of the RRDP and rsync pacers. */
  clock: Clock
  log: Logger
  /**
   * Several instances on one database (design.md §7): whether this one leads (only the leader makes serials; the
   * others copy them from the database), how often to look for changes other instances accepted or serials the
   * leader made, and the locks among them (RFC 8181: one per publisher). Without it the instance is alone and leads.
   */
  cluster?: { leading: () => boolean; pollMs: number; locks?: SharedLocks }
  config: PublicationConfig
  /** The safety floor the writers' `hold` hooks consult; released through pubdRelease. */
  floor?: SafetyFloor
  /** Told of each acknowledged change and of the notification that contains it (the publish delay metric). */
  latency?: PublishObserver
}

export class PublicationService {
  readonly store: PubdStore
  private readonly d: PublicationServiceDeps
  private readonly rrdpPacer: Pacer
  private readonly rsyncPacer: Pacer
  private readonly problems: OutputProblems
  /** Acknowledged changes not yet in RRDP, and not yet in the rsync tree (output-lag.ts). */
  private readonly rrdpLag = new OutputLag()
  private readonly rsyncLag = new OutputLag()
  private readonly endpoint: Rfc8181Endpoint
  /** Whether the RRDP files were brought in line with the database since this instance began to lead. */
  private initialised = false
  private poll: NodeJS.Timeout | undefined

  constructor(deps: PublicationServiceDeps) {
    this.d = { ...deps, latency: lagObserver(deps.latency, this.rrdpLag, this.rsyncLag) }
    this.problems = new OutputProblems(deps.log, deps.now)
    this.store = deps.store
    this.endpoint = new Rfc8181Endpoint({ store: deps.store, codec: deps.codec, log: deps.log, publish: (h, q, r) => this.publish(h, q, r), locks: deps.cluster?.locks })
    // Issue 10: a failed write (full disk, I/O error) is retried until done, and is a problem (GET /ready) until then.
    const retry = { firstMs: 1000, maxMs: 30_000 }
    // A serial writes a whole new snapshot (a copy of the previous one plus what changed), so its cost grows with the
    // repository, not with the change. Serials take at most a twentieth of the time: a small repository still gets a
    // serial within a few tens of milliseconds of a change, while a large one under a stream of changes (a thousand
    // CAs being created, or thousands of publishers) batches them into fewer serials, one every few seconds, as the
    // publication-server BCP advises (never more than 10 s apart), and `rrdp_delta_interval_min_seconds` can space them further.
    this.rrdpPacer = new Pacer(() => this.rrdpCycle(), deps.config.rrdpIntervalSeconds * 1000, (e) => this.problems.failed('rrdp', 'sys-rrdp-behind', e), deps.clock, { retry, onSuccess: () => this.problems.recovered('rrdp'), busyShare: RRDP_BUSY_SHARE, maxSpacingMs: RRDP_MAX_SPACING_MS })
    // A tree is built once the changes have paused for half a second, or under constant change at least every 10 s;
    // trees take at most a hundredth of the time but are never more than 30 s apart, whatever one publisher sent
    // (issue 22: after a burst of 10,000 objects, trees were 440 s apart). See output-lag.ts.
    this.rsyncPacer = new Pacer(() => this.rsyncCycle(), 1000, (e) => this.problems.failed('rsync', 'sys-rsync-behind', e), deps.clock, { retry, onSuccess: () => this.problems.recovered('rsync'), ...RSYNC_PACING })
  }

  /** Bring the RRDP files and the rsync tree in line with the database, and start rsyncd if there is one. */
  async start(): Promise<void> {
    if (this.leading()) await this.initRrdp()
    else this.initialised = false
    this.d.rsync.init()
    this.rrdpPacer.kick()
    this.rsyncPacer.kick()
    this.d.daemon?.start(this.d.rsync.currentTree())
    if (this.d.cluster) this.poll = setInterval(() => this.rrdpPacer.kick(), this.d.cluster.pollMs)
  }

  /** This instance now leads (or no longer does): its next RRDP cycle starts from the database's current serial. */
  leadershipChanged(): void {
    this.initialised = false
    this.rrdpPacer.kick()
  }

  /** The session and serial of the notification this instance serves. */
  served(): { session?: string; serial?: number } {
    return this.d.rrdp.served()
  }

  async stop(): Promise<void> {
    clearInterval(this.poll)
    await this.rrdpPacer.stop()
    await this.rsyncPacer.stop()
    try {
      this.d.rsync.save()
    } catch (e) {
      this.d.log.warn('could not save the rsync tree listing; the next start rewrites the tree', { err: reasonOf(e) })
    }
    await this.d.daemon?.stop()
  }

  /** Write everything accepted so far to RRDP and the rsync tree now (not after the usual pause); resolves when done. */
  async flushed(): Promise<void> {
    await this.rrdpPacer.flush()
    await this.rsyncPacer.flush()
  }

  //------------ JSON API (krill-reference.md §1.1 "Publication server"; the /api/v1/pubd routes) -------------------

  /** Krill's list; with a page query (api/paging.ts), a page of richer rows (publisher-page.ts). */
  pubdPublishers(): PublisherList
  pubdPublishers(page: ListQuery<PublisherSort>, staleSeconds?: number): PublishersPageJson
  pubdPublishers(page?: ListQuery<PublisherSort>, staleSeconds?: number): PublisherList | PublishersPageJson {
    if (!page) return { publishers: this.store.publishers().map((p) => ({ handle: p.handle })) }
    const stale = staleSeconds === undefined ? undefined : { cutoff: this.d.now().getTime() - staleSeconds * 1000 }
    return publishersPage(this.store.publishers(), this.store.stats(), page, stale)
  }

  pubdPublisherAdd(input: { json: PublisherRequestJson } | { xml: string }, opts: { selfService?: boolean } = {}): RepositoryResponseJson {
    return repositoryResponseJson(this.publisherAdd(publisherRequestInput(input, this.d.now()), opts))
  }

  pubdPublisherShow(handle: string): PublisherDetails {
    const p = this.publisher(pathHandle(handle))
    const files = this.store.objectsWithContent(p.handle).map((o) => ({ uri: o.uri, base64: toBase64(o.content) }))
    return { handle: p.handle, id_cert: idCertInfo(p.idCert), base_uri: p.baseUri, current_files: files, ...publisherQuotaJson(this.d.config.quotas, p.selfService === true) }
  }

  pubdPublisherRemove(handle: string): void {
    this.publisherRemove(pathHandle(handle))
  }

  pubdPublisherResponse(handle: string): RepositoryResponseJson {
    return repositoryResponseJson(this.publisherResponse(pathHandle(handle)))
  }

  pubdPublisherResponseXml(handle: string): string {
    return encodeRepositoryResponse(this.publisherResponse(pathHandle(handle)))
  }

  /** Publishers that have not published for `seconds` (never-published ones count from their creation). */
  pubdStale(seconds: number): PublisherList {
    const cutoff = this.d.now().getTime() - seconds * 1000
    return { publishers: this.store.publishers().filter((p) => isStale(p, cutoff)).map((p) => ({ handle: p.handle })) }
  }

  pubdStats(): RepoStats {
    const c = this.d.config
    const input = { publishers: this.store.stats(), rrdp: this.store.rrdpState()!, problems: this.outputProblems(true), rsyncBaseUri: c.rsyncBaseUri, rrdpBaseUri: c.rrdpBaseUri, quotas: c.quotas ?? UNLIMITED }
    return repoStats(input, (handle) => publishedManifests(this.store, handle))
  }

  /** Release what the safety floor holds back: the next RRDP serial and rsync tree go ahead, whatever they remove. */
  async pubdRelease(): Promise<void> {
    const held = this.problems.keys().filter((k) => k.startsWith('held:'))
    this.d.floor?.release()
    this.d.log.warn('safety floor released by the operator', { held: held.map((k) => k.slice('held:'.length)).join(',') })
    this.rrdpPacer.kick()
    this.rsyncPacer.kick()
    await this.rrdpPacer.idle()
  }

  async pubdSessionReset(): Promise<void> {
    if (!this.leading()) throw new AppError('sys-not-leader', { action: 'an RRDP session reset', leader: 'see GET /api/v1/cluster' })
    await this.rrdpPacer.idle()
    const consumed = await this.d.rrdp.resetSession()
    this.d.latency?.notified(consumed, this.d.now().getTime())
    this.d.log.info('RRDP session reset', { session: this.store.rrdpState()?.session })
  }

  /** POST /rfc8181/{publisher}: one CMS-wrapped RFC 8181 message; always a signed reply (report_error on failure). */
  async rfc8181(handle: string, body: Uint8Array): Promise<Uint8Array> {
    const now = this.d.now()
    return this.d.codec.sign(encodePublicationReply(await this.endpoint.reply(handle, body, now)), now)
  }

  /** The most bytes of an RFC 8181 message worth reading from `handle`: what its quota can accept (pubd/quota.ts). */
  rfc8181Limit(handle: string): number {
    return rfc8181MessageLimit(this.store, this.d.config.quotas, handle)
  }

  /** GET /rrdp/{path}: an RRDP file (its gzip copy when `gzip`), or undefined (404) for anything else. */
  rrdpFile(rel: string, gzip = false): RrdpFile | undefined {
    return openRrdpFile(this.d.config.rrdpDir, rel, gzip)
  }

  /**
   * What keeps RRDP or the rsync tree from holding everything accepted, for GET /ready and the bulk issues: empty
   * while they hold it or are catching up without a failure. `withReason` adds the underlying failure (not for
   * unauthenticated callers).
   */
  outputProblems(withReason = false): ProblemJson[] {
    this.checkLag()
    return this.problems.list(withReason)
  }

  //------------ In-process (the CA code: its own publisher, RFC 8181 semantics) ----------------------------------

  /** A publisher; `selfService` (the testbed's) has its quota, and yields its handle to the operator's (issue 22). */
  publisherAdd(req: PublisherRequest, opts: { selfService?: boolean } = {}): RepositoryResponse {
    const handle = checkedPublisherHandle(req.publisherHandle)
    const old = this.store.publisher(handle)
    if (old?.selfService && !opts.selfService) this.publisherRemove(handle, 'its handle is taken by the operator')
    else if (old) throw new AppError('pub-duplicate', { publisher: handle })
    const baseUri = jailOf(this.d.config.rsyncBaseUri, handle)
    this.store.addPublisher({ handle, idCert: req.idCert, baseUri, created: this.d.now().toISOString(), ...(opts.selfService ? { selfService: true } : {}) })
    this.d.log.info('publisher added', { publisher: handle, base_uri: baseUri, ...(opts.selfService ? { self_service: true } : {}) })
    return this.response(this.store.publisher(handle)!)
  }

  publisherRemove(handle: string, why?: string): void {
    this.publisher(handle)
    const withdrawn = this.store.removePublisher(handle)
    this.d.log[why ? 'warn' : 'info']('publisher removed', { publisher: handle, withdrawn, ...(why ? { why } : {}) })
    this.rrdpPacer.kick()
  }

  /** The registered publisher `handle`, or undefined. */
  findPublisher(handle: string): Publisher | undefined {
    return this.store.publisher(handle)
  }

  publisher(handle: string): Publisher {
    const p = this.store.publisher(handle)
    if (!p) throw new AppError('pub-unknown', { publisher: handle })
    return p
  }

  publisherResponse(handle: string): RepositoryResponse {
    return this.response(this.publisher(handle))
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
    const over = messageOverQuota(this.store, this.d.config.quotas, publisher, query.pdus, plan.changes, this.d.now())
    if (over.length) return { type: 'error_reply', errors: over }
    if (plan.changes.length || replay) {
      let seq: number | undefined
      try {
        seq = this.store.applyChanges(handle, plan.changes, this.d.now(), replay)
      } catch (e) {
        throw storageFault(e) ?? e
      }
      if (plan.changes.length) {
        if (seq !== undefined) this.d.latency?.acked(seq, this.d.now().getTime())
        this.rrdpPacer.kick()
      }
    }
    return { type: 'success' }
  }

  notificationUri(): string {
    return this.d.rrdp.notificationUri()
  }

  //------------ Output cycles and their problems ------------------------------------------------------------------

  private leading(): boolean {
    return this.d.cluster?.leading() ?? true
  }

  /** The RRDP files in line with the database; a leader in a cluster first copies what the previous leader made. */
  private async initRrdp(): Promise<void> {
    // Files the database does not hold (a database filled by `svcd migrate`) are no reason to stop: init() then finds
    // them missing and starts a new session, as continuity cannot be proven.
    if (this.d.cluster) await this.mirror().catch((e: unknown) => this.d.log.warn('could not copy the current RRDP serial from the database', { err: reasonOf(e) }))
    const reset = await this.d.rrdp.init()
    if (reset) this.d.log.info('RRDP session started', { session: this.store.rrdpState()?.session, reason: reset })
    this.initialised = true
  }

  private async rrdpCycle(): Promise<void> {
    this.rrdpPacer.busy(0) // only a leader's serials count toward RRDP's share: a copy follows the leader's pace already
    if (!this.leading()) {
      if (await this.mirror()) this.rsyncPacer.kick()
      return
    }
    if (!this.initialised) await this.initRrdp()
    const began = Date.now()
    const r = await this.d.rrdp.cycle()
    this.rrdpPacer.busy(Date.now() - began)
    if (this.problems.hold('rrdp', r?.held)) return
    if (r) {
      this.d.latency?.notified(r.consumed, this.d.now().getTime())
      this.d.log.debug('RRDP serial written', { serial: r.serial, elements: r.elements, snapshot_bytes: r.snapshotBytes })
      this.rsyncPacer.kick()
    }
  }

  /** Copy the leader's serial; the publishes acknowledged here that it contains are observed then (publish-latency.ts). */
  private async mirror(): Promise<boolean> {
    const latency = this.d.latency
    let contained: number[] = []
    const wrote = await this.d.rrdp.mirror((view) => {
      const waiting = latency?.waitingSeqs() ?? []
      if (waiting.length === 0) return
      const still = view.stillPending(waiting)
      contained = waiting.filter((s) => !still.has(s))
    })
    latency?.notified(contained, this.d.now().getTime())
    return wrote
  }

  /**
   * One rsync tree cycle. Publishers whose files could not be written kept their previous files and are problems of
   * their own; the cycle then counts as failed, so that the pacer retries it, but the tree did switch for the rest.
   */
  private async rsyncCycle(): Promise<void> {
    this.rsyncLag.runStarts()
    const r = await this.d.rsync.cycle()
    if (r.freshMs !== undefined) this.rsyncPacer.busy(r.freshMs) // a recycled tree is spaced as a fresh one (rsync-writer.ts)
    if (this.problems.hold('rsync', r.held)) return
    if (!r.failed.length) this.rsyncLag.runSucceeded()
    this.checkLag()
    this.problems.rsyncPublishers(r.failed)
  }

  /** Record or clear the lag of each output: an acknowledged change it does not hold after the bound (output-lag.ts). */
  private checkLag(): void {
    const bound = this.d.config.outputLagMaxSeconds ?? OUTPUT_LAG_MAX_SECONDS
    this.problems.lag('rrdp', this.rrdpLag, bound)
    this.problems.lag('rsync', this.rsyncLag, bound)
  }

  private response(p: Publisher): RepositoryResponse {
    return {
      publisherHandle: p.handle,
      serviceUri: `${this.d.config.serviceUri}rfc8181/${p.handle}/`,
      siaBase: p.baseUri,
      rrdpNotificationUri: this.d.rrdp.notificationUri(),
      idCert: this.d.codec.idCert,
    }
  }
}

