/**
 * Applying one RFC 8181 query to a publisher's current objects (RFC 8181 §3.2–§3.4): every PDU is checked in
 * order against the state left by the PDUs before it; the result is either the whole list of changes, or the
 * report_errors of every PDU that failed (and then nothing is applied). Pure domain code.
 */
import type { PublishPdu, ReportError, WithdrawPdu } from '../protocol/publication.js'
import { jailProblem } from './publishers.js'

/** One accepted change. `previous` is the hash of the replaced object (publish) or the withdrawn one. */
export type ContentChange =
  | { type: 'publish'; uri: string; content: Uint8Array; hash: string; previous?: string }
  | { type: 'withdraw'; uri: string; previous: string }

export type DeltaPlan = { ok: true; changes: ContentChange[] } | { ok: false; errors: ReportError[] }

/**
 * Check PDUs against the current objects. `current(uri)` gives the lowercase SHA-256 hex of the object at `uri`
 * held by this publisher, or undefined. `ownerOf(uri)` tells whether another publisher holds the URI (never
 * possible with disjoint jails, but checked anyway). `sha256` hashes new content.
 */
export function planDelta(
  pdus: readonly (PublishPdu | WithdrawPdu)[],
  jail: string,
  current: (uri: string) => string | undefined,
  sha256: (content: Uint8Array) => string,
): DeltaPlan {
  const overlay = new Map<string, string | null>()
  const state = (uri: string) => (overlay.has(uri) ? (overlay.get(uri) ?? undefined) : current(uri))
  const changes: ContentChange[] = []
  const errors: ReportError[] = []
  for (const pdu of pdus) {
    const fail = (code: ReportError['code'], text: string) => errors.push({ code, text, failedPdu: pdu, ...(pdu.tag !== undefined ? { tag: pdu.tag } : {}) })
    const outside = jailProblem(pdu.uri, jail)
    if (outside) {
      fail('permission_failure', `RFC 8181 §2: ${outside}`)
      continue
    }
    const have = state(pdu.uri)
    const given = pdu.hash?.toLowerCase()
    if (pdu.type === 'publish') {
      if (given === undefined && have !== undefined) fail('object_already_present', `RFC 8181 §3.2: an object is already present at ${pdu.uri}; replace it with its hash`)
      else if (given !== undefined && have === undefined) fail('no_object_present', `RFC 8181 §3.2: there is no object at ${pdu.uri} to replace`)
      else if (given !== undefined && given !== have) fail('no_object_matching_hash', `RFC 8181 §3.2: the object at ${pdu.uri} does not have hash ${given}`)
      else {
        const hash = sha256(pdu.content)
        changes.push({ type: 'publish', uri: pdu.uri, content: pdu.content, hash, ...(have !== undefined ? { previous: have } : {}) })
        overlay.set(pdu.uri, hash)
      }
    } else if (have === undefined) fail('no_object_present', `RFC 8181 §3.3: there is no object at ${pdu.uri} to withdraw`)
    else if (given !== have) fail('no_object_matching_hash', `RFC 8181 §3.3: the object at ${pdu.uri} does not have hash ${given}`)
    else {
      changes.push({ type: 'withdraw', uri: pdu.uri, previous: have })
      overlay.set(pdu.uri, null)
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, changes }
}
