/**
 * A CA's repository (krill-reference.md §1.1 "Repository", spec §3 rule 1): show it, change it (checked first with
 * a real RFC 8181 `list`), sync with it, and what it holds.
 */
import type { RepoInfoJson, RepoStatusJson } from '../../api/cas.js'
import { checkRepoChanged } from '../../ca/cert-auth.js'
import { AppError, reasonOf } from '../../errors.js'
import type { CaStatusStore } from '../../store/interfaces.js'
import { toBase64 } from '../../util/base64.js'
import type { CaCommands } from './ca-commands.js'
import type { CaPublisher } from './ca-publisher.js'
import { caPath, repoInput } from './inputs.js'
import type { RepoClient } from './repo-client.js'
import { exchangeJson, repoInfo, unixSeconds } from './views.js'

export interface RepoServiceDeps {
  commands: CaCommands
  publisher: Pick<CaPublisher, 'publishNow'>
  repo: RepoClient
  status: CaStatusStore
  now: () => Date
  /** The embedded publication server's RFC 8181 endpoints start with this, when svcd runs one. */
  embeddedPrefix: string | undefined
}

export class RepoService {
  constructor(private readonly d: RepoServiceDeps) {}

  caRepo(ca: string): RepoInfoJson {
    return repoInfo(this.d.commands.state(caPath(ca)))
  }

  /**
   * Change the CA's repository (spec §3 rule 1, in this order): check the new one is reachable and we are authorised
   * there (a real RFC 8181 `list`); regenerate all objects under the new jail and publish them there; ask all parents
   * for certificates with the new SIA; once received, clean up the old repository (best effort). Nothing changes
   * when the check fails. The steps after the command are its event's follow-ups (follow-ups.ts 'repo-updated'); this
   * answers once the objects are published in the new repository.
   */
  async caRepoUpdate(ca: string, input: { json: unknown } | { xml: string }): Promise<void> {
    const d = this.d
    const s = d.commands.state(caPath(ca))
    const response = repoInput(input, d.now())
    const embedded = d.embeddedPrefix !== undefined && response.serviceUri.startsWith(d.embeddedPrefix)
    const repo = { embedded, publisherHandle: response.publisherHandle, serviceUri: response.serviceUri, siaBase: response.siaBase, rrdpNotificationUri: response.rrdpNotificationUri ?? '', serverIdCert: toBase64(response.idCert) }
    checkRepoChanged(s, repo)
    try {
      d.repo.checkIdentity(s, response, embedded)
      await d.repo.list(s, repo)
    } catch (e) {
      if (e instanceof AppError && e.label === 'ca-repo-rrdp-foreign') throw e
      throw new AppError('ca-repo-issue', { ca, uri: repo.serviceUri, reason: reasonOf(e) })
    }
    await (await d.commands.run(ca, { type: 'repo-update', repo })).followUps
  }

  /** What the repository holds for the CA, from a real RFC 8181 `list` query (spec §2.6), or `ca-repo-issue`. */
  async caRepoStatus(ca: string): Promise<RepoStatusJson> {
    const s = this.d.commands.state(caPath(ca))
    if (!s.repo) throw new AppError('repo-not-set', { ca })
    let held: Map<string, string>
    try {
      held = await this.d.repo.list(s, s.repo)
    } catch (e) {
      throw new AppError('ca-repo-issue', { ca, uri: s.repo.serviceUri, reason: reasonOf(e) })
    }
    const st = this.d.status.get(ca, 'repo', 'repo')
    const published = [...held].map(([uri, hash]) => ({ uri, hash })).sort((a, b) => (a.uri < b.uri ? -1 : 1))
    return { last_exchange: exchangeJson(st), last_success: st?.lastSuccess ? unixSeconds(st.lastSuccess) : null, published }
  }

  async caSyncRepo(ca: string): Promise<void> {
    this.d.commands.state(caPath(ca))
    await this.d.publisher.publishNow(ca)
  }
}
