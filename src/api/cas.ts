/**
 * Wire types of the CA part of the JSON API (krill-reference.md §1.1: CertAuthInfo, parents, children, ROAs, repo),
 * with the checks of request bodies and the mapping of RFC 8183 documents to and from their JSON form.
 */
import type { ChildRequest, ParentResponse } from '../protocol/idexchange.js'
import type { ResourceSetText } from '../resources/resource-set.js'
import { fromBase64, toBase64 } from '../util/base64.js'
import type { IdCertInfo } from './pubd.js'
import type { ErrorBody } from './status.js'
import type { QuarantinedJson } from './quarantine.js'

export interface CaList {
  cas: { handle: string }[]
}

export interface KeyInfoJson {
  key_id: string
  /** The configured signer that holds the key (svcd, issue 25); absent when unknown. */
  signer?: string
  incoming_cert: { cert: string; uri: string; resources: ResourceSetText } | null
  request: { time: string } | null
}

export interface ResourceClassInfo {
  name_space: string
  parent_handle: string
  keys: Record<string, Record<string, KeyInfoJson>>
  current_objects: string[]
}

export interface CertAuthInfo {
  handle: string
  id_cert: IdCertInfo
  /** Not in Krill (issue 25): the new identity of a pending identity key roll (svcc id roll). */
  id_cert_pending?: IdCertInfo
  repo_info: { sia_base: string; rrdp_notification_uri: string } | null
  parents: { handle: string; kind: 'rfc6492' }[]
  resources: ResourceSetText
  resource_classes: Record<string, ResourceClassInfo>
  children: string[]
  suspended_children: string[]
}

export interface ChildRequestJson {
  child_handle: string
  id_cert: string
  tag: string | null
}

export interface ParentResponseJson {
  id_cert: string
  parent_handle: string
  child_handle: string
  service_uri: string
  tag: string | null
}

export interface AddParentJson {
  handle: string
  response: ParentResponseJson
}

export interface ParentContactJson {
  type: 'rfc6492'
  service_uri: string
  parent_handle: string
  child_handle: string
  id_cert: IdCertInfo
}

/** The last exchange with a parent or repository; `timestamp` in unix seconds (Krill's `Timestamp`). */
export interface ExchangeJson {
  timestamp: number
  uri: string
  result: 'Success' | { Failure: { label: string; msg: string; args: Record<string, string> } }
}

export interface ParentStatusJson {
  last_exchange: ExchangeJson | null
  /** Unix seconds (Krill's `Timestamp`). */
  last_success: number | null
  all_resources: ResourceSetText
  classes: { class_name: string; resource_set: ResourceSetText; not_after: string }[]
}

export interface AddChildJson {
  handle: string
  resources: ResourceSetText
  id_cert: string
}

export interface UpdateChildJson {
  id_cert?: string
  resources?: ResourceSetText
  /** Suspend (true) or unsuspend (false) the child (krill-reference.md §1.1 `children suspend`). */
  suspend?: boolean
}

export interface ChildInfoJson {
  state: 'active' | 'suspended'
  id_cert: IdCertInfo
  entitled_resources: ResourceSetText
}

export interface RoaJson {
  asn: number
  prefix: string
  max_length?: number
  comment?: string | null
}

export interface RoaDeltaJson {
  added: RoaJson[]
  removed: RoaJson[]
}

/**
 * A ROA object carrying a configured authorisation (Krill's RoaInfo). Each object is given in full once in the
 * whole `roas list` listing, at the first authorisation (in listing order) it carries; the other authorisations it
 * carries (an aggregated ROA, one per ASN) refer to it with `uri` and `hash`, without `authorizations` and `base64`.
 * Below the aggregation threshold every object carries one authorisation, so every entry is in full, as in Krill.
 */
export interface RoaObjectJson {
  /** Every authorisation the object carries (only where it is given in full). */
  authorizations?: string[]
  validity: { not_before: string; not_after: string }
  serial: string
  uri: string
  /** The object's DER (only where it is given in full). */
  base64?: string
  hash: string
}

