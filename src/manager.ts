/**
 * The one facade of svcd's business logic (style.md §1, Krill's KrillManager): HTTP handlers make one call here.
 * Owns `now`, transactions and retries. Methods are named `ca<Noun><Verb>`, mirroring routes; the publication
 * server's (`pubd<Noun><Verb>`, rfc8181, rrdpFile) are app/pubd/publication-service.ts's.
 */
import {
  childRequestJson, parentResponseJson, MAX_HISTORY_ROWS,
  type AddChildJson, type BulkIssuesJson, type CaIssuesJson, type CaList, type CertAuthInfo, type ChildInfoJson, type ChildRequestJson, type CommandDetailsJson,
  type CommandHistoryJson, type ParentContactJson, type ParentResponseJson, type ParentStatusJson, type RepoInfoJson,
  type RepoStatusJson, type RoaDeltaJson, type UpdateChildJson,
} from './api/cas.js'
import { publisherRequestJson, type PublisherRequestJson } from './api/pubd.js'
import type { ErrorBody, ReadyJson, ServerInfo } from './api/status.js'
import { caPath, checkChild, checkIdCert, childRequestInput, parentInput, repoInput } from './app/api-inputs.js'
import { CaManager } from './app/ca-manager.js'
import { updown } from './app/ca-parents.js'
import { checkRepoIdentity, repoList } from './app/ca-repo.js'
import { CaServices } from './app/ca-services.js'
import { RoutesView, type RoutesPage } from './app/ca-routes-view.js'
import { caIssues, certAuthInfo, childInfo, exchangeJson, historyDetailsJson, historyJson, parentContact, parentStatus, repoInfo } from './app/ca-views.js'
import type { PublicationService } from './app/pubd/publication-service.js'
import type { ParentInfo } from './ca/state.js'
import type { Config } from './config.js'
import type { Signer } from './crypto/signer.js'
import { AppError, reasonOf } from './errors.js'
import type { Logger } from './log.js'
import { decodeCert } from './objects/cert.js'
import { encodeChildRequest, encodeParentResponse, encodePublisherRequest, type ParentResponse } from './protocol/idexchange.js'
import { ResourceSet } from './resources/resource-set.js'
import { Scheduler } from './scheduler.js'
import type { Db } from './store/db.js'
import { propertyStore } from './store/properties.js'
import { createTrustAnchor, talText, TA_HANDLE, TESTBED_HANDLE } from './ta/testbed.js'
import { fromBase64, toBase64 } from './util/base64.js'
import { VERSION } from './version.js'
import type { PropertyStore, Task, TaskStore } from './store/interfaces.js'
import { SqliteTaskStore } from './store/task-store.js'

export interface ManagerDeps {
  config: Config
  db: Db
  log: Logger
  /** The clock; tests inject a fixed or shifted one. */
  now?: () => Date
  /** The embedded publication server, when [repository] is enabled. */
  pub?: PublicationService
  signer: Signer
}

export class Manager {
  readonly config: Config
  private readonly db: Db
  private readonly log: Logger
  private readonly now: () => Date
  private readonly started: Date
  private readonly properties: PropertyStore
  private readonly pub: PublicationService | undefined
  readonly cas: CaManager
  private readonly svc: CaServices
  private readonly routes: RoutesView
  readonly scheduler: Scheduler

  constructor(deps: ManagerDeps) {
    this.config = deps.config
    this.db = deps.db
    this.log = deps.log
    this.now = deps.now ?? (() => new Date())
    this.started = this.now()
    this.properties = propertyStore(this.db)
    this.pub = deps.pub
    this.svc = new CaServices({ config: deps.config, db: deps.db, signer: deps.signer, log: deps.log, now: this.now, pub: deps.pub })
    this.cas = new CaManager(this.svc)
    this.routes = new RoutesView(this.svc)
    this.scheduler = new Scheduler({
      tasks: new SqliteTaskStore(this.db),
      run: (task) => this.runTask(task),
      retryAt: (task, now) => now + Math.min(this.config.timing.retry_seconds * 1000 * 2 ** Math.min(task.attempts, 10), this.config.timing.parent_refresh_seconds * 1000),
      now: () => this.now().getTime(),
      log: this.log,
    })
    this.recordVersion()
  }

