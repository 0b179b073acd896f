/**
 * Publication quotas (issue 22): how much one publisher may hold (objects, bytes, the largest object), how much the
 * whole publication server holds, and how much all self-service publishers (registered anonymously through
 * /testbed/…) hold together. The rule decides from the usage before a message and the changes the message makes
 * (pubd/content.ts planDelta) whether the message is refused; a refused message changes nothing. A measure already
 * over its limit (the limit was lowered) blocks only messages that would make it larger: a publisher can always
 * withdraw or shrink. Pure domain code; the RFC 8181 code of a refusal comes from pubd/publication-errors.ts.
 */
import type { PublishPdu, ReportError, WithdrawPdu } from '../protocol/publication.js'
import type { ContentChange } from './content.js'
import { reportError } from './publication-errors.js'

/** What one publisher may hold. */
export interface PublisherQuota {
  objects: number
  bytes: number
  /** The largest single object, in bytes. */
  objectBytes: number
}

/** Objects and bytes held (or allowed). */
export interface Usage {
  objects: number
  bytes: number
}

/** The limits that apply to one publisher's message. */
export interface QuotaLimits {
  publisher: PublisherQuota
  /** The whole publication server. */
  total: Usage
  /** All self-service publishers together; only for a self-service publisher. */
  selfService?: Usage
}

/** The usage before the message, measured as QuotaLimits names it. */
export interface QuotaUsage {
  publisher: Usage
  total: Usage
  selfService?: Usage
}

/** The configured quotas ([repository] quota_* and self_service_quota_*). */
export interface QuotaSettings {
  publisher: PublisherQuota
  total: Usage
  selfService: PublisherQuota
  selfServiceTotal: Usage
}

/** The limits of a publisher's messages: the self-service ones for a self-service publisher. */
export function limitsFor(s: QuotaSettings, selfService: boolean): QuotaLimits {
  return selfService ? { publisher: s.selfService, total: s.total, selfService: s.selfServiceTotal } : { publisher: s.publisher, total: s.total }
}

type Pdu = PublishPdu | WithdrawPdu

/**
 * How `changes` move the usage: objects added minus withdrawn, bytes of new content minus the bytes of what they
 * replace or withdraw. `sizeOf` gives the size of an object the publisher holds now (by URI).
 */
export function usageDelta(changes: readonly ContentChange[], sizeOf: (uri: string) => number): Usage {
  let objects = 0
  let bytes = 0
  for (const c of changes) {
    const before = c.previous !== undefined ? sizeOf(c.uri) : 0
    if (c.type === 'publish') {
      if (c.previous === undefined) objects += 1
      bytes += c.content.length - before
    } else {
      objects -= 1
      bytes -= before
    }
  }
  return { objects, bytes }
}

/**
 * The report_errors for a message of `publisher` that would exceed a quota, or [] when it fits: every publish PDU
 * larger than the largest object allowed (with the PDU), then every measure that the message grows beyond its limit.
 */
export function quotaProblems(publisher: string, pdus: readonly Pdu[], delta: Usage, used: () => QuotaUsage, limits: QuotaLimits): ReportError[] {
  const errors: ReportError[] = []
  const max = limits.publisher.objectBytes
  for (const pdu of pdus) {
    if (pdu.type === 'publish' && pdu.content.length > max) errors.push(reportError('pub-quota-exceeded', `RFC 8181 §2.5: the object at ${pdu.uri} has ${pdu.content.length} bytes, more than the quota of ${max} bytes for one object of publisher '${publisher}'; nothing was changed`, pdu))
  }
  if (delta.objects <= 0 && delta.bytes <= 0) return errors // shrinking is always allowed: no need to read the usage
  const u = used()
  const over = (what: string, now: Usage, limit: Usage) => {
    for (const m of ['objects', 'bytes'] as const) {
      const after = now[m] + delta[m]
      if (delta[m] > 0 && after > limit[m]) errors.push(reportError('pub-quota-exceeded', `RFC 8181 §2.5: ${what} would hold ${after} ${m === 'bytes' ? 'bytes' : 'objects'}, more than its quota of ${limit[m]}; nothing was changed`))
    }
  }
  over(`publisher '${publisher}'`, u.publisher, limits.publisher)
  if (limits.selfService && u.selfService) over('the self-service publishers together', u.selfService, limits.selfService)
  over('the publication server', u.total, limits.total)
  return errors
}

/**
 * The largest RFC 8181 message worth reading for a publisher with `quota`: its whole quota in base64 (4/3), plus
 * 1 KiB of XML per object it may hold (URIs, hashes, a withdraw of each), plus 64 KiB for the CMS envelope. A message
 * beyond that cannot be accepted, so it is refused before it is read.
 */
export function messageLimit(quota: PublisherQuota): number {
  return Math.ceil((quota.bytes * 4) / 3) + quota.objects * 1024 + 64 * 1024
}
