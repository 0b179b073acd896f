/**
 * CAs (krill-reference.md §1.1 "CA lifecycle", "ROAs", "History", "Key roll", bulk operations): create and delete
 * CAs with their identity and their registration in the embedded repository, show them, their RFC 8183 requests,
 * ROAs, history, key rolls, issues. Commands go through CaCommands; what follows them (publication, parent syncs) is
 * decided by their events (follow-ups.ts, applied by CaFollowUps).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import {
  childRequestJson, MAX_HISTORY_ROWS, ROAS_PAGE_MAX, type AspaDefinitionJson, type BgpAnalysisSuggestion, type BulkIssuesJson, type CaIssuesJson, type CaList, type CertAuthInfo, type ChildRequestJson, type CommandDetailsJson,
  type CommandHistoryJson, type ConfiguredRoa, type RoaDeltaJson, type RoasPageJson, type RoasQuery,
} from '../../api/cas.js'
import type { CaSort, CasPageJson, ListQuery } from '../../api/paging.js'
import type { AspaDefinitionUpdatesJson, AspaProvidersUpdateJson } from '../../api/aspas.js'
import type { BgpSecCsrInfoJson, BgpSecDefinitionUpdatesJson } from '../../api/bgpsec.js'
import { aspaConfigs } from '../../ca/aspas.js'
import { bgpSecDefinitions } from '../../ca/bgpsec.js'
import { heldResources } from '../../ca/children.js'
import type { BgpAnnouncements } from './bgp-analysis.js'
import { inThreadAnalyser, type JsonChunks, type RouteAnalyser } from '../bgp/analyser.js'
import { publisherRequestJson, type PublisherRequestJson } from '../../api/pubd.js'
import type { ErrorBody } from '../../api/status.js'
import { offeredIdCert } from '../../ca/id-roll.js'
import { initialState } from '../../ca/cert-auth.js'
import type { CaState } from '../../ca/state.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError, reasonOf } from '../../errors.js'
import type { Logger } from '../../log.js'
import { createIdCert } from '../../protocol/id-cert.js'
import { encodeChildRequest, encodePublisherRequest } from '../../protocol/idexchange.js'
import type { CaObjectsStore, CaStatusStore, CaStore } from '../../store/interfaces.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import { compareText, pageOf } from '../../util/paging.js'
import { caHandle } from '../../util/handle.js'
import type { CaCommands } from './ca-commands.js'
import type { CaFollowUps } from './ca-follow-ups.js'
import type { CaPublisher } from './ca-publisher.js'
import type { ChildService } from './child-service.js'
import { caPath } from './inputs.js'
import type { MessageSigners } from './message-signers.js'
import type { ParentService } from './parent-service.js'
import type { EmbeddedRepository, TaskScheduling } from './ports.js'
import type { RepoClient } from './repo-client.js'
import { roasAfterDelta, suggestionScope } from './roa-analysis.js'
import type { RoasPage, RoasView } from './roas-view.js'
import { caIssues, certAuthInfo, historyDetailsJson, historyJson } from './views.js'
import { caKeysJson } from './keys-view.js'
import type { CaKeysJson } from '../../api/signers.js'
import type { QuarantinedJson } from '../../api/quarantine.js'
import { actorFields } from '../shared/acting.js'

/** Yield to the event loop between slices of a long computation (the BGP analyses of many ROAs). */
const pause = () => yieldToLoop()

export interface CaServiceDeps {
  commands: CaCommands
  publisher: CaPublisher
  /** What follows each command (caFlushed waits for the follow-ups that wait for a publication). */
  followUps: Pick<CaFollowUps, 'idle'>
  parents: ParentService
  children: ChildService
  repo: RepoClient
  roas: RoasView
  signers: MessageSigners
  cas: Pick<CaStore, 'history' | 'command'>
  objects: CaObjectsStore
  status: CaStatusStore
  tasks: TaskScheduling
  /** The embedded publication server, when svcd runs one. */
  publication: EmbeddedRepository | undefined
  /** The publication server's own problems, for bulk issues. */
  publicationProblems: () => ErrorBody[]
  /** The signers that cannot sign now (sys-signer-*), for bulk issues (issue 25). */
  signerProblems?: () => ErrorBody[]
  /** Issue 26 §5: what was set aside (the quarantine) and the stalls (the watchdog), for bulk issues. */
  queues?: { quarantined: () => QuarantinedJson[]; stalled: () => ErrorBody[] }
  signer: Signer
  now: () => Date
  log: Logger
  /** The BGP announcements loaded last (RIS whois dumps), if any: the BGP analysis (app/bgp/ris-service.ts). */
  bgp?: () => BgpAnnouncements | undefined
  /** Where the analysis runs (svcd: the analysis worker, app/bgp/analysis-pool.ts); default: here, in slices, against `bgp`. */
  analyser?: RouteAnalyser
  /** Change control (plan-service.ts): direct ROA/ASPA updates refused under four-eyes; a deleted CA's plans forgotten. */
  changeControl?: { requireNoFourEyes(ca: string): void; forget(ca: string): void }
  /** A key roll into a named signer may start (app/signers/signer-service.ts requireReady): throws signer-unknown or the signer's problem. */
  signerReady?: (name: string) => void
}

