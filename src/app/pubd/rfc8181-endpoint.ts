/**
 * The RFC 8181 endpoint of the publication server: verify a publisher's CMS message (RFC 8181 §2), refuse replays
 * (protocol/replay.ts), decode the query and apply it through the PublisherService; every outcome is a reply to
 * sign, never an exception: a failure of our storage is an RFC 8181 §2.5 report saying that nothing was changed.
 * Every error reply gets its code from the table in pubd/publication-errors.ts, by our error label.
 *
 * Messages of one publisher are serialised (issue 22, defects 3 and 4): the replay check, the existence and hash
 * checks (pubd/content.ts planDelta) and the write run in one database transaction under the publisher's lock
 * (`pub:<handle>`: the in-process keyed mutex and, with several instances on one database, the shared lock among
 * them), with the replay state read from the database there, never from memory another instance cannot see. The
 * lock is asynchronous (PostgreSQL: an advisory lock on a connection of its own, store/pg-locks.ts) and is taken
 * before the synchronous transaction begins, as CA commands do; CMS verification runs before, outside the lock.
 */
import { AppError, reasonOf, storageFault } from '../../errors.js'
import type { Logger } from '../../log.js'
import { decodePublicationQuery, type PublicationQuery, type PublicationReply } from '../../protocol/publication.js'
import { errorReply } from '../../pubd/publication-errors.js'
import type { Publisher } from '../../pubd/publishers.js'
import { replayProblem, replaySeen, type ReplayState } from '../../protocol/replay.js'
import type { MessageCodec } from './message-codec.js'
import type { PublicationStore, SharedLocks } from '../../store/interfaces.js'
import { KeyedMutex } from '../shared/keyed-mutex.js'

export interface Rfc8181Deps {
  store: PublicationStore
  codec: MessageCodec
  log: Logger
  /** Apply a decoded query for a publisher, saving `replay` with its changes (PublisherService.publish). */
  publish(handle: string, query: PublicationQuery, replay?: ReplayState): PublicationReply
  /** Several instances on one database: the publisher's lock among them, held with the in-process one. */
  locks?: SharedLocks | undefined
}

/** A verified message: its XML, signing time and content digest (MessageCodec.verify). */
type Verified = { xml: string; signingTime: Date; digest: string }

export class Rfc8181Endpoint {
  /** Serialises the messages of each publisher (`pub:<handle>`), and with `locks` among the instances. */
  private readonly lock: KeyedMutex
  /**
   * Issue 25: a publisher's identity certificate before its last update, accepted until its first message signed with
   * the new one. Kept in memory: the overlap ends at the latest when the server restarts (or another instance answers).
   */
  private readonly previous = new Map<string, Uint8Array>()

  constructor(private readonly d: Rfc8181Deps) {
    this.lock = new KeyedMutex(d.locks)
  }

  /** The reply to one CMS-wrapped message from `handle` (RFC 8181 §2.4: report_error for every failure). */
  async reply(handle: string, body: Uint8Array, now: Date): Promise<PublicationReply> {
    try {
      return await this.handle(handle, body, now)
    } catch (e) {
      const fault = storageFault(e)
      this.d.log.error('RFC 8181 message failed', { publisher: handle, err: reasonOf(e), ...(fault ? {} : { stack: (e as Error)?.stack }) })
      const failure = fault ?? (e instanceof AppError && e.status < 500 ? e : undefined)
      const what = failure ? failure.message : 'the server failed to process the message; nothing was changed, retry later'
      return errorReply(failure?.label ?? 'sys-internal', `RFC 8181 §2.5: ${what}`)
    }
  }

  /** Verify and decode outside the lock; then check for a replay and apply, under the publisher's lock. */
  private async handle(handle: string, body: Uint8Array, now: Date): Promise<PublicationReply> {
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
    return this.lock.run(`pub:${handle}`, () => {
      const r = this.d.store.transaction(() => this.apply(handle, m, query))
      if (r.unsaved) this.save(handle, r.unsaved)
      return r.reply
    })
  }

  /**
   * In the publisher's transaction: refuse a replay by the state in the database, else apply. The replay state after
   * the message is saved with the changes (applied), or returned as `unsaved` (list, refused, or nothing to change)
   * to be saved on its own after the transaction, still under the lock.
   */
  private apply(handle: string, m: Verified, query: PublicationQuery): { reply: PublicationReply; unsaved?: ReplayState } {
    const changes = query.type === 'delta' && query.pdus.length > 0
    const state = this.d.store.replayState(handle)
    const replay = replayProblem(state, m.signingTime, m.digest, changes)
    if (replay) {
      this.d.log.warn('RFC 8181 message refused', { publisher: handle, reason: replay })
      return { reply: errorReply('rfc8181-validation', replay) }
    }
    const next = replaySeen(state, m.signingTime, m.digest, changes)
    const reply = this.d.publish(handle, query, changes ? next : undefined)
    return !changes || reply.type !== 'success' ? { reply, unsaved: next } : { reply }
  }

  /** The publisher's identity certificate was replaced: `idCert` is accepted until it signs with the new one. */
  idCertReplaced(handle: string, idCert: Uint8Array): void {
    this.previous.set(handle, idCert)
  }

  /** The message verified against the publisher's identity certificate (or its previous one), or the bad_cms_signature reply. */
  private verify(publisher: Publisher, body: Uint8Array, now: Date): Verified | { error: PublicationReply } {
    try {
      const m = this.d.codec.verify(body, publisher, now)
      this.previous.delete(publisher.handle)
      return m
    } catch (e) {
      const prev = this.previous.get(publisher.handle)
      if (prev) {
        try {
          return this.d.codec.verify(body, { handle: publisher.handle, idCert: prev }, now)
        } catch {
          // reported below with the current certificate's reason
        }
      }
      this.d.log.warn('RFC 8181 message refused', { publisher: publisher.handle, reason: reasonOf(e) })
      return { error: errorReply('rfc8181-validation', reasonOf(e)) }
    }
  }

  /**
   * Save the replay state of a message that changed nothing: when storage fails (a full disk) the reply stands and
   * the state stays as it was before the message (which changed nothing).
   */
  private save(handle: string, state: ReplayState): void {
    try {
      this.d.store.saveReplayState(handle, state)
    } catch (e) {
      if (!storageFault(e)) throw e
      this.d.log.warn('RFC 8181 replay state not saved: storage failed', { publisher: handle, err: reasonOf(e) })
    }
  }
}
