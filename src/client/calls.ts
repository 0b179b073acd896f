/**
 * One function per API endpoint, returning the ApiCall that `svcc` sends (or prints with `--api`). Paths follow
 * the spec's table and krill-reference.md §1.1; names mirror the service methods (caList ↔ CaService.caList).
 */
import type { IdRollInitJson, IdRollJson } from '../api/id-roll.js'
import type { PublisherDetails, PublisherList, PublisherRequestJson, RepoStats, RepositoryResponseJson } from '../api/pubd.js'
import type {
  AddChildJson, AddParentJson, AspaDefinitionJson, BgpAnalysisEntry, BgpAnalysisSuggestion, BulkIssuesJson, CaIssuesJson, CommandDetailsJson, CommandHistoryJson, CaList, CertAuthInfo, ChildInfoJson, ChildRequestJson, ConfiguredRoa, ParentContactJson, ParentResponseJson,
  ParentStatusJson, RepoInfoJson, RepoStatusJson, RoaDeltaJson, UpdateChildJson,
} from '../api/cas.js'
import type { AspaDefinitionUpdatesJson, AspaProvidersUpdateJson } from '../api/aspas.js'
import type { BgpSecCsrInfoJson, BgpSecDefinitionUpdatesJson } from '../api/bgpsec.js'
import type { RscSignedJson, RscSignJson } from '../api/rsc.js'
import type { ClusterJson, LoggedInUser, ServerInfo } from '../api/status.js'
import type { TaKeyRollJson } from '../api/ta.js'
import type { CaKeysJson, SignerListJson } from '../api/signers.js'
import type { AddTokenJson, NewTokenJson, TokenListJson } from '../api/tokens.js'
import type { ResourceSetText } from '../resources/resource-set.js'
import type { RoasPageJson, RoasQuery } from '../api/cas.js'
import type { QuarantinedJson } from '../api/quarantine.js'
import type { CasPageJson, PublishersPageJson } from '../api/paging.js'
import type { AuditPageJson, AuditQueryInput } from '../api/audit.js'
import type { ImportChildJson } from '../api/child-import.js'
import type { AlertsJson, AlertTestJson, AlertTestResultJson } from '../api/alerts.js'
import type { HealthCaJson, HealthCheckJson, HealthPageJson } from '../api/health.js'
import type { ApiCall, HttpMethod } from './api-client.js'

function call<T>(method: HttpMethod, path: string, expect: ApiCall<T>['expect'], body?: unknown): ApiCall<T> {
  return body === undefined ? { method, path, expect } : { method, path, expect, body }
}

/** Path segment encoding for handles (which may contain '/' for RFC 8183 peers). */
export function seg(s: string): string {
  return encodeURIComponent(s)
}