/** Which CAs a call may list or touch (the caller's role decides, at the HTTP edge: api/access.ts roleSeesCa). */
export type CaFilter = (ca: string) => boolean
const everyCa: CaFilter = () => true

export class CaService {
  private readonly analyser: RouteAnalyser

  constructor(private readonly d: CaServiceDeps) {
    this.analyser = d.analyser ?? inThreadAnalyser(() => d.bgp?.(), pause)
  }

  /**
   * Krill's list; with a page query (api/paging.ts), a page of it. Only the CAs `sees` keeps (the caller's role may be
   * limited to some CAs; the HTTP edge passes the filter): the paged total counts those.
   */
  caList(page?: undefined, sees?: CaFilter): CaList
  caList(page: ListQuery<CaSort>, sees?: CaFilter): CasPageJson
  caList(page?: ListQuery<CaSort>, sees: CaFilter = everyCa): CaList | CasPageJson {
    const cas = this.d.commands.handles().filter((ca) => sees(ca)).map((handle) => ({ handle }))
    if (!page) return { cas }
    const p = pageOf(cas, page, { text: (c) => c.handle, compare: { handle: (a, b) => compareText(a.handle, b.handle) } })
    return { total: p.total, offset: page.offset, limit: page.limit, cas: p.items }
  }

  async caAdd(handle: string): Promise<void> {
    await this.create(handle)
  }

  /**
   * Create a CA: identity key and certificate; registered in the embedded repository when there is one. Its first
   * publication and its renewal task follow (follow-ups.ts).
   */
  async create(handleText: string, opts: { ta?: (state: CaState) => Promise<Partial<CaState>> } = {}): Promise<string> {
    let handle: string
    try {
      handle = caHandle(handleText)
    } catch (e) {
      throw new AppError('ca-handle-invalid', { reason: reasonOf(e) })
    }
    const d = this.d
    await d.commands.locked(handle, async () => {
      if (d.commands.exists(handle)) throw new AppError('ca-duplicate', { ca: handle })
      const keyId = await d.signer.createKey()
      const idCert = createIdCert(d.signer.signingKey(keyId), d.now())
      let state = initialState(handle, keyId, toBase64(idCert))
      if (d.publication) {
        const r = d.publication.publisherAdd({ publisherHandle: handle, idCert })
        state.repo = { embedded: true, publisherHandle: handle, serviceUri: r.serviceUri, siaBase: r.siaBase, rrdpNotificationUri: r.rrdpNotificationUri ?? '', serverIdCert: toBase64(r.idCert) }
      }
      if (opts.ta) state = { ...state, ...(await opts.ta(state)) }
      const summary = { label: 'cmd-ca-init', msg: opts.ta ? `Initialise trust anchor '${handle}'` : `Initialise CA '${handle}'`, args: { ca: handle } }
      d.commands.create({ handle, time: d.now().toISOString(), ...actorFields(), kind: 'ca-init', summary, details: { type: 'ca-init', handle }, effect: { result: 'success', events: [] } }, state)
    })
    d.log.info('CA created', { ca: handle })
    return handle
  }

  caShow(ca: string): CertAuthInfo {
    return certAuthInfo(this.d.commands.state(caPath(ca)), this.d.objects.summaries(ca), (k) => this.d.signer.signerOf?.(k))
  }

  /** GET /api/v1/cas/{ca}/keys: every class's keys with their state, signer and certificate validity. */
  caKeys(ca: string): CaKeysJson {
    return caKeysJson(this.d.commands.state(caPath(ca)), (k) => this.d.signer.signerOf?.(k))
  }

