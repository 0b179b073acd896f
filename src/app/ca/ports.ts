/**
 * What the CA service needs from outside its area, as narrow interfaces (design.md §6): the embedded publication
 * server (in-process RFC 8181, publisher registration), the transport to remote parents and repositories, and the
 * scheduler's task bookkeeping. The composition root passes the real ones; tests pass fakes.
 */
import type { PublicationQuery, PublicationReply } from '../../protocol/publication.js'
import type { PublisherRequest, RepositoryResponse } from '../../protocol/idexchange.js'
import type { Publisher } from '../../pubd/publishers.js'
import type { TaskKind } from '../../store/interfaces.js'
import type { PostOptions } from '../shared/protocol-client.js'

/** The embedded publication server as a CA uses it (app/pubd/ PublisherService implements it). */
export interface EmbeddedRepository {
  /** The registered publisher `handle`, or undefined. */
  findPublisher(handle: string): Publisher | undefined
  publisherAdd(req: PublisherRequest): RepositoryResponse
  publisherRemove(handle: string): void
  /** The publisher's new identity certificate (issue 25); its previous one stays accepted until it signs with the new. */
  publisherIdCertUpdate(handle: string, idCert: Uint8Array): void
  publisherResponse(handle: string): RepositoryResponse
  /** An RFC 8181 query of a publisher whose identity the caller has checked (in-process: no CMS). */
  publish(handle: string, query: PublicationQuery): PublicationReply
  /** Resolves when everything accepted so far is written to RRDP and rsync. */
  flushed(): Promise<void>
}

/** POST a CMS message to a remote RFC 6492 parent or RFC 8181 repository; resolves to the reply body. */
export type PostMessage = (uri: string, body: Uint8Array, o: PostOptions) => Promise<Uint8Array>

/** The scheduler's bookkeeping of a CA's timed tasks. */
export interface TaskScheduling {
  schedule(kind: TaskKind, ca: string, arg: string, due: number, opts?: { earlier?: boolean; ifMissing?: boolean }): void
  unschedule(kind: TaskKind, ca: string, arg: string): void
  /** Forget every task of a CA. */
  unscheduleCa(ca: string): void
}
