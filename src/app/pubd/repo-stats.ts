/** The publication server as the JSON API shows it (krill-reference.md §1.1 "pubserver server stats"). */
import type { RepoStats } from '../api/pubd.js'
import type { RepositoryConfig } from '../config.js'
import type { PubServer } from './pub-server.js'

export function repoStats(pub: PubServer, repo: RepositoryConfig): RepoStats {
  const { publishers, rrdp, problems } = pub.stats()
  const problemOf = (handle: string) => problems.find((p) => p.label === 'sys-rsync-publisher' && p.args.publisher === handle) ?? null
  return {
    publishers: Object.fromEntries(publishers.map((p) => [p.handle, { objects: p.objects, size: p.size, last_update: p.lastPublish ?? null, manifests: pub.manifests(p.handle), problem: problemOf(p.handle) }])),
    session: rrdp.session,
    serial: rrdp.serial,
    last_update: rrdp.updated,
    rsync_base: repo.rsync_base_uri!,
    rrdp_base: repo.rrdp_base_uri!,
    problems,
  }
}