  /** Delete a CA: revoke its children's certificates, withdraw its objects, tell its parents (best effort). */
  async caDelete(ca: string): Promise<void> {
    const d = this.d
    const handle = caPath(ca)
    d.commands.state(handle)
    await d.parents.revokeAll(handle)
    await d.children.removeAll(handle)
    await d.publisher.forget(handle)
    await d.publisher.locked(handle, async () => {
      const state = d.commands.state(handle)
      if (state.repo) await d.publisher.sync(state, [])
      // Only the CA's own publisher goes with it (identity-checked): never one its repository settings merely name.
      for (const repo of [state.repo, state.oldRepo]) if (repo?.embedded) this.releasePublisher(state, repo.publisherHandle)
    })
    await d.commands.locked(handle, () => d.commands.remove(handle))
    d.signers.forget(handle)
    d.roas.forget(handle)
    d.changeControl?.forget(handle)
    d.tasks.unscheduleCa(handle)
    d.log.info('CA deleted', { ca: handle })
  }

  /** Remove an embedded publisher when it is the CA's own (its identity certificate); otherwise leave it and say so. */
  releasePublisher(state: CaState, publisher: string): void {
    if (!this.d.publication?.findPublisher(publisher)) return
    try {
      this.d.repo.ownPublisher(state, publisher)
    } catch (e) {
      this.d.log.warn("publisher left in place: it is not this CA's", { ca: state.handle, publisher, reason: reasonOf(e) })
      return
    }
    this.d.publication.publisherRemove(publisher)
  }

  caChildRequest(ca: string): ChildRequestJson {
    const s = this.d.commands.state(caPath(ca))
    return childRequestJson({ childHandle: s.handle, idCert: fromBase64(offeredIdCert(s)) })
  }

  caChildRequestXml(ca: string): string {
    const s = this.d.commands.state(caPath(ca))
    return encodeChildRequest({ childHandle: s.handle, idCert: fromBase64(offeredIdCert(s)) })
  }

  caPublisherRequest(ca: string): PublisherRequestJson {
    const s = this.d.commands.state(caPath(ca))
    return publisherRequestJson({ publisherHandle: s.handle, idCert: fromBase64(offeredIdCert(s)) })
  }

  caPublisherRequestXml(ca: string): string {
    const s = this.d.commands.state(caPath(ca))
    return encodePublisherRequest({ publisherHandle: s.handle, idCert: fromBase64(offeredIdCert(s)) })
  }

  //------------ ROAs ---------------------------------------------------------------------------------------------

  /** A page of the configured ROAs in listing order (api/cas.ts ROAS_PAGE_DEFAULT), with the total. */
  caRoas(ca: string, page: { offset: number; limit: number }): Promise<RoasPage> {
    return this.d.roas.page(caPath(ca), page.offset, page.limit)
  }

  /** GET …/routes/page: the console's ROA table, searched, sorted and paged on the server (api/cas.ts RoasQuery). */
  caRoasQuery(ca: string, q: RoasQuery): Promise<RoasPageJson> {
    return this.d.roas.query(caPath(ca), q)
  }

  /** GET …/routes/analysis/full: every configured ROA and every announcement in the CA's resources, with its state (bgp-analysis.ts), as JSON pieces. */
  async caRoutesAnalysis(ca: string): Promise<JsonChunks> {
    return this.analyser.reportJson(await this.allRoas(ca), heldResources(this.d.commands.state(ca)))
  }

  /** GET (or POST with a resource set: only that part) …/routes/analysis/suggest: Krill's suggestion; {} without BGP data. */
  async caRoutesSuggest(ca: string, scope?: Parameters<typeof suggestionScope>[0]): Promise<BgpAnalysisSuggestion> {
    return this.analyser.suggest(...(await this.suggestInput(ca, scope)))
  }

  /** caRoutesSuggest as JSON pieces (the HTTP answer: for 100,000 ROAs tens of MB, never one string). */
  async caRoutesSuggestJson(ca: string, scope?: Parameters<typeof suggestionScope>[0]): Promise<JsonChunks> {
    return this.analyser.suggestJson(...(await this.suggestInput(ca, scope)))
  }

  private async suggestInput(ca: string, scope?: Parameters<typeof suggestionScope>[0]) {
    this.known(ca)
    const limit = scope === undefined ? undefined : suggestionScope(scope)
    return [await this.allRoas(ca), heldResources(this.d.commands.state(ca)), limit] as const
  }

  /** POST …/routes/analysis/dryrun: the analysis (JSON pieces) of the ROAs a delta would leave (refused as the update refuses it); nothing changes. */
  async caRoutesDryRun(ca: string, delta: RoaDeltaJson): Promise<JsonChunks> {
    const s = this.d.commands.state(caPath(ca))
    return this.analyser.reportJson(await roasAfterDelta(s, delta, this.d.now(), pause), heldResources(s))
  }

