/**
 * A CA's side of publishing (RFC 8181 client, design.md §1): bring the repository in line with the CA's objects by
 * asking what it holds (`list`) and sending one delta of publishes and withdraws. The embedded publication server
 * is called in-process with the same semantics; a remote one over CMS-wrapped RFC 8181 on HTTPS. A failure is
 * recorded as the CA's repository issue and retried at the next publication or renewal; success clears it.
 */
import { AppError, reasonOf } from '../errors.js'
import type { CaState, RepoInfo } from '../ca/state.js'
import { decodePublicationReply, encodePublicationQuery, type PublicationQuery, type PublicationReply, type PublishPdu, type WithdrawPdu } from '../protocol/publication.js'
import { unwrapMessage } from '../protocol/signed-message.js'
import type { Publisher } from '../pubd/publishers.js'
import { fromBase64 } from '../util/base64.js'
import { bytesEqual } from '../util/bytes.js'
import type { RepositoryResponse } from '../protocol/idexchange.js'
import type { PublishedFile } from './ca-objects.js'
import type { CaServices } from './ca-services.js'
import { postMessage } from './protocol-client.js'

const PUBLICATION_TYPE = 'application/rpki-publication'

/**
 * The embedded publisher CA `s` may act as: it exists, it is registered with the CA's own identity certificate, and
 * its jail is `siaBase` when given. RFC 8181 §2 knows a publisher by its BPKI identity (a remote CA proves it with
 * the CMS signature); the in-process path proves it here, so one CA cannot publish, withdraw or delete as another.
 */
export function ownPublisher(svc: CaServices, s: CaState, handle: string, siaBase?: string): Publisher {
  if (!svc.pub) throw new AppError('pub-repo-not-initialized')
  const p = svc.pub.store.publisher(handle)
  if (!p) throw new Error(`RFC 8181 §2: '${handle}' is not a publisher of the embedded repository`)
  if (!bytesEqual(p.idCert, fromBase64(s.idCert))) throw new Error(`RFC 8181 §2: publisher '${handle}' is registered with another identity certificate than CA '${s.handle}'`)
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
export function checkRepoIdentity(svc: CaServices, s: CaState, r: RepositoryResponse, embedded: boolean): void {
  if (!embedded) {
    if (r.publisherHandle !== s.handle) throw new Error(`RFC 8183 §5.2.4: the response is for publisher '${r.publisherHandle}', but CA '${s.handle}' asks as '${s.handle}'`)
    return
  }
  const p = ownPublisher(svc, s, r.publisherHandle, r.siaBase)
  const own = svc.pub!.publisherResponse(p.handle)
  if (r.serviceUri !== own.serviceUri) throw new Error(`RFC 8183 §5.2.4: the service URI of publisher '${p.handle}' is ${own.serviceUri}, not ${r.serviceUri}`)
  if (!bytesEqual(r.idCert, own.idCert)) throw new Error("RFC 8183 §5.2.4: the repository_bpki_ta is not this repository's identity certificate")
}

/** Send one query to the CA's repository and return the verified reply. */
export async function repoExchange(svc: CaServices, s: CaState, repo: RepoInfo, query: PublicationQuery): Promise<PublicationReply> {
  if (repo.embedded) {
    const p = ownPublisher(svc, s, repo.publisherHandle, repo.siaBase)
    return svc.pub!.publish(p.handle, query)
  }
  const now = svc.now()
  const cms = await svc.messageSigner(s).sign(encodePublicationQuery(query), now)
  const answer = await postMessage(repo.serviceUri, cms, { contentType: PUBLICATION_TYPE, timeoutMs: 240_000, maxBytes: svc.config.post_limit_rfc8181 })
  const m = unwrapMessage(answer, { idCert: fromBase64(repo.serverIdCert), now: svc.now() })
  return decodePublicationReply(m.xml)
}

/** What the repository holds for the CA: uri → hash (a real `list` query). */
export async function repoList(svc: CaServices, s: CaState, repo: RepoInfo): Promise<Map<string, string>> {
  const reply = await repoExchange(svc, s, repo, { type: 'list' })
  if (reply.type === 'error_reply') throw new Error(`the repository refused the list query: ${reply.errors.map((e) => `${e.code}${e.text ? ` (${e.text})` : ''}`).join(', ')}`)
  if (reply.type !== 'list_reply') throw new Error(`the repository answered a list query with '${reply.type}'`)
  return new Map(reply.elements.map((e) => [e.uri, e.hash.toLowerCase()]))
}

/** The delta that turns `held` into `wanted`: publishes (with the old hash when replacing) and withdraws. */
export function repoDelta(held: Map<string, string>, wanted: readonly PublishedFile[], jail: string): (PublishPdu | WithdrawPdu)[] {
  const pdus: (PublishPdu | WithdrawPdu)[] = []
  const want = new Map(wanted.filter((f) => f.uri.startsWith(jail)).map((f) => [f.uri, f]))
  for (const f of want.values()) {
    const have = held.get(f.uri)
    if (have === f.hash) continue
    pdus.push(have ? { type: 'publish', uri: f.uri, hash: have, content: f.der } : { type: 'publish', uri: f.uri, content: f.der })
  }
  for (const [uri, hash] of held) if (!want.has(uri)) pdus.push({ type: 'withdraw', uri, hash })
  return pdus
}

/** Sync the CA's files to its repository (or `to`, e.g. the previous one); records the repository status either way. */
export async function syncRepo(svc: CaServices, s: CaState, files: readonly PublishedFile[], to: RepoInfo | undefined = s.repo): Promise<boolean> {
  const repo = to
  if (!repo) return false
  const time = svc.now().toISOString()
  try {
    const held = await repoList(svc, s, repo)
    const pdus = repoDelta(held, files, repo.siaBase)
    if (pdus.length) {
      const reply = await repoExchange(svc, s, repo, { type: 'delta', pdus })
      if (reply.type !== 'success') throw new Error(`the repository refused the update: ${reply.type === 'error_reply' ? reply.errors.map((e) => `${e.code}${e.text ? ` (${e.text})` : ''}`).join(', ') : reply.type}`)
      const published = pdus.filter((p) => p.type === 'publish').length
      const withdrawn = pdus.length - published
      svc.cas.appendPublication(s.handle, time, { label: 'pub-publish', msg: `Publish ${published} and withdraw ${withdrawn} objects at ${repo.serviceUri}`, args: { published: String(published), withdrawn: String(withdrawn), uri: repo.serviceUri } })
    }
    svc.status.record(s.handle, 'repo', 'repo', { time, uri: repo.serviceUri, result: 'success' })
    return true
  } catch (e) {
    svc.log.warn('repository sync failed', { ca: s.handle, uri: repo.serviceUri, reason: reasonOf(e) })
    svc.status.record(s.handle, 'repo', 'repo', { time, uri: repo.serviceUri, result: 'failure', label: 'ca-repo-issue', msg: reasonOf(e), args: { ca: s.handle, uri: repo.serviceUri } })
    return false
  }
}
