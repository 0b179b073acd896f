/** The publication server as the JSON API shows it (krill-reference.md §1.1 "pubserver server stats"). */
import type { RepoStats, SharedQuotaJson } from '../../api/pubd.js'
import { decodeManifest } from '../../objects/manifest.js'
import type { QuotaSettings, Usage } from '../../pubd/quota.js'
import type { PublicationStore, PublisherStats, RrdpState } from '../../store/interfaces.js'
import type { ProblemJson } from './problems.js'
import { publisherQuotaJson } from './publisher-quotas.js'

/** What the stats are made of: per-publisher counts, the RRDP state, the output problems, and the two base URIs. */
export interface RepoStatsInput {
  publishers: PublisherStats[]
  rrdp: RrdpState
  problems: ProblemJson[]
  rsyncBaseUri: string
  rrdpBaseUri: string
  quotas: QuotaSettings
}

/** The stats JSON; `manifests` gives each publisher's published manifests. */
export function repoStats(s: RepoStatsInput, manifests: (handle: string) => ManifestTimes[]): RepoStats {
  const problemOf = (handle: string) => s.problems.find((p) => p.label === 'sys-rsync-publisher' && p.args.publisher === handle) ?? null
  return {
    publishers: Object.fromEntries(s.publishers.map((p) => [p.handle, { objects: p.objects, size: p.size, last_update: p.lastPublish ?? null, manifests: manifests(p.handle), problem: problemOf(p.handle), ...publisherQuotaJson(s.quotas, p.selfService) }])),
    session: s.rrdp.session,
    serial: s.rrdp.serial,
    last_update: s.rrdp.updated,
    rsync_base: s.rsyncBaseUri,
    rrdp_base: s.rrdpBaseUri,
    problems: s.problems,
    quota: shared(s.quotas.total, s.publishers),
    self_service_quota: shared(s.quotas.selfServiceTotal, s.publishers.filter((p) => p.selfService)),
  }
}

function shared(limit: Usage, publishers: PublisherStats[]): SharedQuotaJson {
  return { objects: limit.objects, bytes: limit.bytes, used_objects: publishers.reduce((n, p) => n + Number(p.objects), 0), used_bytes: publishers.reduce((n, p) => n + Number(p.size), 0) }
}

export interface ManifestTimes {
  uri: string
  this_update: string
  next_update: string
}

/** This update and next update of each manifest a publisher has published, undecodable ones skipped. */
export function publishedManifests(store: PublicationStore, handle: string): ManifestTimes[] {
  const out = []
  for (const o of store.objectsWithContent(handle)) {
    if (!o.uri.endsWith('.mft')) continue
    try {
      const m = decodeManifest(o.content)
      out.push({ uri: o.uri, this_update: m.thisUpdate.toISOString(), next_update: m.nextUpdate.toISOString() })
    } catch {
      // Not a manifest we can read: the publisher's business, not a statistics failure.
    }
  }
  return out
}