  /** Start background work: the repository writers and rsyncd. */
  async start(): Promise<void> {
    await this.pub?.start()
    if (this.config.testbed.enabled) await this.ensureTestbed()
    // Resume: every CA brings its objects and repository up to date (renewals due while stopped happen now) as a
    // task due now, so the scheduler spreads the work over its slots after start-up; and every task is there
    // (created if missing: a CA made by an older version, or a task lost). One transaction for all of them.
    const now = this.now().getTime()
    this.db.transaction(() => {
      for (const ca of this.svc.cas.handles()) {
        this.scheduler.schedule('republish', ca, '', now, { earlier: true })
        for (const p of Object.keys(this.svc.state(ca).parents)) this.scheduler.schedule('sync-parent', ca, p, now + this.refreshDelay(true), { earlier: true })
      }
    })
    this.scheduler.start()
  }

  /** A scheduled task (scheduler.ts): run it and say when it is next due. */
  private async runTask(task: Task): Promise<number | undefined> {
    if (!this.svc.cas.exists(task.ca)) return undefined
    if (task.kind === 'republish') {
      await this.cas.publishNow(task.ca)
      const repo = this.svc.status.get(task.ca, 'repo', 'repo')
      if (repo?.result === 'failure') throw new Error(`repository sync failed: ${repo.msg}`)
      return this.cas.nextRepublish(task.ca)
    }
    if (!this.svc.state(task.ca).parents[task.arg]) return undefined
    await this.cas.syncParent(task.ca, task.arg)
    return this.now().getTime() + this.refreshDelay(false)
  }

  /** The parent refresh interval with random jitter (design.md: thousands of CAs must not stampede a parent). */
  private refreshDelay(atStart: boolean): number {
    const t = this.config.timing
    const jitter = Math.random() * t.parent_refresh_jitter_seconds * 1000
    return atStart ? Math.min(jitter, 60_000) : t.parent_refresh_seconds * 1000 + jitter
  }

  /** [testbed]: CA `ta` (self-signed, all resources) and CA `testbed` under it, created once. */
  private async ensureTestbed(): Promise<void> {
    if (!this.svc.cas.exists(TA_HANDLE)) {
      await this.cas.add(TA_HANDLE, { ta: (s) => createTrustAnchor(s, this.svc.signer, this.config.service_uri, this.now(), this.svc.random) })
    }
    if (!this.svc.cas.exists(TESTBED_HANDLE)) {
      await this.cas.add(TESTBED_HANDLE)
      const testbed = this.svc.state(TESTBED_HANDLE)
      await this.caChildAdd(TA_HANDLE, { handle: TESTBED_HANDLE, resources: ResourceSet.all().toJSON(), id_cert: testbed.idCert })
      await this.caParentAdd(TESTBED_HANDLE, { json: { handle: TA_HANDLE, response: this.caChildContact(TA_HANDLE, TESTBED_HANDLE) } })
      // Ready before svcd answers /health: testbed certified and both CAs published.
      await this.cas.parentsIdle()
      for (const ca of [TA_HANDLE, TESTBED_HANDLE]) await this.cas.publishNow(ca)
      this.log.info('testbed created: trust anchor ta with CA testbed under it', { tal: `${this.config.service_uri}ta/ta.tal` })
    }
  }

  /** The TAL of the embedded trust anchor (RFC 8630), or undefined without [testbed]. */
  taTal(): string | undefined {
    const ta = this.svc.cas.load(TA_HANDLE)?.state.ta
    return ta && talText(ta, decodeCert(fromBase64(ta.certDer)).spki)
  }

  taCert(): Uint8Array | undefined {
    const ta = this.svc.cas.load(TA_HANDLE)?.state.ta
    return ta && fromBase64(ta.certDer)
  }

  /** Version and start time (krill-reference.md §1.1 `info`: unix seconds). */
  serverInfo(): ServerInfo {
    return { version: VERSION, started: Math.floor(this.started.getTime() / 1000) }
  }

