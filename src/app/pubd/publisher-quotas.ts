/**
 * The quotas of the publication service (pubd/quota.ts) applied to its store: the check of one message before it is
 * written (PublicationService.publish, for RFC 8181 and the in-process path of local CAs alike), and the most bytes
 * of an RFC 8181 message worth reading from a publisher.
 */
import type { PublishPdu, ReportError, WithdrawPdu } from '../../protocol/publication.js'
import type { ContentChange } from '../../pubd/content.js'
import type { Publisher } from '../../pubd/publishers.js'
import { limitsFor, messageLimit, quotaProblems, usageDelta, type QuotaSettings } from '../../pubd/quota.js'
import type { PubdStore } from '../../store/interfaces.js'

const NONE = { objects: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER }

/** No quota (a service built without one: unit tests with fakes). */
export const UNLIMITED: QuotaSettings = { publisher: { ...NONE, objectBytes: Number.MAX_SAFE_INTEGER }, total: NONE, selfService: { ...NONE, objectBytes: Number.MAX_SAFE_INTEGER }, selfServiceTotal: NONE }

/** The report_errors of a planned message that would exceed a quota of `publisher`, or []: then it may be written. */
export function messageOverQuota(store: PubdStore, quotas: QuotaSettings | undefined, publisher: Publisher, pdus: readonly (PublishPdu | WithdrawPdu)[], changes: readonly ContentChange[]): ReportError[] {
  if (!quotas) return []
  const h = publisher.handle
  const delta = usageDelta(changes, (uri) => store.objectSize(h, uri) ?? 0)
  return quotaProblems(h, pdus, delta, () => store.quotaUsage(h), limitsFor(quotas, publisher.selfService === true))
}

/** What `publishers show` and `publishers stats` say of a publisher's quota (api/pubd.ts). */
export function publisherQuotaJson(quotas: QuotaSettings | undefined, selfService: boolean): { self_service: boolean; quota: { objects: number; bytes: number; object_bytes: number } } {
  const l = limitsFor(quotas ?? UNLIMITED, selfService).publisher
  return { self_service: selfService, quota: { objects: l.objects, bytes: l.bytes, object_bytes: l.objectBytes } }
}

/** The most bytes of an RFC 8181 message from `handle` worth reading; an unknown publisher gets the self-service limit. */
export function rfc8181MessageLimit(store: PubdStore, quotas: QuotaSettings | undefined, handle: string): number {
  return quotas ? messageLimit(limitsFor(quotas, store.publisher(handle)?.selfService ?? true).publisher) : Number.MAX_SAFE_INTEGER
}
