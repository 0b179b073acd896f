/**
 * The publisher-facing side of the publication server (design.md §6): publishers from RFC 8183 requests, RFC 8181
 * messages applied atomically (over CMS from remote CAs, in-process for local ones) within the publishers' quotas.
 * What it accepts goes to the output side (output-service.ts: RRDP and rsync) through `PublicationOutput`. The HTTP
 * routes (http/routes/pubd.ts) call its `pubd*` and `rfc8181` methods; the CA code publishes through `publish`.
 */
import { repositoryResponseJson, type PublisherDetails, type PublisherList, type PublisherRequestJson, type RepoStats, type RepositoryResponseJson } from '../../api/pubd.js'
import { AppError, storageFault } from '../../errors.js'
import type { Logger } from '../../log.js'
import { idCertInfo } from '../../protocol/id-cert.js'
import { encodeRepositoryResponse, type PublisherRequest, type RepositoryResponse } from '../../protocol/idexchange.js'
import { encodePublicationReply, type PublicationQuery, type PublicationReply } from '../../protocol/publication.js'
import type { ReplayState } from '../../protocol/replay.js'
import { planDelta } from '../../pubd/content.js'
import { jailOf, type Publisher } from '../../pubd/publishers.js'
import type { QuotaSettings } from '../../pubd/quota.js'
import type { ListQuery, PublisherSort, PublishersPageJson } from '../../api/paging.js'
import type { PublicationStore, SharedLocks } from '../../store/interfaces.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import { checkedPublisherHandle, checkIdCert, pathHandle, publisherRequestInput } from '../ca/inputs.js'
import { sha256Hex } from '../../crypto/digest.js'
import type { AuditEntry } from '../access/audit-service.js'
import type { MessageCodec } from './message-codec.js'
import type { ProblemJson } from './problems.js'
import { isStale, publishersPage } from './publisher-page.js'
import { PublisherQuotas, publisherQuotaJson, UNLIMITED } from './publisher-quotas.js'
import { publishedManifests, repoStats } from './repo-stats.js'
import { Rfc8181Endpoint } from './rfc8181-endpoint.js'

/** What the publisher-facing side needs of the output side (OutputService implements it). */
export interface PublicationOutput {
  /** Changes were accepted (`seq`: the last one recorded, when there is one): write them to RRDP and rsync soon. */
  changed(seq?: number, publisher?: string): void
  /** Resolves when everything accepted so far is in RRDP and the rsync tree. */
  flushed(): Promise<void>
  /** The notification URI (RFC 8183 §5.2.4 rrdp_notification_uri). */
  notificationUri(): string
  /** What keeps the outputs from holding everything accepted (the stats show them). */
  outputProblems(withReason?: boolean): ProblemJson[]
}

/** The settings the publisher side reads (from the config's service_uri and [repository]). */
export interface PublisherConfig {
  /** service_uri (RFC 8181 service URIs are `<serviceUri>rfc8181/<handle>/`), rsync_base_uri (jails are `<rsyncBaseUri><handle>/`), rrdp_base_uri. */
  serviceUri: string
  rsyncBaseUri: string
  rrdpBaseUri: string
  quotas?: QuotaSettings // [repository] quota_* (pubd/quota.ts); none when absent (unit tests)
}

/** The collaborators of the service, built by the composition root. */
export interface PublisherServiceDeps {
  store: PublicationStore
  output: PublicationOutput
  codec: MessageCodec
  now: () => Date
  log: Logger
  /** Several instances on one database: the locks among them (RFC 8181: one per publisher). */
  locks?: SharedLocks | undefined
  config: PublisherConfig
}

export class PublisherService {
  readonly store: PublicationStore
  private readonly d: PublisherServiceDeps
  private readonly endpoint: Rfc8181Endpoint
  private readonly quotas: PublisherQuotas
  private audit: ((e: AuditEntry) => void) | undefined

  constructor(deps: PublisherServiceDeps) {
    this.d = deps
    this.store = deps.store
    this.quotas = new PublisherQuotas(deps.store, deps.config.quotas)
    this.endpoint = new Rfc8181Endpoint({ store: deps.store, codec: deps.codec, log: deps.log, publish: (h, q, r) => this.publish(h, q, r), locks: deps.locks })
  }

  /** Record every publisher added or removed in the audit trail (design.md §9), right after the change. */
  audited(audit: (e: AuditEntry) => void): void {
    this.audit = audit
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
    const input = { publishers: this.store.stats(), rrdp: this.store.rrdpState()!, problems: this.d.output.outputProblems(true), rsyncBaseUri: c.rsyncBaseUri, rrdpBaseUri: c.rrdpBaseUri, quotas: c.quotas ?? UNLIMITED }
    return repoStats(input, (handle) => publishedManifests(this.store, handle))
  }