/** One configured authorisation with the objects that carry it (krill-reference.md §1.1 `roas list`). */
export interface ConfiguredRoa {
  asn: number
  prefix: string
  max_length: number
  comment: string | null
  roa_objects: RoaObjectJson[]
}

/** Krill's BgpAnalysisState (krill:src/api/bgp.rs): of a configured ROA, or of an announcement. */
export type BgpAnalysisState =
  | 'roa_seen' | 'roa_redundant' | 'roa_unseen' | 'roa_disallowing' | 'roa_too_permissive' | 'roa_as0' | 'roa_as0_redundant' | 'roa_not_held'
  | 'announcement_valid' | 'announcement_invalid_length' | 'announcement_invalid_asn' | 'announcement_disallowed' | 'announcement_not_found'
  | 'roa_no_announcement_info'

/** A BGP announcement: `asn` originates `prefix` (Krill's Announcement). */
export interface AnnouncementJson {
  asn: number
  prefix: string
}

/** A ROA payload with its (always explicit) max length (Krill's RoaPayload). */
export interface RoaPayloadJson {
  asn: number
  prefix: string
  max_length: number
}

/**
 * One entry of GET /api/v1/cas/{ca}/routes/analysis/full and POST …/dryrun (Krill's BgpAnalysisEntry): a configured
 * ROA (`roa_*` states: the ConfiguredRoa's fields) or a BGP announcement inside the CA's resources (`announcement_*`:
 * `asn` and `prefix` only), with its state and, where not empty, the related announcements and ROA payloads.
 */
export interface BgpAnalysisEntry {
  asn: number
  prefix: string
  /** ROA entries only (as `comment` and `roa_objects`). */
  max_length?: number
  comment?: string | null
  roa_objects?: RoaObjectJson[]
  state: BgpAnalysisState
  /** announcement_valid: the ROA that makes it valid. */
  allowed_by?: RoaPayloadJson
  /** announcement_invalid_*, announcement_disallowed: every ROA covering it. */
  disallowed_by?: RoaPayloadJson[]
  /** roa_redundant: ROAs that include this one; roa_as0_redundant: ROAs covering its prefix. */
  made_redundant_by?: RoaPayloadJson[]
  /** Announcements this ROA makes valid. */
  authorizes?: AnnouncementJson[]
  /** Announcements this ROA makes invalid (AS0: every announcement it covers). */
  disallows?: AnnouncementJson[]
}

/** A too-permissive ROA and the specific ROAs that would replace it (Krill's ReplacementRoaSuggestion). */
export interface ReplacementRoaSuggestionJson {
  current: ConfiguredRoa
  new: RoaPayloadJson[]
}

/** GET or POST …/routes/analysis/suggest (Krill's BgpAnalysisSuggestion; empty lists are left out). */
export interface BgpAnalysisSuggestion {
  stale?: ConfiguredRoa[]
  not_found?: AnnouncementJson[]
  invalid_asn?: AnnouncementJson[]
  invalid_length?: AnnouncementJson[]
  too_permissive?: ReplacementRoaSuggestionJson[]
  disallowing?: ConfiguredRoa[]
  redundant?: ConfiguredRoa[]
  not_held?: ConfiguredRoa[]
  as0_redundant?: ConfiguredRoa[]
  keep?: ConfiguredRoa[]
  keep_disallowing?: AnnouncementJson[]
}

/** An ASPA configuration (krill-reference.md §1.1 "ASPA"), as GET /api/v1/cas/{ca}/aspas lists them; updates in api/aspas.ts. */
export interface AspaDefinitionJson {
  customer: number
  providers: number[]
}

/**
 * Paging of GET /api/v1/cas/{ca}/routes (`?offset=&limit=`): Krill answers the whole list, so the default page is
 * large enough for an ordinary CA (ROAS_PAGE_DEFAULT); larger CAs page. The body stays Krill's array; the total is
 * in the X-Total-Count header, and a Link header (RFC 8288, rel="next") names the next page while there is one.
 */
export const ROAS_PAGE_DEFAULT = 10_000
export const ROAS_PAGE_MAX = 10_000
export const TOTAL_COUNT_HEADER = 'X-Total-Count'

