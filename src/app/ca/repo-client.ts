/**
 * A CA's side of publishing (RFC 8181 client, design.md §1): ask the repository what it holds (`list`) and send it
 * deltas. The embedded publication server is called in-process with the same semantics, after checking the CA is
 * the publisher it names; a remote one over CMS-wrapped RFC 8181 on HTTPS.
 */
import { AppError } from '../../errors.js'
import type { CaState, RepoInfo } from '../../ca/state.js'
import { decodePublicationReply, encodePublicationQuery, PUBLICATION_CONTENT_TYPE, type PublicationQuery, type PublicationReply } from '../../protocol/publication.js'
import { unwrapMessage } from '../../protocol/signed-message.js'
import type { Publisher } from '../../pubd/publishers.js'
import { fromBase64 } from '../../util/base64.js'
import { bytesEqual } from '../../util/bytes.js'
import type { RepositoryResponse } from '../../protocol/idexchange.js'
import type { MessageSigners } from './message-signers.js'
import type { EmbeddedRepository, PostMessage } from './ports.js'


export interface RepoClientDeps {
  /** The embedded publication server, when svcd runs one. */
  publication: EmbeddedRepository | undefined
  signers: MessageSigners
  post: PostMessage
  now: () => Date
  /** Largest RFC 8181 reply accepted from a remote repository (bytes). */
  postLimit: number
}

export class RepoClient {
  constructor(private readonly d: RepoClientDeps) {}

  /**
   * The embedded publisher CA `s` may act as: it exists, it is registered with the CA's own identity certificate, and
   * its jail is `siaBase` when given. RFC 8181 §2 knows a publisher by its BPKI identity (a remote CA proves it with
   * the CMS signature); the in-process path proves it here, so one CA cannot publish, withdraw or delete as another.
   */
  ownPublisher(s: CaState, handle: string, siaBase?: string): Publisher {
    if (!this.d.publication) throw new AppError('pub-repo-not-initialized')
    const p = this.d.publication.findPublisher(handle)
    if (!p) throw new Error(`RFC 8181 §2: '${handle}' is not a publisher of the embedded repository`)
    // During an identity key roll (ca/id-roll.ts) the publisher may already be registered with the new identity.
    if (!bytesEqual(p.idCert, fromBase64(s.idCert)) && !(s.idNext && bytesEqual(p.idCert, fromBase64(s.idNext.idCert)))) throw new Error(`RFC 8181 §2: publisher '${handle}' is registered with another identity certificate than CA '${s.handle}'`)
    if (siaBase !== undefined && siaBase !== p.baseUri) throw new Error(`RFC 8183 §5.2.4: the jail of publisher '${handle}' is ${p.baseUri}, not ${siaBase}`)
    return p
  }

  /**
   * A repository response is for CA `s` (issue 10): in the embedded repository, the publisher it names must be the CA's
   * own (ownPublisher) and the response must be the one the repository gives for it (service URI, jail, server
   * identity); a remote repository must name the publisher handle the CA asked as in its publisher_request, and the
   * `list` that follows proves the rest (our CMS signature is checked against the publisher's registered identity,
   * the reply's against the server's identity certificate in the response).
   */
  checkIdentity(s: CaState, r: RepositoryResponse, embedded: boolean): void {
    if (!embedded) {
      if (r.publisherHandle !== s.handle) throw new Error(`RFC 8183 §5.2.4: the response is for publisher '${r.publisherHandle}', but CA '${s.handle}' asks as '${s.handle}'`)
      return
    }
    const p = this.ownPublisher(s, r.publisherHandle, r.siaBase)
    const own = this.d.publication!.publisherResponse(p.handle)
    if (r.serviceUri !== own.serviceUri) throw new Error(`RFC 8183 §5.2.4: the service URI of publisher '${p.handle}' is ${own.serviceUri}, not ${r.serviceUri}`)
    if (!bytesEqual(r.idCert, own.idCert)) throw new Error("RFC 8183 §5.2.4: the repository_bpki_ta is not this repository's identity certificate")
    // Issue 22 defect 5: the embedded repository's response with another notification URI would put a foreign RRDP
    // URI in the CA's certificates (and used to be taken as a move away from the CA's own publisher).
    if (r.rrdpNotificationUri !== own.rrdpNotificationUri) {
      throw new AppError('ca-repo-rrdp-foreign', { ca: s.handle, publisher: p.handle, uri: r.rrdpNotificationUri ?? '(none)', expected: own.rrdpNotificationUri ?? '(none)' })
    }
  }

  /** Send one query to the CA's repository and return the verified reply. */
  async exchange(s: CaState, repo: RepoInfo, query: PublicationQuery): Promise<PublicationReply> {
    if (repo.embedded) {
      const p = this.ownPublisher(s, repo.publisherHandle, repo.siaBase)
      return this.d.publication!.publish(p.handle, query)
    }
    const cms = await this.d.signers.of(s).sign(encodePublicationQuery(query), this.d.now())
    const answer = await this.d.post(repo.serviceUri, cms, { contentType: PUBLICATION_CONTENT_TYPE, timeoutMs: 240_000, maxBytes: this.d.postLimit })
    const m = unwrapMessage(answer, { idCert: fromBase64(repo.serverIdCert), now: this.d.now() })
    return decodePublicationReply(m.xml)
  }

  /** What the repository holds for the CA: uri → hash (a real `list` query). */
  async list(s: CaState, repo: RepoInfo): Promise<Map<string, string>> {
    const reply = await this.exchange(s, repo, { type: 'list' })
    if (reply.type === 'error_reply') throw new Error(`the repository refused the list query: ${reply.errors.map((e) => `${e.code}${e.text ? ` (${e.text})` : ''}`).join(', ')}`)
    if (reply.type !== 'list_reply') throw new Error(`the repository answered a list query with '${reply.type}'`)
    return new Map(reply.elements.map((e) => [e.uri, e.hash.toLowerCase()]))
  }
}