  /** POST /rfc8181/{publisher}: one CMS-wrapped RFC 8181 message; always a signed reply (report_error on failure). */
  async rfc8181(handle: string, body: Uint8Array): Promise<Uint8Array> {
    const now = this.d.now()
    return this.d.codec.sign(encodePublicationReply(await this.endpoint.reply(handle, body, now)), now)
  }

  /** The most bytes of an RFC 8181 message worth reading from `handle`: what its quota can accept (pubd/quota.ts). */
  rfc8181Limit(handle: string): number {
    return this.quotas.messageLimit(handle)
  }

  //------------ In-process (the CA code: its own publisher, RFC 8181 semantics) ----------------------------------

  /** A publisher; `selfService` (the testbed's) has its quota, and yields its handle to the operator's (issue 22). */
  publisherAdd(req: PublisherRequest, opts: { selfService?: boolean } = {}): RepositoryResponse {
    const handle = checkedPublisherHandle(req.publisherHandle)
    const old = this.store.publisher(handle)
    if (old?.selfService && !opts.selfService) this.publisherRemove(handle, 'its handle is taken by the operator')
    else if (old) throw new AppError('pub-duplicate', { publisher: handle })
    const baseUri = jailOf(this.d.config.rsyncBaseUri, handle)
    void this.d.codec.idCert // the server's identity first (absent while the signer is: sys-signer-unavailable, nothing stored)
    this.store.addPublisher({ handle, idCert: req.idCert, baseUri, created: this.d.now().toISOString(), ...(opts.selfService ? { selfService: true } : {}) })
    this.d.log.info('publisher added', { publisher: handle, base_uri: baseUri, ...(opts.selfService ? { self_service: true } : {}) })
    this.audit?.({ kind: 'publisher-add', details: { publisher: handle, base_uri: baseUri, ...(opts.selfService ? { self_service: true } : {}) } })
    return this.response(this.store.publisher(handle)!)
  }

  /**
   * A publisher's new identity certificate (issue 25: its identity key roll). The previous one is accepted on the RFC
   * 8181 endpoint until the publisher's first message signed with the new one (in memory: at most until a restart).
   */
  publisherIdCertUpdate(handle: string, idCert: Uint8Array): void {
    const old = this.publisher(handle)
    if (Buffer.from(old.idCert).equals(Buffer.from(idCert))) return
    this.store.updatePublisherIdCert(handle, idCert)
    this.endpoint.idCertReplaced(handle, old.idCert)
    this.d.log.info('publisher identity certificate updated', { publisher: handle })
    this.audit?.({ kind: 'publisher-id-cert-update', details: { publisher: handle } })
  }

  /** POST /api/v1/pubd/publishers/{publisher}/id_cert: the publisher's new identity certificate (base64 DER), checked. */
  publisherIdCertSet(handleText: string, idCert: string): void {
    this.publisherIdCertUpdate(pathHandle(handleText), fromBase64(checkIdCert(idCert, this.d.now())))
  }

  publisherRemove(handle: string, why?: string): void {
    this.publisher(handle)
    const withdrawn = this.store.removePublisher(handle)
    this.d.log[why ? 'warn' : 'info']('publisher removed', { publisher: handle, withdrawn, ...(why ? { why } : {}) })
    this.audit?.({ kind: 'publisher-remove', details: { publisher: handle, withdrawn, ...(why ? { why } : {}) } })
    this.d.output.changed()
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
    const over = this.quotas.overQuota(publisher, query.pdus, plan.changes, this.d.now().getTime())
    if (over.length) return { type: 'error_reply', errors: over }
    if (plan.changes.length || replay) {
      let seq: number | undefined
      try {
        seq = this.store.applyChanges(handle, plan.changes, this.d.now(), replay)
      } catch (e) {
        throw storageFault(e) ?? e
      }
      if (plan.changes.length) this.d.output.changed(seq, handle)
    }
    return { type: 'success' }
  }

  /** Resolves when everything accepted so far is written to RRDP and rsync (the CA code's EmbeddedRepository). */
  flushed(): Promise<void> {
    return this.d.output.flushed()
  }

  notificationUri(): string {
    return this.d.output.notificationUri()
  }

  private response(p: Publisher): RepositoryResponse {
    return {
      publisherHandle: p.handle,
      serviceUri: `${this.d.config.serviceUri}rfc8181/${p.handle}/`,
      siaBase: p.baseUri,
      rrdpNotificationUri: this.d.output.notificationUri(),
      idCert: this.d.codec.idCert,
    }
  }
}