/**
 * GET /api/v1/cas/{ca}/routes/page (the web console's ROA table, issue 15): the configured authorisations matching
 * `q` (a case-insensitive substring of `<prefix>-<max length> => AS<asn>` or of the comment), sorted on the server, a
 * page at a time. `total` counts the matches. Rows are light (the number of objects carrying each, not the objects),
 * so a page costs its own size also for a CA with 50,000 ROAs.
 */
export const ROA_SORTS = ['prefix', 'asn', 'max_length', 'comment'] as const
export type RoaSort = (typeof ROA_SORTS)[number]
export const ROAS_QUERY_MAX = 200

export interface RoasQuery {
  offset: number
  limit: number
  q: string
  sort: RoaSort
  order: 'asc' | 'desc'
}

export interface RoaRowJson {
  asn: number
  prefix: string
  max_length: number
  comment: string | null
  /** How many ROA objects carry it (0 until the CA has published it). */
  roa_objects: number
}

export interface RoasPageJson {
  total: number
  offset: number
  limit: number
  items: RoaRowJson[]
}

export interface RepoInfoJson {
  contact: { type: 'embedded' | 'remote'; repo_info: { sia_base: string; rrdp_notification_uri: string }; server_info: { public_key: string; service_uri: string } } | null
}

export interface RepoStatusJson {
  last_exchange: ExchangeJson | null
  /** Unix seconds (Krill's `Timestamp`). */
  last_success: number | null
  published: { uri: string; hash: string }[]
}

export interface IssueJson {
  label: string
  msg: string
  args: Record<string, string>
}

export interface CaIssuesJson {
  repo_issue: IssueJson | null
  parent_issues: { parent: string; issue: IssueJson }[]
  objects_issue?: IssueJson | null
}

//------------ Body checks ----------------------------------------------------------------------------------------

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function checkResourcesJson(v: unknown): string | undefined {
  if (!obj(v)) return 'resources must be an object {"asn","ipv4","ipv6"}'
  for (const k of ['asn', 'ipv4', 'ipv6', 'v4', 'v6']) if (v[k] !== undefined && v[k] !== null && typeof v[k] !== 'string') return `resources.${k} must be a string`
  for (const [k, alias] of [['ipv4', 'v4'], ['ipv6', 'v6']]) if (typeof v[k] === 'string' && typeof v[alias] === 'string') return `resources.${k} and its alias ${alias} are both given`
  return undefined
}

/** Resources as given: `v4` and `v6` are accepted for `ipv4` and `ipv6`, as rpki-rs's ResourceSet reads them (Krill's web client sends them). */
export function resourcesFromJson(v: Partial<ResourceSetText> & { v4?: string; v6?: string }): Partial<ResourceSetText> {
  return { asn: v.asn, ipv4: v.ipv4 ?? v.v4, ipv6: v.ipv6 ?? v.v6 }
}

export function checkAddCa(v: unknown): string | undefined {
  return obj(v) && typeof v.handle === 'string' ? undefined : 'expected {"handle": "<name>"}'
}

export function checkAddChild(v: unknown): string | undefined {
  if (!obj(v) || typeof v.handle !== 'string' || typeof v.id_cert !== 'string') return 'expected {"handle","resources":{"asn","ipv4","ipv6"},"id_cert"}'
  return checkResourcesJson(v.resources)
}

export function checkUpdateChild(v: unknown): string | undefined {
  if (!obj(v)) return 'expected {"id_cert"?, "resources"?, "suspend"?}'
  if (v.id_cert !== undefined && typeof v.id_cert !== 'string') return 'id_cert must be a base64 string'
  if (v.suspend !== undefined && typeof v.suspend !== 'boolean') return 'suspend must be true or false'
  return v.resources === undefined ? undefined : checkResourcesJson(v.resources)
}

export function checkParentResponseJson(v: unknown): string | undefined {
  if (!obj(v)) return 'response must be an object'
  for (const k of ['id_cert', 'parent_handle', 'child_handle', 'service_uri']) if (typeof v[k] !== 'string') return `response.${k} must be a string`
  return undefined
}