  /** Every configured ROA with its objects, in listing order (page by page). */
  private async allRoas(ca: string): Promise<ConfiguredRoa[]> {
    const roas: ConfiguredRoa[] = []
    for (let total = Infinity; roas.length < total; ) {
      const page = await this.d.roas.page(caPath(ca), roas.length, ROAS_PAGE_MAX)
      roas.push(...page.items)
      total = page.items.length === 0 ? roas.length : page.total
    }
    return roas
  }

  //------------ ASPAs (krill-reference.md §1.1 "ASPA") -----------------------------------------------------------

  /** GET …/aspas: the ASPA definitions, customer ascending. */
  caAspas(ca: string): AspaDefinitionJson[] {
    return aspaConfigs(this.d.commands.state(caPath(ca)).aspas).map((c) => ({ customer: c.customer, providers: [...c.providers] }))
  }

  /** POST …/aspas: add or replace definitions and remove customers, all or nothing (ca/aspas.ts). */
  async caAspasUpdate(ca: string, u: AspaDefinitionUpdatesJson): Promise<void> {
    this.known(ca)
    this.d.changeControl?.requireNoFourEyes(ca)
    await this.d.commands.run(ca, { type: 'aspas-update', addOrReplace: u.add_or_replace.map((d) => ({ customer: d.customer, providers: [...d.providers] })), remove: [...u.remove] })
  }

  /** POST …/aspas/as/{customer}: add and remove providers of one customer. */
  async caAspaProvidersUpdate(ca: string, customer: number, u: AspaProvidersUpdateJson): Promise<void> {
    this.known(ca)
    this.d.changeControl?.requireNoFourEyes(ca)
    await this.d.commands.run(ca, { type: 'aspa-providers-update', customer, added: [...u.added], removed: [...u.removed] })
  }

  /** DELETE …/aspas/as/{customer}: remove one customer's definition. */
  caAspaRemove(ca: string, customer: number): Promise<void> {
    return this.caAspasUpdate(ca, { add_or_replace: [], remove: [customer] })
  }

