/**
 * Applying one RFC 8181 query to a publisher's current objects (RFC 8181 §3.2–§3.4): every PDU is checked in
 * order against the state left by the PDUs before it, and the state the whole message leaves must be one the rsync
 * tree can hold (no URI both a file and a directory); the result is either the whole list of changes, or the
 * report_errors of every PDU that failed (and then nothing is applied). Pure domain code.
 */
import type { ErrorLabel } from '../errors.js'
import type { PublishPdu, ReportError, WithdrawPdu } from '../protocol/publication.js'
import { reportError } from './publication-errors.js'
import { jailProblem } from './publishers.js'

/** One accepted change. `previous` is the hash of the replaced object (publish) or the withdrawn one. */
export type ContentChange =
  | { type: 'publish'; uri: string; content: Uint8Array; hash: string; previous?: string }
  | { type: 'withdraw'; uri: string; previous: string }

export type DeltaPlan = { ok: true; changes: ContentChange[] } | { ok: false; errors: ReportError[] }

/** What the publisher holds before the message, as planDelta reads it. */
export interface HeldObjects {
  /** The lowercase SHA-256 hex of the object at `uri` held by this publisher, or undefined. */
  hash(uri: string): string | undefined
  /** The URIs this publisher holds strictly below `dir` (which ends with '/'); read lazily, may be stopped early. */
  under(dir: string): Iterable<string>
}

type Pdu = PublishPdu | WithdrawPdu

/**
 * Check PDUs against the objects `held` and plan the changes; `sha256` hashes new content. Every PDU that fails
 * gets a report_error (RFC 8181 §2.5, its code by pubd/publication-errors.ts) and the whole message is refused.
 */
export function planDelta(pdus: readonly Pdu[], jail: string, held: HeldObjects, sha256: (content: Uint8Array) => string): DeltaPlan {
  const overlay = new Map<string, string | null>()
  const state = (uri: string) => (overlay.has(uri) ? (overlay.get(uri) ?? undefined) : held.hash(uri))
  const changes: ContentChange[] = []
  const errors: ReportError[] = []
  const publishedBy = new Map<string, Pdu>()
  for (const pdu of pdus) {
    const fail = (label: ErrorLabel, text: string) => errors.push(reportError(label, text, pdu))
    const outside = jailProblem(pdu.uri, jail)
    if (outside) {
      fail('pub-outside-jail', `RFC 8181 §2: ${outside}`)
      continue
    }
    const change = pdu.type === 'publish' ? checkPublish(pdu, state(pdu.uri), sha256, fail) : checkWithdraw(pdu, state(pdu.uri), fail)
    if (!change) continue
    changes.push(change)
    overlay.set(pdu.uri, change.type === 'publish' ? change.hash : null)
    if (change.type === 'publish') publishedBy.set(pdu.uri, pdu)
    else publishedBy.delete(pdu.uri)
  }
  for (const [uri, pdu] of publishedBy) {
    const clash = treeClash(uri, jail, state, overlay, held)
    if (clash) errors.push(reportError('rfc8181-consistency-problem', `RFC 8181 §2.5: ${clash}`, pdu))
  }
  return errors.length ? { ok: false, errors } : { ok: true, changes }
}

/** RFC 8181 §3.2: a publish without hash needs a free URI, one with hash replaces exactly that object. */
function checkPublish(pdu: PublishPdu, have: string | undefined, sha256: (c: Uint8Array) => string, fail: (label: ErrorLabel, text: string) => void): ContentChange | undefined {
  const given = pdu.hash?.toLowerCase()
  if (given === undefined && have !== undefined) fail('rfc8181-object-already-present', `RFC 8181 §3.2: an object is already present at ${pdu.uri}; replace it with its hash`)
  else if (given !== undefined && have === undefined) fail('rfc8181-no-object-present', `RFC 8181 §3.2: there is no object at ${pdu.uri} to replace`)
  else if (given !== undefined && given !== have) fail('rfc8181-no-object-matching-hash', `RFC 8181 §3.2: the object at ${pdu.uri} does not have hash ${given}`)
  else return { type: 'publish', uri: pdu.uri, content: pdu.content, hash: sha256(pdu.content), ...(have !== undefined ? { previous: have } : {}) }
  return undefined
}

/** RFC 8181 §3.3: a withdraw names an object that is there, with its hash. */
function checkWithdraw(pdu: WithdrawPdu, have: string | undefined, fail: (label: ErrorLabel, text: string) => void): ContentChange | undefined {
  const given = pdu.hash.toLowerCase()
  if (have === undefined) fail('rfc8181-no-object-present', `RFC 8181 §3.3: there is no object at ${pdu.uri} to withdraw`)
  else if (given !== have) fail('rfc8181-no-object-matching-hash', `RFC 8181 §3.3: the object at ${pdu.uri} does not have hash ${given}`)
  else return { type: 'withdraw', uri: pdu.uri, previous: have }
  return undefined
}

/**
 * Why the object `uri`, published by this message, cannot be a file of the rsync tree in the state the message
 * leaves, or undefined: a file cannot be a directory of other objects (`a.roa` and `a.roa/x.roa`), nor lie below
 * one (`d/x.roa` and `d`). `state` is that final state; `overlay` the URIs the message touched (null: withdrawn).
 */
export function treeClash(uri: string, jail: string, state: (uri: string) => string | undefined, overlay: ReadonlyMap<string, string | null>, held: HeldObjects): string | undefined {
  const segments = uri.slice(jail.length).split('/')
  for (let i = 1; i < segments.length; i++) {
    const dir = jail + segments.slice(0, i).join('/')
    if (state(dir) !== undefined) return `'${uri}' would lie below the object '${dir}': the rsync tree cannot hold both a file and a directory of that name`
  }
  const dir = uri + '/'
  for (const [other, hash] of overlay) if (hash !== null && other.startsWith(dir)) return directoryClash(uri, other)
  for (const other of held.under(dir)) if (!overlay.has(other)) return directoryClash(uri, other)
  return undefined
}

function directoryClash(uri: string, other: string): string {
  return `'${uri}' would be a file where '${other}' needs a directory: the rsync tree cannot hold both`
}