/** `{"handle","response":{…}}`, with `contact` accepted as an alias of `response` (krill-reference.md §1.1). */
export function checkAddParent(v: unknown): string | undefined {
  if (!obj(v) || typeof v.handle !== 'string') return 'expected {"handle","response":{…}}'
  return checkParentResponseJson(v.response ?? v.contact)
}

export function checkRoaDelta(v: unknown): string | undefined {
  if (!obj(v) || !Array.isArray(v.added ?? []) || !Array.isArray(v.removed ?? [])) return 'expected {"added":[…],"removed":[…]}'
  for (const r of [...((v.added as unknown[]) ?? []), ...((v.removed as unknown[]) ?? [])]) {
    if (!obj(r) || typeof r.asn !== 'number' || !Number.isInteger(r.asn) || typeof r.prefix !== 'string') return 'each ROA needs "asn" (a number) and "prefix" (a string)'
    if (r.max_length !== undefined && r.max_length !== null && (typeof r.max_length !== 'number' || !Number.isInteger(r.max_length))) return 'max_length must be an integer'
    if (r.comment !== undefined && r.comment !== null && typeof r.comment !== 'string') return 'comment must be a string'
  }
  return undefined
}

//------------ RFC 8183 documents as JSON -------------------------------------------------------------------------

export function childRequestJson(r: ChildRequest): ChildRequestJson {
  return { child_handle: r.childHandle, id_cert: toBase64(r.idCert), tag: r.tag ?? null }
}

export function childRequestFromJson(j: ChildRequestJson): ChildRequest {
  return { childHandle: j.child_handle, idCert: fromBase64(j.id_cert), ...(j.tag ? { tag: j.tag } : {}) }
}

export function parentResponseJson(r: ParentResponse): ParentResponseJson {
  return { id_cert: toBase64(r.idCert), parent_handle: r.parentHandle, child_handle: r.childHandle, service_uri: r.serviceUri, tag: r.tag ?? null }
}

export function parentResponseFromJson(j: ParentResponseJson): ParentResponse {
  return { idCert: fromBase64(j.id_cert), parentHandle: j.parent_handle, childHandle: j.child_handle, serviceUri: j.service_uri, ...(j.tag ? { tag: j.tag } : {}) }
}

//------------ History (krill-reference.md §4) ---------------------------------------------------------------------

/** Beside Krill's `actor` (the user id, `admin-token`, `svc`…): how it authenticated, and an API token's name (issue 24). */
export interface ActorJson {
  actor: string
  /** `admin-token`, `config-file`, `openid-connect`, `api-token`, `testbed` (self-service), or `svc` (svcd's own work). */
  actor_provider: string
  /** With an API token: its name; otherwise null. */
  actor_token: string | null
}

export interface HistoryRecordJson extends ActorJson {
  /** Milliseconds since the epoch. */
  timestamp: number
  handle: string
  /** The action key (`svcc action --key`). */
  version: number
  summary: { msg: string; label: string; args: Record<string, string> }
  effect: { Ok: string[] } | { Error: string }
}

/** GET /api/v1/bulk/cas/issues: Krill's `cas`, and the embedded publication server's problems when it has any. */
export interface BulkIssuesJson {
  cas: Record<string, CaIssuesJson>
  publication_server?: ErrorBody[]
  /** The signers that cannot sign now (sys-signer-unavailable, sys-signer-login, sys-signer-slow), when any. */
  signers?: ErrorBody[]
  /** Issue 26 §5: what was set aside as undecodable, and the parts of svcd that stalled (sys-stalled), when any. */
  quarantined?: QuarantinedJson[]
  stalled?: ErrorBody[]
}

export interface CommandHistoryJson {
  offset: number
  total: number
  commands: HistoryRecordJson[]
}

export interface CommandDetailsJson extends ActorJson {
  time: string
  handle: string
  version: number
  msg: string
  details: unknown
  effect: { result: 'success'; events: { msg: string; details: unknown }[] } | { result: 'error'; msg: string }
}

export const MAX_HISTORY_ROWS = 250