  /** Health as seen by the service itself: the database answers. */
  health(): boolean {
    return this.db.version() > 0
  }

  /**
   * GET /ready (issue 10): ready when the store answers and the publication server's RRDP and rsync output hold
   * everything accepted (or are catching up without a failure); otherwise the problems, labels and args only.
   */
  ready(): ReadyJson {
    let alive = false
    try {
      alive = this.health()
    } catch {
      // A store that throws is not ready; /health says the same with a 500.
    }
    const down = new AppError('sys-store', { reason: 'the database does not answer' })
    const problems: ErrorBody[] = alive ? [] : [{ label: down.label, msg: down.message, args: down.args }]
    problems.push(...(this.pub?.outputProblems(false) ?? []))
    return problems.length ? { ready: false, problems } : { ready: true }
  }

  /** Stop background work; called on shutdown before the database closes. */
  async shutdown(): Promise<void> {
    await this.scheduler.stop()
    await this.cas.stop()
    await this.pub?.stop()
    this.log.debug('manager stopped')
  }

  //------------ CAs (krill-reference.md §1.1 "CA lifecycle") ----------------------------------------------------

  caList(): CaList {
    return { cas: this.svc.cas.handles().map((handle) => ({ handle })) }
  }

  async caAdd(handle: string): Promise<void> {
    await this.cas.add(handle)
    this.scheduler.schedule('republish', handle, '', this.cas.nextRepublish(handle))
  }

  caShow(ca: string): CertAuthInfo {
    return certAuthInfo(this.svc.state(caPath(ca)), this.svc.objects.load(ca))
  }

  async caDelete(ca: string): Promise<void> {
    this.svc.state(caPath(ca))
    await this.cas.delete(ca)
    this.routes.forget(ca)
    new SqliteTaskStore(this.db).removeCa(ca)
  }

  caChildRequest(ca: string): ChildRequestJson {
    const s = this.svc.state(caPath(ca))
    return childRequestJson({ childHandle: s.handle, idCert: fromBase64(s.idCert) })
  }

  caChildRequestXml(ca: string): string {
    const s = this.svc.state(caPath(ca))
    return encodeChildRequest({ childHandle: s.handle, idCert: fromBase64(s.idCert) })
  }

  caPublisherRequest(ca: string): PublisherRequestJson {
    const s = this.svc.state(caPath(ca))
    return publisherRequestJson({ publisherHandle: s.handle, idCert: fromBase64(s.idCert) })
  }

  caPublisherRequestXml(ca: string): string {
    const s = this.svc.state(caPath(ca))
    return encodePublisherRequest({ publisherHandle: s.handle, idCert: fromBase64(s.idCert) })
  }

  //------------ Parents ------------------------------------------------------------------------------------------

  /** Add (or, with `update`, replace) a parent from an RFC 8183 parent response, then sync with it at once. */
  async caParentAdd(ca: string, input: { json: unknown } | { xml: string }, opts: { name?: string; update?: boolean } = {}): Promise<void> {
    const s = this.svc.state(caPath(ca))
    const { name, response } = parentInput(input, opts.name, this.now())
    const parent: ParentInfo = { name, parentHandle: response.parentHandle, childHandle: response.childHandle, serviceUri: response.serviceUri, idCert: toBase64(response.idCert) }
    const exists = name in s.parents
    if (opts.update && !exists) throw new AppError('ca-parent-unknown', { ca, parent: name })
    // Ask the parent first (a real RFC 6492 list): a response for another child, or an unreachable parent, is
    // refused here and nothing changes.
    try {
      const r = await updown(this.svc, s, parent, { type: 'list' }, this.cas.local)
      if (r.type !== 'list_response') throw new Error(`the parent answered a list query with '${r.type}'`)
    } catch (e) {
      throw new AppError('ca-parent-issue', { ca, parent: name, reason: reasonOf(e) })
    }
    await this.cas.run(ca, { type: exists && opts.update ? 'parent-update' : 'parent-add', parent })
    this.cas.syncParentLater(ca, name)
    this.scheduler.schedule('sync-parent', ca, name, this.now().getTime() + this.refreshDelay(false))
  }

