/**
 * The publication server's API (krill-reference.md §1.1 "Publication server"): publishers, their RFC 8183
 * responses, stale publishers, statistics, session reset, RFC 8181 and RRDP files. Without an embedded repository
 * every call but the RRDP lookup and the problems list is `pub-repo-not-initialized`.
 */
import { repositoryResponseJson, type PublisherDetails, type PublisherList, type PublisherRequestJson, type RepoStats, type RepositoryResponseJson } from '../api/pubd.js'
import type { ErrorBody } from '../api/status.js'
import type { Config } from '../config.js'
import { AppError } from '../errors.js'
import { idCertInfo } from '../protocol/id-cert.js'
import { encodeRepositoryResponse } from '../protocol/idexchange.js'
import { toBase64 } from '../util/base64.js'
import { pathHandle, publisherRequestInput } from './ca/inputs.js'
import type { PubServer, RrdpFile } from './pub-server.js'
import { repoStats } from './pubd-views.js'

export class PubdApi {
  constructor(private readonly pub: PubServer | undefined, private readonly repository: Config['repository'], private readonly now: () => Date) {}

  pubdPublishers(): PublisherList {
    return { publishers: this.server().store.publishers().map((p) => ({ handle: p.handle })) }
  }

  pubdPublisherAdd(input: { json: PublisherRequestJson } | { xml: string }): RepositoryResponseJson {
    const pub = this.server()
    return repositoryResponseJson(pub.publisherAdd(publisherRequestInput(input, this.now())))
  }

  pubdPublisherShow(handle: string): PublisherDetails {
    const p = this.server().publisher(pathHandle(handle))
    const files = this.server().store.objectsWithContent(p.handle).map((o) => ({ uri: o.uri, base64: toBase64(o.content) }))
    return { handle: p.handle, id_cert: idCertInfo(p.idCert), base_uri: p.baseUri, current_files: files }
  }

  pubdPublisherRemove(handle: string): void {
    this.server().publisherRemove(pathHandle(handle))
  }

  pubdPublisherResponse(handle: string): RepositoryResponseJson {
    return repositoryResponseJson(this.server().publisherResponse(pathHandle(handle)))
  }

  pubdPublisherResponseXml(handle: string): string {
    return encodeRepositoryResponse(this.server().publisherResponse(pathHandle(handle)))
  }

  pubdStale(seconds: number): PublisherList {
    return { publishers: this.server().stale(seconds).map((p) => ({ handle: p.handle })) }
  }

  /** What keeps the publication server's output from holding everything accepted; `withReason` adds the failures. */
  pubdProblems(withReason = true): ErrorBody[] {
    return this.pub?.outputProblems(withReason) ?? []
  }

  pubdStats(): RepoStats {
    return repoStats(this.server(), this.repository)
  }

  async pubdSessionReset(): Promise<void> {
    await this.server().sessionReset()
  }

  /** POST /rfc8181/{publisher}: the signed reply to a CMS-wrapped RFC 8181 message. */
  rfc8181(handle: string, body: Uint8Array): Promise<Uint8Array> {
    return this.server().rfc8181(handle, body)
  }

  /** GET /rrdp/{path}: an RRDP file, or undefined (404) when the repository is disabled or the name unknown. */
  rrdpFile(rel: string): RrdpFile | undefined {
    return this.pub?.rrdpFile(rel)
  }

  private server(): PubServer {
    if (!this.pub) throw new AppError('pub-repo-not-initialized')
    return this.pub
  }
}