  async caRoasUpdate(ca: string, delta: RoaDeltaJson): Promise<void> {
    this.known(ca)
    this.d.changeControl?.requireNoFourEyes(ca)
    const norm = (r: RoaDeltaJson['added'][number]) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length ?? Number(r.prefix.split('/')[1]), ...(r.comment ? { comment: r.comment } : {}) })
    await this.d.commands.run(ca, { type: 'roas-update', added: (delta.added ?? []).map(norm), removed: (delta.removed ?? []).map(norm) })
  }

  //------------ BGPsec router keys (krill-reference.md §1.1 "BGPsec") -----------------------------------------------

  /** GET …/bgpsec: the router keys, by AS then key identifier. */
  caBgpSecList(ca: string): BgpSecCsrInfoJson[] {
    return bgpSecDefinitions(this.d.commands.state(caPath(ca)).bgpsec).map((d) => ({ asn: d.asn, key_identifier: d.keyId, csr: d.csr }))
  }

  /** POST …/bgpsec: add router keys from their requests and remove others, all or nothing (ca/bgpsec.ts). */
  async caBgpSecUpdate(ca: string, u: BgpSecDefinitionUpdatesJson): Promise<void> {
    this.known(ca)
    await this.d.commands.run(ca, { type: 'bgpsec-update', add: u.add.map((a) => ({ asn: a.asn, csr: a.csr })), remove: [...u.remove] })
  }

  //------------ History (spec §2.9, krill-reference.md §4) ----------------------------------------------------------

  caHistory(ca: string, q: { rows: number; offset: number; after?: number; before?: number; full: boolean; q?: string; order?: 'asc' | 'desc' }): CommandHistoryJson {
    this.known(ca)
    if (!Number.isInteger(q.rows) || q.rows < 1 || q.rows > MAX_HISTORY_ROWS) throw new AppError('api-invalid-query', { name: 'rows', reason: `must be 1 to ${MAX_HISTORY_ROWS}` })
    if (!Number.isInteger(q.offset) || q.offset < 0) throw new AppError('api-invalid-query', { name: 'offset', reason: 'must be 0 or more' })
    const iso = (s: number | undefined) => (s === undefined ? undefined : new Date(s * 1000).toISOString())
    return historyJson(q.offset, this.d.cas.history(ca, { rows: q.rows, offset: q.offset, after: iso(q.after), before: iso(q.before), full: q.full, q: q.q, order: q.order }))
  }

  caHistoryDetails(ca: string, key: string): CommandDetailsJson {
    this.known(ca)
    const r = /^[1-9][0-9]{0,15}$/.test(key) ? this.d.cas.command(ca, Number(key)) : undefined
    if (!r) throw new AppError('ca-history-unknown', { ca, key })
    return historyDetailsJson(r)
  }

  //------------ Key roll and bulk ----------------------------------------------------------------------------------

  /**
   * RFC 6489 key roll, phase 1: a new key in every active class, certified by the parents (asked at once). With
   * `signer`, the new keys are made there (keys move between signers by key roll, issue 25): refused before anything
   * changes when it is not configured (400) or cannot make keys now (503).
   */
  async caKeyRollInit(ca: string, signer?: string): Promise<void> {
    this.d.commands.state(caPath(ca))
    if (signer !== undefined) this.d.signerReady?.(signer)
    await this.d.commands.run(ca, signer === undefined ? { type: 'keyroll-init' } : { type: 'keyroll-init', signer })
  }

  /**
   * RFC 6489 key roll, phase 2: the new keys become current (all objects re-issued; answered once published); the old
   * keys are revoked by the parents, asked after the publication.
   */
  async caKeyRollActivate(ca: string): Promise<void> {
    this.d.commands.state(caPath(ca))
    await (await this.d.commands.run(ca, { type: 'keyroll-activate' })).followUps
  }

  /** Every CA (that `touches` keeps: the caller's) re-issues what is due and syncs with its repository (bulk publish). */
  async bulkPublish(touches: CaFilter = everyCa): Promise<void> {
    for (const ca of this.d.commands.handles().filter((c) => touches(c))) await this.d.publisher.publishNow(ca)
  }

  /** Every CA (that `touches` keeps) asks its parents for updates (bulk refresh). */
  async bulkRefresh(touches: CaFilter = everyCa): Promise<void> {
    for (const ca of this.d.commands.handles().filter((c) => touches(c))) this.d.parents.syncAllLater(ca)
  }

  /** Every CA (that `touches` keeps) syncs with its repository (bulk sync, spec §4 `/v1/bulk/cas/sync/repo`). */
  async bulkSyncRepo(touches: CaFilter = everyCa): Promise<void> {
    await this.bulkPublish(touches) // the same work: publishing always ends with a repository sync
  }

  //------------ Issues -------------------------------------------------------------------------------------------

  caIssues(ca: string): CaIssuesJson {
    this.known(ca)
    return caIssues(this.d.status.all(ca))
  }

  /**
   * Issues of all CAs that have any (Krill's shape), and the embedded publication server's own problems (output behind,
   * a publisher whose files cannot be written) under `publication_server` when there are any, and the signers that
   * cannot sign (a token away, a refused login, a slow token) under `signers` when there are any.
   */
  bulkIssues(opts: { sees?: CaFilter; publicationServer?: boolean } = {}): BulkIssuesJson {
    const out: Record<string, CaIssuesJson> = {}
    const sees = opts.sees ?? everyCa
    for (const ca of this.d.commands.handles().filter((c) => sees(c))) {
      const i = caIssues(this.d.status.all(ca))
      if (i.repo_issue || i.parent_issues.length || i.objects_issue) out[ca] = i
    }
    const pubd = opts.publicationServer === false ? [] : this.d.publicationProblems()
    const signers = this.d.signerProblems?.() ?? []
    const all = opts.publicationServer !== false // svcd-wide items: for callers who see everything (as the publication server)
    const quarantined = all ? (this.d.queues?.quarantined() ?? []) : []
    const stalled = all ? (this.d.queues?.stalled() ?? []) : []
    return { cas: out, ...(pubd.length ? { publication_server: pubd } : {}), ...(signers.length ? { signers } : {}), ...(quarantined.length ? { quarantined } : {}), ...(stalled.length ? { stalled } : {}) }
  }

  /** Wait until a CA's pending publication is done (tests and `--wait` style operations). */
  async caFlushed(ca: string): Promise<void> {
    await this.d.followUps.idle()
    await this.d.parents.idle()
    await this.d.publisher.flushed(ca)
    await this.d.publication?.flushed()
  }

  /** 404 ca-unknown unless the CA exists, without reading its state. */
  private known(ca: string): void {
    const handle = caPath(ca)
    if (!this.d.commands.exists(handle)) throw new AppError('ca-unknown', { ca: handle })
  }
}