  caParentContact(ca: string, parent: string): ParentContactJson {
    const s = this.svc.state(caPath(ca))
    if (!s.parents[parent]) throw new AppError('ca-parent-unknown', { ca, parent })
    return parentContact(s, parent)
  }

  caParentStatuses(ca: string): Record<string, ParentStatusJson> {
    const s = this.svc.state(caPath(ca))
    return Object.fromEntries(Object.keys(s.parents).sort().map((p) => [p, parentStatus(s, p, this.svc.status.get(ca, 'parent', p))]))
  }

  async caParentRemove(ca: string, parent: string): Promise<void> {
    const s = this.svc.state(caPath(ca))
    if (!s.parents[parent]) throw new AppError('ca-parent-unknown', { ca, parent })
    await this.cas.revokeAll(ca, parent)
    await this.cas.run(ca, { type: 'parent-remove', name: parent })
    this.svc.status.remove(ca, 'parent', parent)
    this.scheduler.unschedule('sync-parent', ca, parent)
  }

  /** Sync with all parents now (used by `parents add` waiters, bulk refresh and tests). */
  async caSyncParents(ca: string): Promise<void> {
    for (const p of Object.keys(this.svc.state(caPath(ca)).parents)) await this.cas.syncParent(ca, p).catch(() => undefined)
  }

  //------------ Children -----------------------------------------------------------------------------------------

  async caChildAdd(ca: string, body: AddChildJson | { handle: string; resources: AddChildJson['resources']; xml: string }): Promise<ParentResponseJson> {
    this.svc.state(caPath(ca))
    const handle = checkChild(body.handle)
    const idCert = 'xml' in body ? childRequestInput(body.xml, this.now()) : checkIdCert(body.id_cert, this.now())
    const resources = ResourceSet.parse(body.resources ?? {}).toJSON()
    await this.cas.run(ca, { type: 'child-add', handle, idCert, resources })
    return parentResponseJson(this.parentResponseFor(ca, handle))
  }

  caChildContact(ca: string, child: string): ParentResponseJson {
    return parentResponseJson(this.parentResponseFor(ca, child))
  }

  caChildContactXml(ca: string, child: string): string {
    return encodeParentResponse(this.parentResponseFor(ca, child))
  }

  caChildInfo(ca: string, child: string): ChildInfoJson {
    const s = this.svc.state(caPath(ca))
    if (!s.children[child]) throw new AppError('ca-child-unknown', { ca, child })
    return childInfo(s, child)
  }

  async caChildUpdate(ca: string, child: string, body: UpdateChildJson): Promise<void> {
    this.svc.state(caPath(ca))
    const update = { type: 'child-update' as const, handle: child, ...(body.id_cert !== undefined ? { idCert: checkIdCert(body.id_cert, this.now()) } : {}), ...(body.resources ? { resources: ResourceSet.parse(body.resources).toJSON() } : {}) }
    await this.cas.run(ca, update)
    this.cas.syncLocalChildren(ca, child)
  }

  async caChildRemove(ca: string, child: string): Promise<void> {
    this.svc.state(caPath(ca))
    await this.cas.run(ca, { type: 'child-remove', handle: child })
    this.cas.syncLocalChildren(ca, child)
  }

  /** POST /rfc6492/{ca}: the signed answer to a child's CMS-wrapped RFC 6492 message. */
  rfc6492(ca: string, body: Uint8Array): Promise<Uint8Array> {
    this.svc.state(caPath(ca))
    return this.cas.rfc6492(ca, body)
  }

  //------------ ROAs ---------------------------------------------------------------------------------------------

  /** A page of the configured ROAs in listing order (api/cas.ts ROAS_PAGE_DEFAULT), with the total. */
  caRoas(ca: string, page: { offset: number; limit: number }): Promise<RoutesPage> {
    return this.routes.page(caPath(ca), page.offset, page.limit)
  }