export const calls = {
  info: (): ApiCall<ServerInfo> => call('GET', '/stats/info', 'json'),
  authorized: (): ApiCall<void> => call('GET', '/api/v1/authorized', 'empty'),
  cluster: (): ApiCall<ClusterJson> => call('GET', '/api/v1/cluster', 'json'),
  metrics: (): ApiCall<string> => call('GET', '/metrics', 'text'),
  authLogin: (): ApiCall<LoggedInUser> => call('POST', '/auth/login', 'json'),

  caList: (): ApiCall<CaList | CasPageJson> => call('GET', '/api/v1/cas', 'json'),
  caAdd: (handle: string): ApiCall<void> => call('POST', '/api/v1/cas', 'empty', { handle }),
  caShow: (ca: string): ApiCall<CertAuthInfo> => call('GET', `/api/v1/cas/${seg(ca)}`, 'json'),
  caDelete: (ca: string): ApiCall<void> => call('DELETE', `/api/v1/cas/${seg(ca)}`, 'empty'),
  caIssues: (ca: string): ApiCall<CaIssuesJson> => call('GET', `/api/v1/cas/${seg(ca)}/issues`, 'json'),
  bulkIssues: (): ApiCall<BulkIssuesJson> => call('GET', '/api/v1/bulk/cas/issues', 'json'),

 caHistory: (ca: string, q: { rows: number; offset: number; after?: number; before?: number; full: boolean }): ApiCall<CommandHistoryJson> =>
    call('GET', `/api/v1/cas/${seg(ca)}/history/commands/${q.rows}/${q.offset}${q.after !== undefined || q.before !== undefined ? `/${q.after ?? 0}` : ''}${q.before !== undefined ? `/${q.before}` : ''}${q.full ? '?full=true' : ''}`, 'json'),
  /** GET /api/v1/audit with the filters given (times as ISO 8601 text, as the user wrote them). */
  audit: (q: Partial<Record<keyof AuditQueryInput, string | number>>): ApiCall<AuditPageJson> => {
    const query = Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')
    return call('GET', `/api/v1/audit${query ? `?${query}` : ''}`, 'json')
  },
  caHistoryDetails: (ca: string, key: string): ApiCall<CommandDetailsJson> => call('GET', `/api/v1/cas/${seg(ca)}/history/details/${seg(key)}`, 'json'),
  /** Krill's body-less call; with `signer`, the body `{"signer": NAME}` names the signer of the new keys (issue 25). */
  caKeyRollInit: (ca: string, signer?: string): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/keys/roll_init`, 'empty', signer === undefined ? undefined : { signer }),
  caKeys: (ca: string): ApiCall<CaKeysJson> => call('GET', `/api/v1/cas/${seg(ca)}/keys`, 'json'),
  signerList: (): ApiCall<SignerListJson> => call('GET', '/api/v1/signers', 'json'),
  quarantineList: (): ApiCall<{ items: QuarantinedJson[] }> => call('GET', '/api/v1/quarantine', 'json'),
  quarantineDrop: (id: string): ApiCall<void> => call('DELETE', `/api/v1/quarantine/${seg(id)}`, 'empty'),
  caKeyRollActivate: (ca: string): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/keys/roll_activate`, 'empty'),
  caIdRoll: (ca: string): ApiCall<IdRollJson> => call('GET', `/api/v1/cas/${seg(ca)}/id`, 'json'),
  caIdRollInit: (ca: string, body: IdRollInitJson): ApiCall<IdRollJson> => call('POST', `/api/v1/cas/${seg(ca)}/id/roll`, 'json', body),
  caIdRollFinish: (ca: string): ApiCall<IdRollJson> => call('POST', `/api/v1/cas/${seg(ca)}/id/roll/finish`, 'json'),
  pubdPublisherIdCert: (publisher: string, body: { id_cert: string }): ApiCall<void> => call('POST', `/api/v1/pubd/publishers/${seg(publisher)}/id_cert`, 'empty', body),
  taKeyRoll: (): ApiCall<TaKeyRollJson> => call('GET', '/api/v1/ta/keyroll', 'json'),
  taKeyRollInit: (signer?: string): ApiCall<void> => call('POST', '/api/v1/ta/keyroll/init', 'empty', signer === undefined ? undefined : { signer }),
  taKeyRollActivate: (): ApiCall<void> => call('POST', '/api/v1/ta/keyroll/activate', 'empty'),
  bulkPublish: (): ApiCall<void> => call('POST', '/api/v1/bulk/cas/publish', 'empty'),
  bulkRefresh: (): ApiCall<void> => call('POST', '/api/v1/bulk/cas/sync/parent', 'empty'),
  bulkSync: (): ApiCall<void> => call('POST', '/api/v1/bulk/cas/sync/repo', 'empty'),

  caChildRequest: (ca: string): ApiCall<ChildRequestJson> => call('GET', `/api/v1/cas/${seg(ca)}/child_request.json`, 'json'),
  caParentAdd: (ca: string, body: AddParentJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/parents`, 'empty', body),
  caParentUpdate: (ca: string, parent: string, body: AddParentJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/parents/${seg(parent)}`, 'empty', body),
  caParentContact: (ca: string, parent: string): ApiCall<ParentContactJson> => call('GET', `/api/v1/cas/${seg(ca)}/parents/${seg(parent)}`, 'json'),
  caParentStatuses: (ca: string): ApiCall<Record<string, ParentStatusJson>> => call('GET', `/api/v1/cas/${seg(ca)}/parents`, 'json'),
  caParentRemove: (ca: string, parent: string): ApiCall<void> => call('DELETE', `/api/v1/cas/${seg(ca)}/parents/${seg(parent)}`, 'empty'),

  caChildAdd: (ca: string, body: AddChildJson): ApiCall<ParentResponseJson> => call('POST', `/api/v1/cas/${seg(ca)}/children`, 'json', body),
  caChildInfo: (ca: string, child: string): ApiCall<ChildInfoJson> => call('GET', `/api/v1/cas/${seg(ca)}/children/${seg(child)}`, 'json'),
  caChildUpdate: (ca: string, child: string, body: UpdateChildJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/children/${seg(child)}`, 'empty', body),
  caChildRemove: (ca: string, child: string): ApiCall<void> => call('DELETE', `/api/v1/cas/${seg(ca)}/children/${seg(child)}`, 'empty'),
  caChildContact: (ca: string, child: string): ApiCall<ParentResponseJson> => call('GET', `/api/v1/cas/${seg(ca)}/children/${seg(child)}/contact`, 'json'),
  caChildExport: (ca: string, child: string): ApiCall<ImportChildJson> => call('GET', `/api/v1/cas/${seg(ca)}/children/${seg(child)}/export`, 'json'),
  caChildImport: (ca: string, child: string, body: ImportChildJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/children/${seg(child)}/import`, 'empty', body),

  /** One page (api/cas.ts ROAS_PAGE_DEFAULT); without `page`, the server's default page. */
  caRoas: (ca: string, page?: { offset: number; limit: number }): ApiCall<ConfiguredRoa[]> =>
    call('GET', `/api/v1/cas/${seg(ca)}/routes${page ? `?offset=${page.offset}&limit=${page.limit}` : ''}`, 'json'),
  /** The console's ROA table: matches of `q.q`, sorted, one page (GET …/routes/page). */
  caRoasQuery: (ca: string, q: RoasQuery): ApiCall<RoasPageJson> =>
    call('GET', `/api/v1/cas/${seg(ca)}/routes/page?${new URLSearchParams({ offset: String(q.offset), limit: String(q.limit), q: q.q, sort: q.sort, order: q.order })}`, 'json'),
  caRoasUpdate: (ca: string, delta: RoaDeltaJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/routes`, 'empty', delta),
  caRoutesAnalysis: (ca: string): ApiCall<BgpAnalysisEntry[]> => call('GET', `/api/v1/cas/${seg(ca)}/routes/analysis/full`, 'json'),
  caRoutesSuggest: (ca: string): ApiCall<BgpAnalysisSuggestion> => call('GET', `/api/v1/cas/${seg(ca)}/routes/analysis/suggest`, 'json'),
  caRoutesSuggestScoped: (ca: string, scope: ResourceSetText): ApiCall<BgpAnalysisSuggestion> => call('POST', `/api/v1/cas/${seg(ca)}/routes/analysis/suggest`, 'json', scope),
  caRoutesDryRun: (ca: string, delta: RoaDeltaJson): ApiCall<BgpAnalysisEntry[]> => call('POST', `/api/v1/cas/${seg(ca)}/routes/analysis/dryrun`, 'json', delta),
  caAspas: (ca: string): ApiCall<AspaDefinitionJson[]> => call('GET', `/api/v1/cas/${seg(ca)}/aspas`, 'json'),
  caAspasUpdate: (ca: string, updates: AspaDefinitionUpdatesJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/aspas`, 'empty', updates),
  caAspaProvidersUpdate: (ca: string, customer: number, update: AspaProvidersUpdateJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/aspas/as/AS${customer}`, 'empty', update),
  caAspaRemove: (ca: string, customer: number): ApiCall<void> => call('DELETE', `/api/v1/cas/${seg(ca)}/aspas/as/AS${customer}`, 'empty'),
  caBgpSecList: (ca: string): ApiCall<BgpSecCsrInfoJson[]> => call('GET', `/api/v1/cas/${seg(ca)}/bgpsec`, 'json'),
  caBgpSecUpdate: (ca: string, updates: BgpSecDefinitionUpdatesJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/bgpsec`, 'empty', updates),
  caRscSign: (ca: string, body: RscSignJson): ApiCall<RscSignedJson> => call('POST', `/api/v1/cas/${seg(ca)}/rsc`, 'json', body),

  caRepo: (ca: string): ApiCall<RepoInfoJson> => call('GET', `/api/v1/cas/${seg(ca)}/repo`, 'json'),
  caRepoUpdate: (ca: string, response: RepositoryResponseJson): ApiCall<void> => call('POST', `/api/v1/cas/${seg(ca)}/repo`, 'empty', { repository_response: response }),
  caRepoStatus: (ca: string): ApiCall<RepoStatusJson> => call('GET', `/api/v1/cas/${seg(ca)}/repo/status`, 'json'),
  caPublisherRequest: (ca: string): ApiCall<PublisherRequestJson> => call('GET', `/api/v1/cas/${seg(ca)}/id/publisher_request.json`, 'json'),

  pubdPublishers: (): ApiCall<PublisherList | PublishersPageJson> => call('GET', '/api/v1/pubd/publishers', 'json'),
  pubdPublisherAdd: (req: PublisherRequestJson): ApiCall<RepositoryResponseJson> => call('POST', '/api/v1/pubd/publishers', 'json', req),
  pubdPublisherShow: (p: string): ApiCall<PublisherDetails> => call('GET', `/api/v1/pubd/publishers/${seg(p)}`, 'json'),
  pubdPublisherRemove: (p: string): ApiCall<void> => call('DELETE', `/api/v1/pubd/publishers/${seg(p)}`, 'empty'),
  pubdPublisherResponse: (p: string): ApiCall<RepositoryResponseJson> => call('GET', `/api/v1/pubd/publishers/${seg(p)}/response.json`, 'json'),
  pubdStale: (seconds: number): ApiCall<PublisherList> => call('GET', `/api/v1/pubd/stale/${seconds}`, 'json'),
  pubdStats: (): ApiCall<RepoStats> => call('GET', '/api/v1/pubd/stats', 'json'),
  pubdSessionReset: (): ApiCall<void> => call('POST', '/api/v1/pubd/session_reset', 'empty'),

  tokenList: (): ApiCall<TokenListJson> => call('GET', '/api/v1/tokens', 'json'),
  tokenAdd: (body: AddTokenJson): ApiCall<NewTokenJson> => call('POST', '/api/v1/tokens', 'json', body),
  tokenRevoke: (id: string): ApiCall<void> => call('DELETE', `/api/v1/tokens/${seg(id)}`, 'empty'),
  alertsView: (q: { active?: 'true'; limit?: number } = {}): ApiCall<AlertsJson> => {
    const query = Object.entries(q).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')
    return call('GET', `/api/v1/alerts${query ? `?${query}` : ''}`, 'json')
  },
  alertsTest: (body: AlertTestJson): ApiCall<AlertTestResultJson> => call('POST', '/api/v1/alerts/test', 'json', body),
  pubdRelease: (): ApiCall<void> => call('POST', '/api/v1/pubd/release', 'empty'),
  /** GET /api/v1/health/cas: one page (`offset`, `limit`) of every CA's liveness, optionally only the non-functional. */
  healthCas: (q: { offset: number; limit: number; functional?: boolean }): ApiCall<HealthPageJson> =>
    call('GET', `/api/v1/health/cas?offset=${q.offset}&limit=${q.limit}${q.functional === undefined ? '' : `&functional=${q.functional}`}`, 'json'),
  healthCa: (ca: string): ApiCall<HealthCaJson> => call('GET', `/api/v1/health/cas/${seg(ca)}`, 'json'),
  healthCheck: (q: { offset: number; limit: number }): ApiCall<HealthCheckJson> => call('POST', `/api/v1/health/check?offset=${q.offset}&limit=${q.limit}`, 'json'),
}
