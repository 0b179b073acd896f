/**
 * RFC 6492 §3.6 error codes by table (design.md §6): which error_response status each of our error labels
 * (errors.ts) gets, and the error_response built from a failure; used by the RFC 6492 server (app/ca/child-server.ts).
 * A label without a row is 2001 (internal error). Pure domain code.
 */
import { AppError, reasonOf, type ErrorLabel } from '../errors.js'
import { ERROR_CODES, type ProvisioningDecodeKind, type ProvisioningPayload } from '../protocol/provisioning.js'
import { LibraryError } from '../util/errors.js'

/** RFC 6492 §3.6 codes by our error labels (design.md §6); `rfc6492-protocol` carries its own, anything else is 2001. */
export const UPDOWN_ERROR_CODE_OF: Partial<Record<ErrorLabel, number>> = {
  'rfc6492-version': 1102,
  'rfc6492-type': 1103,
  'rfc6492-invalid-csr': 1203,
  'rfc6492-invalid-key': 1302,
}

/** The label of each kind of decoding failure; `xml` and `payload` have no code of their own (2001). */
export const DECODE_LABELS: Record<ProvisioningDecodeKind, ErrorLabel> = {
  xml: 'rfc6492-xml', version: 'rfc6492-version', type: 'rfc6492-type', issue: 'rfc6492-invalid-csr', revoke: 'rfc6492-invalid-key', payload: 'rfc6492-xml',
}

/** The error_response for a failure (RFC 6492 §3.6): the code from the label table, 2001 for anything else. */
export function errorReply(e: unknown): ProvisioningPayload {
  let code: number | undefined
  if (e instanceof AppError) code = e.label === 'rfc6492-protocol' ? Number(e.args.code) : UPDOWN_ERROR_CODE_OF[e.label]
  // Only our own labelled and library errors are described; anything else is internal and says no more.
  const described = e instanceof AppError || e instanceof LibraryError
  const description = described ? reasonOf(e) : ERROR_CODES[2001]!
  return { type: 'error_response', status: code !== undefined && ERROR_CODES[code] ? code : 2001, description: description.slice(0, 1000) }
}