  async caRoasUpdate(ca: string, delta: RoaDeltaJson): Promise<void> {
    this.known(ca)
    const norm = (r: RoaDeltaJson['added'][number]) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length ?? Number(r.prefix.split('/')[1]), ...(r.comment ? { comment: r.comment } : {}) })
    await this.cas.run(ca, { type: 'roas-update', added: (delta.added ?? []).map(norm), removed: (delta.removed ?? []).map(norm) })
  }

  //------------ History (spec §2.9, krill-reference.md §4) ----------------------------------------------------------

  caHistory(ca: string, q: { rows: number; offset: number; after?: number; before?: number; full: boolean }): CommandHistoryJson {
    this.known(ca)
    if (!Number.isInteger(q.rows) || q.rows < 1 || q.rows > MAX_HISTORY_ROWS) throw new AppError('api-invalid-query', { name: 'rows', reason: `must be 1 to ${MAX_HISTORY_ROWS}` })
    if (!Number.isInteger(q.offset) || q.offset < 0) throw new AppError('api-invalid-query', { name: 'offset', reason: 'must be 0 or more' })
    const iso = (s: number | undefined) => (s === undefined ? undefined : new Date(s * 1000).toISOString())
    return historyJson(q.offset, this.svc.cas.history(ca, { rows: q.rows, offset: q.offset, after: iso(q.after), before: iso(q.before), full: q.full }))
  }

  caHistoryDetails(ca: string, key: string): CommandDetailsJson {
    this.known(ca)
    const r = /^[1-9][0-9]{0,15}$/.test(key) ? this.svc.cas.command(ca, Number(key)) : undefined
    if (!r) throw new AppError('ca-history-unknown', { ca, key })
    return historyDetailsJson(r)
  }

  //------------ Key roll and bulk ----------------------------------------------------------------------------------

  /** RFC 6489 key roll, phase 1: a new key in every active class, certified by the parents (asked at once). */
  async caKeyRollInit(ca: string): Promise<void> {
    this.svc.state(caPath(ca))
    await this.cas.run(ca, { type: 'keyroll-init' })
    for (const p of Object.keys(this.svc.state(ca).parents)) this.cas.syncParentLater(ca, p)
  }

  /** RFC 6489 key roll, phase 2: the new keys become current (all objects re-issued); the old keys are revoked. */
  async caKeyRollActivate(ca: string): Promise<void> {
    this.svc.state(caPath(ca))
    await this.cas.run(ca, { type: 'keyroll-activate' })
    await this.cas.publishNow(ca)
    for (const p of Object.keys(this.svc.state(ca).parents)) this.cas.syncParentLater(ca, p)
  }

  /** Every CA re-issues what is due and syncs with its repository (bulk publish). */
  async bulkPublish(): Promise<void> {
    for (const ca of this.svc.cas.handles()) await this.cas.publishNow(ca)
  }

  /** Every CA asks its parents for updates (bulk refresh). */
  async bulkRefresh(): Promise<void> {
    for (const ca of this.svc.cas.handles()) for (const p of Object.keys(this.svc.state(ca).parents)) this.cas.syncParentLater(ca, p)
  }

  /** Every CA syncs with its repository (bulk sync, spec §4 `/v1/bulk/cas/sync/repo`). */
  async bulkSyncRepo(): Promise<void> {
    for (const ca of this.svc.cas.handles()) await this.cas.publishNow(ca)
  }

  async caSyncRepo(ca: string): Promise<void> {
    this.svc.state(caPath(ca))
    await this.cas.publishNow(ca)
  }

  //------------ Repository and issues ----------------------------------------------------------------------------

  caRepo(ca: string): RepoInfoJson {
    return repoInfo(this.svc.state(caPath(ca)))
  }

  /**
   * Change the CA's repository (spec §3 rule 1, in this order): check the new one is reachable and we are authorised
   * there (a real RFC 8181 `list`); regenerate all objects under the new jail and publish them there; ask all parents
   * for certificates with the new SIA; once received, clean up the old repository (best effort). Nothing changes
   * when the check fails.
   */
  async caRepoUpdate(ca: string, input: { json: unknown } | { xml: string }): Promise<void> {
    const s = this.svc.state(caPath(ca))
    const response = repoInput(input, this.now())
    const embedded = !!this.pub && response.serviceUri.startsWith(`${this.config.service_uri}rfc8181/`)
    const repo = { embedded, publisherHandle: response.publisherHandle, serviceUri: response.serviceUri, siaBase: response.siaBase, rrdpNotificationUri: response.rrdpNotificationUri ?? '', serverIdCert: toBase64(response.idCert) }
    if (JSON.stringify(s.repo) === JSON.stringify(repo)) throw new AppError('ca-repo-same', { ca })
    try {
      checkRepoIdentity(this.svc, s, response, embedded)
      await repoList(this.svc, s, repo)
    } catch (e) {
      throw new AppError('ca-repo-issue', { ca, uri: repo.serviceUri, reason: reasonOf(e) })
    }
    await this.cas.run(ca, { type: 'repo-update', repo })
    await this.cas.publishNow(ca)
    for (const p of Object.keys(this.svc.state(ca).parents)) this.cas.syncParentLater(ca, p)
  }

  /** What the repository holds for the CA, from a real RFC 8181 `list` query (spec §2.6), or `ca-repo-issue`. */
  async caRepoStatus(ca: string): Promise<RepoStatusJson> {
    const s = this.svc.state(caPath(ca))
    if (!s.repo) throw new AppError('repo-not-set', { ca })
    let held: Map<string, string>
    try {
      held = await repoList(this.svc, s, s.repo)
    } catch (e) {
      throw new AppError('ca-repo-issue', { ca, uri: s.repo.serviceUri, reason: reasonOf(e) })
    }
    const st = this.svc.status.get(ca, 'repo', 'repo')
    const published = [...held].map(([uri, hash]) => ({ uri, hash })).sort((a, b) => (a.uri < b.uri ? -1 : 1))
    return { last_exchange: exchangeJson(st), last_success: st?.lastSuccess ?? null, published }
  }

  caIssues(ca: string): CaIssuesJson {
    this.known(ca)
    return caIssues(this.svc.status.all(ca))
  }

  /**
   * Issues of all CAs that have any (Krill's shape), and the embedded publication server's own problems (output behind,
   * a publisher whose files cannot be written) under `publication_server` when there are any.
   */
  bulkIssues(): BulkIssuesJson {
    const out: Record<string, CaIssuesJson> = {}
    for (const ca of this.svc.cas.handles()) {
      const i = caIssues(this.svc.status.all(ca))
      if (i.repo_issue || i.parent_issues.length || i.objects_issue) out[ca] = i
    }
    const pubd = this.pub?.outputProblems(true) ?? []
    return pubd.length ? { cas: out, publication_server: pubd } : { cas: out }
  }

  /** Wait until a CA's pending publication is done (tests and `--wait` style operations). */
  async caFlushed(ca: string): Promise<void> {
    await this.cas.parentsIdle()
    await this.cas.flushed(ca)
    await this.pub?.flushed()
  }

  //------------ helpers ------------------------------------------------------------------------------------------

  /**
   * 404 ca-unknown unless the CA exists, without reading its state: the state is parsed from its snapshot on every
   * read, which takes a few hundred milliseconds of the event loop for a CA with 100,000 ROAs (issue 10).
   */
  private known(ca: string): void {
    const handle = caPath(ca)
    if (!this.svc.cas.exists(handle)) throw new AppError('ca-unknown', { ca: handle })
  }

  private parentResponseFor(ca: string, child: string): ParentResponse {
    const s = this.svc.state(caPath(ca))
    if (!s.children[child]) throw new AppError('ca-child-unknown', { ca, child })
    return { parentHandle: s.handle, childHandle: child, serviceUri: `${this.config.service_uri}rfc6492/${encodeURIComponent(s.handle)}`, idCert: fromBase64(s.idCert) }
  }

  private recordVersion(): void {
    this.db.transaction(() => {
      if (!this.properties.get('created')) this.properties.set('created', this.now().toISOString())
      this.properties.set('version', VERSION)
    })
  }
}

