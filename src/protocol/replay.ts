/**
 * Replay protection for CMS-signed protocol messages (RFC 6492 §3.1 and RFC 8181 §2, which uses the same CMS
 * profile). The signing-time attribute (RFC 6492 §3.1.1.6.4.3, checked as §3.1.2 asks) lets a server refuse old
 * messages; but signing-time has a resolution of one second, so a captured "publish x" replayed after a "withdraw x"
 * (or an up-down "issue" after a "revoke") signed in the same second would undo the later message. The rule kept per
 * peer, with the signing time of the newest message seen and the digests of the changing messages seen at that time:
 *   1. a message signed before the newest one seen is refused;
 *   2. a message that changes something (RFC 8181 publish/withdraw PDUs, RFC 6492 issue/revoke), signed in the same
 *      second as the newest one seen, is refused when a message with the same content (the CMS message-digest over
 *      the eContent, RFC 5652 §11.2) was already seen at that signing time.
 * A list query is never refused by rule 2: replaying it changes nothing, and a client may list twice in a second.
 * Pure; the publication server (pubd_replay) and a parent CA (ca_child_replay, per child) keep the state in the
 * database, read and saved under the sender's lock, so a restart and every other instance on the database see it
 * (issue 22, defect 3).
 */

/** Stored in the database (pubd_replay, ca_child_replay): changing this shape needs a migration. */
export interface ReplayState {
  /** ISO 8601 signing time of the newest message seen from the publisher. */
  signingTime: string
  /** Lowercase hex SHA-256 of the content of each changing message seen at that signing time. */
  digests: string[]
}

/** At most this many digests are kept for one second (a publisher sending more in one second is refused). */
export const MAX_DIGESTS_PER_SECOND = 1000

/** Why a message is a replay under the rules above, or undefined. `changes`: a publish/withdraw query. */
export function replayProblem(state: ReplayState | undefined, signingTime: Date, digest: string, changes: boolean): string | undefined {
  if (!state) return undefined
  const last = Date.parse(state.signingTime)
  const t = signingTime.getTime()
  if (t < last) return `RFC 6492 §3.1.2: signing-time ${iso(signingTime)} is before that of the last message, ${iso(new Date(last))}: possible replay`
  if (t > last || !changes) return undefined
  if (state.digests.includes(digest)) return `RFC 6492 §3.1.2: a message with this content signed at ${iso(signingTime)} was already received: replay`
  if (state.digests.length >= MAX_DIGESTS_PER_SECOND) return `RFC 6492 §3.1.2: more than ${MAX_DIGESTS_PER_SECOND} changing messages signed at ${iso(signingTime)}`
  return undefined
}

/** The state after a message that was not refused by replayProblem. */
export function replaySeen(state: ReplayState | undefined, signingTime: Date, digest: string, changes: boolean): ReplayState {
  const same = state !== undefined && Date.parse(state.signingTime) === signingTime.getTime()
  const digests = same ? state.digests : []
  return { signingTime: signingTime.toISOString(), digests: changes ? [...digests, digest] : digests }
}

function iso(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z')
}
