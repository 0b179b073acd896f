/**
 * Wire types of the publication-server API (krill-reference.md §1.1 "Publication server"): publishers, the RFC 8183
 * documents in their JSON form, details and statistics. Field names are the established snake_case ones.
 */
import type { ErrorBody } from '../errors.js'
import type { PublisherRequest, RepositoryResponse } from '../protocol/idexchange.js'
import { fromBase64, toBase64 } from '../util/base64.js'

/** An RFC 8183 publisher_request as JSON; `id_cert` is the base64 DER of the publisher's BPKI certificate. */
export interface PublisherRequestJson {
  publisher_handle: string
  id_cert: string
  tag?: string | null
}

/** An RFC 8183 repository_response as JSON. */
export interface RepositoryResponseJson {
  publisher_handle: string
  id_cert: string
  service_uri: string
  repo_info: { sia_base: string; rrdp_notification_uri: string }
  tag: string | null
}

/** `{public_key, base64, hash}`: SPKI and certificate base64 DER, hex SHA-256 of the SPKI (spec §2.1 "Hash"). */
export interface IdCertInfo {
  public_key: string
  base64: string
  hash: string
}

export interface PublisherList {
  publishers: { handle: string }[]
}

export interface PublisherDetails {
  handle: string
  id_cert: IdCertInfo
  base_uri: string
  current_files: { uri: string; base64: string }[]
  /** Registered through the testbed self-service; what it may hold (as in the stats). */
  self_service: boolean
  quota: { objects: number; bytes: number; object_bytes: number }
}

export interface PublisherStatsJson {
  objects: number
  size: number
  last_update: string | null
  manifests: { uri: string; this_update: string; next_update: string }[]
  /** Why the rsync tree holds old files of this publisher (sys-rsync-publisher), or null. */
  problem: ErrorBody | null
  /** Registered through the testbed self-service (its quota is the self-service one). */
  self_service: boolean
  /** What it may hold (issue 22): objects, bytes, and bytes of its largest object. */
  quota: { objects: number; bytes: number; object_bytes: number }
}

/** A quota shared by several publishers, and what they use of it. */
export interface SharedQuotaJson {
  objects: number
  bytes: number
  used_objects: number
  used_bytes: number
}

export interface RepoStats {
  publishers: Record<string, PublisherStatsJson>
  session: string
  serial: number
  last_update: string
  rsync_base: string
  rrdp_base: string
  /** What keeps RRDP or the rsync tree from holding everything accepted (as GET /ready, with the reasons). */
  problems: ErrorBody[]
  /** The whole publication server's quota and use; and of all self-service publishers together. */
  quota: SharedQuotaJson
  self_service_quota: SharedQuotaJson
}

export function isPublisherRequestJson(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return 'expected a JSON object {"publisher_handle","id_cert","tag"}'
  const o = v as Record<string, unknown>
  if (typeof o.publisher_handle !== 'string') return 'publisher_handle must be a string'
  if (typeof o.id_cert !== 'string') return 'id_cert must be a base64 string'
  if (o.tag !== undefined && o.tag !== null && typeof o.tag !== 'string') return 'tag must be a string or null'
  return undefined
}

//------------ Mapping to and from the RFC 8183 documents ---------------------------------------------------------


export function repositoryResponseJson(r: RepositoryResponse): RepositoryResponseJson {
  return {
    publisher_handle: r.publisherHandle,
    id_cert: toBase64(r.idCert),
    service_uri: r.serviceUri,
    repo_info: { sia_base: r.siaBase, rrdp_notification_uri: r.rrdpNotificationUri ?? '' },
    tag: r.tag ?? null,
  }
}

export function repositoryResponseFromJson(j: RepositoryResponseJson): RepositoryResponse {
  return {
    publisherHandle: j.publisher_handle,
    idCert: fromBase64(j.id_cert),
    serviceUri: j.service_uri,
    siaBase: j.repo_info.sia_base,
    ...(j.repo_info.rrdp_notification_uri ? { rrdpNotificationUri: j.repo_info.rrdp_notification_uri } : {}),
    ...(j.tag ? { tag: j.tag } : {}),
  }
}

export function publisherRequestJson(r: PublisherRequest): PublisherRequestJson {
  return { publisher_handle: r.publisherHandle, id_cert: toBase64(r.idCert), tag: r.tag ?? null }
}

export function publisherRequestFromJson(j: PublisherRequestJson): PublisherRequest {
  return { publisherHandle: j.publisher_handle, idCert: fromBase64(j.id_cert), ...(j.tag ? { tag: j.tag } : {}) }
}
