/**
 * RFC 8181 §2.5 error codes by table: which `report_error` code each of our error labels (errors.ts) gets. Every
 * RFC 8181 error reply is built here, by the RFC 8181 endpoint (app/pubd/rfc8181-endpoint.ts) and by the delta
 * rules (pubd/content.ts); a label without a row is `other_error`. Pure domain code.
 */
import type { ErrorLabel } from '../errors.js'
import type { PublicationReply, PublishPdu, ReportError, ReportErrorCode, WithdrawPdu } from '../protocol/publication.js'

/** Label → RFC 8181 §2.5 code, for every label that can reach an RFC 8181 error reply. */
export const REPORT_ERROR_CODE_OF = {
  // RFC 8181 §2: the sender is not a publisher of this server, or names an object outside its jail.
  'pub-unknown': 'permission_failure',
  'pub-outside-jail': 'permission_failure',
  // RFC 8181 §2 / RFC 6492 §3.1: the CMS wrapper does not verify against the publisher's identity, or is a replay.
  'rfc8181-validation': 'bad_cms_signature',
  // RFC 8181 §3: the query is not a publication message we can decode.
  'rfc8181-protocol-message': 'xml_error',
  // RFC 8181 §3.2, §3.3: publish and withdraw against what the publisher holds.
  'rfc8181-object-already-present': 'object_already_present',
  'rfc8181-no-object-present': 'no_object_present',
  'rfc8181-no-object-matching-hash': 'no_object_matching_hash',
  // RFC 8181 §2.5: the objects would leave a state the repository cannot hold (a file where a directory must be).
  'rfc8181-consistency-problem': 'consistency_problem',
  // A quota (pubd/quota.ts): the message is well-formed, signed and inside the jail (so neither xml_error nor
  // permission_failure), the objects are consistent; RFC 8181 §2.5 has no code for a resource limit: other_error.
  'pub-quota-exceeded': 'other_error',
  // Our own failures: nothing was changed, the publisher may retry.
  'sys-storage-full': 'other_error',
  'sys-storage-io': 'other_error',
  'sys-storage-unavailable': 'other_error',
  'sys-internal': 'other_error',
} as const satisfies Partial<Record<ErrorLabel, ReportErrorCode>>

/** A label that has a row of the table. */
export type PublicationErrorLabel = keyof typeof REPORT_ERROR_CODE_OF

/** The RFC 8181 §2.5 code for a label; `other_error` for a label without a row. */
export function reportErrorCode(label: string): ReportErrorCode {
  return Object.hasOwn(REPORT_ERROR_CODE_OF, label) ? REPORT_ERROR_CODE_OF[label as PublicationErrorLabel] : 'other_error'
}

/** One report_error for `label`; with the PDU that failed (and its tag) when it is about one PDU. */
export function reportError(label: ErrorLabel, text: string, pdu?: PublishPdu | WithdrawPdu): ReportError {
  return { code: reportErrorCode(label), text, ...(pdu ? { failedPdu: pdu } : {}), ...(pdu?.tag !== undefined ? { tag: pdu.tag } : {}) }
}

/** An error reply of one report_error for `label` (RFC 8181 §2.4: a whole message refused). */
export function errorReply(label: ErrorLabel, text: string): PublicationReply {
  return { type: 'error_reply', errors: [reportError(label, text)] }
}
