/**
 * The RFC 8181 endpoint of the publication server: verify a publisher's CMS message (RFC 8181 §2), refuse replays
 * (protocol/replay.ts), decode the query and apply it through the PublicationService; every outcome is a reply to
 * sign, never an exception: a failure of our storage is an RFC 8181 §2.5 report saying that nothing was changed.
 * Every error reply gets its code from the table in pubd/publication-errors.ts, by our error label.
 */
import { AppError, reasonOf, storageFault } from '../../errors.js'
import type { Logger } from '../../log.js'
import { decodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../protocol/publication.js'
import { errorReply } from '../../pubd/publication-errors.js'
import type { Publisher } from '../../pubd/publishers.js'
import { replayProblem, replaySeen, type ReplayState } from '../../protocol/replay.js'
import type { MessageCodec } from './message-codec.js'
import type { PubdStore } from '../../store/interfaces.js'

export interface Rfc8181Deps {
  store: PubdStore
  codec: MessageCodec
  log: Logger
  /** Apply a decoded query for a publisher, saving `replay` with its changes (PublicationService.publish). */
  publish(handle: string, query: PublicationQuery, replay?: ReplayState): PublicationReply
}

export class Rfc8181Endpoint {
  /** The replay state per publisher as last seen, also when saving it failed (the database holds it otherwise). */
  private readonly replay = new Map<string, ReplayState>()

  constructor(private readonly d: Rfc8181Deps) {}

  /** Forget a removed publisher's replay state (the database row goes with the publisher). */
  forget(handle: string): void {
    this.replay.delete(handle)
  }

  /** The reply to one CMS-wrapped message from `handle` (RFC 8181 §2.4: report_error for every failure). */
  reply(handle: string, body: Uint8Array, now: Date): PublicationReply {
    try {
      return this.handle(handle, body, now)
    } catch (e) {
      const fault = storageFault(e)
      this.d.log.error('RFC 8181 message failed', { publisher: handle, err: reasonOf(e), ...(fault ? {} : { stack: (e as Error)?.stack }) })
      const failure = fault ?? (e instanceof AppError && e.status < 500 ? e : undefined)
      const what = failure ? failure.message : 'the server failed to process the message; nothing was changed, retry later'
      return errorReply(failure?.label ?? 'sys-internal', `RFC 8181 §2.5: ${what}`)
    }
  }

  /**
   * Verify, decode, check for a replay, apply. The replay state after the message is kept in memory at once and saved
   * with the changes (applied) or on its own (list, refused, or nothing to change).
   */
  private handle(handle: string, body: Uint8Array, now: Date): PublicationReply {
    const publisher = this.d.store.publisher(handle)
    if (!publisher) return errorReply('pub-unknown', `RFC 8181 §2: '${handle}' is not a publisher of this server`)
    const m = this.verify(publisher, body, now)
    if ('error' in m) return m.error
    let query: PublicationQuery
    try {
      query = decodePublicationQuery(m.xml)
    } catch (e) {
      return errorReply('rfc8181-protocol-message', reasonOf(e))
    }
    const changes = query.type === 'delta' && query.pdus.length > 0
    const state = this.state(handle)
    const replay = replayProblem(state, m.signingTime, m.digest, changes)
    if (replay) {
      this.d.log.warn('RFC 8181 message refused', { publisher: handle, reason: replay })
      return errorReply('rfc8181-validation', replay)
    }
    const next = replaySeen(state, m.signingTime, m.digest, changes)
    this.replay.set(handle, next)
    const reply = this.d.publish(handle, query, changes ? next : undefined)
    if (!changes || reply.type !== 'success') this.save(handle, next)
    return reply
  }

  /** The message verified against the publisher's identity certificate, or the bad_cms_signature reply. */
  private verify(publisher: Publisher, body: Uint8Array, now: Date): { xml: string; signingTime: Date; digest: string } | { error: PublicationReply } {
    try {
      return this.d.codec.verify(body, publisher, now)
    } catch (e) {
      this.d.log.warn('RFC 8181 message refused', { publisher: publisher.handle, reason: reasonOf(e) })
      return { error: errorReply('rfc8181-validation', reasonOf(e)) }
    }
  }

  /** The publisher's replay state: as last seen by this process, else as saved in the database. */
  private state(handle: string): ReplayState | undefined {
    return this.replay.get(handle) ?? this.d.store.replayState(handle)
  }

  /** Save the replay state of a message that changed nothing; when storage fails, memory keeps it until a restart. */
  private save(handle: string, state: ReplayState): void {
    try {
      this.d.store.saveReplayState(handle, state)
    } catch (e) {
      if (!storageFault(e)) throw e
      this.d.log.warn('RFC 8181 replay state kept in memory only: storage failed', { publisher: handle, err: reasonOf(e) })
    }
  }
}
