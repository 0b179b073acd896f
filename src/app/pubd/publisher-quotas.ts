/**
 * The quotas of the publication service (pubd/quota.ts) applied to its store: the check of one message before it is
 * written (PublisherService.publish, for RFC 8181 and the in-process path of local CAs alike), and the most bytes
 * of an RFC 8181 message worth reading from a publisher. One instance per PublisherService, which owns the cached
 * server total.
 */
import type { PublishPdu, ReportError, WithdrawPdu } from '../../protocol/publication.js'
import type { ContentChange } from '../../pubd/content.js'
import type { Publisher } from '../../pubd/publishers.js'
import { limitsFor, messageLimit, quotaProblems, usageDelta, type QuotaSettings, type Usage } from '../../pubd/quota.js'
import type { PublicationStore } from '../../store/interfaces.js'

const NONE = { objects: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER }

/** No quota (a service built without one: unit tests with fakes). */
export const UNLIMITED: QuotaSettings = { publisher: { ...NONE, objectBytes: Number.MAX_SAFE_INTEGER }, total: NONE, selfService: { ...NONE, objectBytes: Number.MAX_SAFE_INTEGER }, selfServiceTotal: NONE }

/** The server total is counted again at most this often (see PublisherQuotas). */
const TOTAL_MAX_AGE_MS = 1000

export class PublisherQuotas {
  /**
   * The whole server's usage as last counted: counting scans the usage index (about 20 ms at 100,000 objects), so it
   * is counted again at most every TOTAL_MAX_AGE_MS and adjusted by this service's accepted changes in between. The
   * server total is a coarse bound (gigabytes): changes accepted meanwhile by other instances of a cluster are
   * counted at the next count. The quotas of a publisher and of the self-service publishers are read exactly.
   */
  private total: { at: number; usage: Usage } | undefined

  constructor(
    private readonly store: PublicationStore,
    readonly settings: QuotaSettings | undefined,
  ) {}

  /**
   * The report_errors of a planned message that would exceed a quota of `publisher`, or []: then it may be written
   * (and the cached server total counts its changes). `nowMs`: the service's clock.
   */
  overQuota(publisher: Publisher, pdus: readonly (PublishPdu | WithdrawPdu)[], changes: readonly ContentChange[], nowMs: number): ReportError[] {
    const quotas = this.settings
    if (!quotas) return []
    const h = publisher.handle
    const delta = usageDelta(changes, (uri) => this.store.objectSize(h, uri) ?? 0)
    const errors = quotaProblems(h, pdus, delta, () => ({ ...this.store.quotaUsage(h), total: this.totalUsage(nowMs) }), limitsFor(quotas, publisher.selfService === true))
    const t = this.total
    if (errors.length === 0 && t) t.usage = { objects: t.usage.objects + delta.objects, bytes: t.usage.bytes + delta.bytes }
    return errors
  }

  /** The most bytes of an RFC 8181 message from `handle` worth reading; an unknown publisher gets the self-service limit. */
  messageLimit(handle: string): number {
    if (!this.settings) return Number.MAX_SAFE_INTEGER
    const p = this.store.publisher(handle)
    return messageLimit(limitsFor(this.settings, p ? p.selfService === true : true).publisher)
  }

  private totalUsage(now: number): Usage {
    let t = this.total
    if (!t || now - t.at >= TOTAL_MAX_AGE_MS || now < t.at) this.total = t = { at: now, usage: this.store.totalUsage() }
    return t.usage
  }
}

/** What `publishers show` and `publishers stats` say of a publisher's quota (api/pubd.ts). */
export function publisherQuotaJson(quotas: QuotaSettings | undefined, selfService: boolean): { self_service: boolean; quota: { objects: number; bytes: number; object_bytes: number } } {
  const l = limitsFor(quotas ?? UNLIMITED, selfService).publisher
  return { self_service: selfService, quota: { objects: l.objects, bytes: l.bytes, object_bytes: l.objectBytes } }
}
