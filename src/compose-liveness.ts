/**
 * The liveness part of the composition root (design.md §6, §11; issue 26): the fetchers that read repositories as
 * relying parties do (their mirror under <data_dir>/liveness/), the liveness service over the stores, and what
 * compose.ts needs of it: the view for the routes, start/stop, and `published()` for the publication hooks.
 */
import { join } from 'node:path'
import { LivenessFetcher } from './app/liveness/fetcher.js'
import { LivenessService, type Sources } from './app/liveness/liveness-service.js'
import { RrdpFetcher } from './app/liveness/rrdp-fetcher.js'
import { RsyncFetcher } from './app/liveness/rsync-fetcher.js'
import type { AlarmSink, LivenessView, RepositoryFetcher } from './app/liveness/ports.js'
import type { Leadership } from './app/shared/leadership.js'
import type { CaState } from './ca/state.js'
import type { Config } from './config.js'
import type { BelievedPoint } from './liveness/model.js'
import type { Logger } from './log.js'
import type { Stores } from './store/interfaces.js'
import type { Clock } from './util/clock.js'

export interface LivenessParts {
  view: LivenessView
  service: LivenessService
  /** Start the schedule (every check_seconds; the first check after_publish_seconds after start). */
  start(): void
  stop(): Promise<void>
  /** A publication happened (an RRDP notification written, a sync to a remote repository): check soon. */
  published(): void
}

export interface LivenessOptions {
  config: Config
  dataDir: string
  stores: Pick<Stores, 'cas' | 'objects' | 'liveness'>
  leadership: Pick<Leadership, 'role'>
  clock: Clock
  log: Logger
  /** The alert service, when there is one. */
  alarms?: AlarmSink
  /** Tests: another fetcher (default: RRDP over HTTPS and the rsync client, mirrored under <data_dir>/liveness/). */
  fetcher?: RepositoryFetcher
}

/** The liveness service, or undefined with `[liveness] enabled = false`. */
export function composeLiveness(o: LivenessOptions): LivenessParts | undefined {
  const l = o.config.liveness
  if (!l.enabled) return undefined
  const fetcher = o.fetcher ?? livenessFetcher(o.config, join(o.dataDir, 'liveness'), o.clock, o.log)
  const service = new LivenessService({
    cas: o.stores.cas, objects: o.stores.objects, store: o.stores.liveness, fetcher, clock: o.clock, log: o.log,
    leading: () => o.leadership.role() === 'leader',
    sources: (s) => caSources(o.config, s),
    childSources: (p) => childSources(o.config, p),
    config: {
      checkMs: l.check_seconds * 1000, afterPublishMs: l.after_publish_seconds * 1000, children: l.children,
      rules: { expiryMarginMs: l.expiry_margin_hours * 3600_000, disagreementMs: l.disagreement_seconds * 1000, childRevokeMs: l.child_revoke_days * 86400_000 },
    },
    ...(o.alarms ? { alarms: o.alarms } : {}),
  })
  return { view: service, service, start: () => service.start(), stop: () => service.stop(), published: () => service.published() }
}

/**
 * Where relying parties fetch a CA's repository. The embedded one: its notification (`[liveness]
 * rrdp_notification_uri` when a CDN is in front) and, with `[liveness] rsync`, the whole rsync_base_uri once for all
 * its CAs. A remote one: the notification in the CA's repository response and the CA's own rsync directory.
 */
export function caSources(config: Config, s: CaState): Sources {
  const repo = s.repo
  if (!repo) return {}
  const l = config.liveness
  const r = config.repository
  if (repo.embedded && r.enabled) {
    const rrdp = l.rrdp_notification_uri || repo.rrdpNotificationUri
    return { rrdp, ...(l.rsync && r.rsync_base_uri ? { rsync: r.rsync_base_uri } : {}) }
  }
  return { ...(repo.rrdpNotificationUri.startsWith('https://') ? { rrdp: repo.rrdpNotificationUri } : {}), ...(l.rsync && repo.siaBase.startsWith('rsync://') ? { rsync: repo.siaBase } : {}) }
}

/** A delegated child's point: its rpkiNotify (https only) and, with `[liveness] rsync`, its caRepository (rsync only). */
export function childSources(config: Config, p: BelievedPoint): Sources {
  return { ...(p.rrdpNotificationUri.startsWith('https://') ? { rrdp: p.rrdpNotificationUri } : {}), ...(config.liveness.rsync && p.dir.startsWith('rsync://') ? { rsync: p.dir } : {}) }
}

/** RRDP over HTTPS and, with `[liveness] rsync`, Debian's rsync client into a mirror per source under `dir`; both bounded. */
function livenessFetcher(config: Config, dir: string, clock: Clock, log: Logger): RepositoryFetcher {
  const l = config.liveness
  const bounds = { timeoutMs: l.fetch_timeout_seconds * 1000, maxBytes: l.fetch_max_bytes, clock, log }
  const rrdp = new RrdpFetcher(bounds)
  const rsync = l.rsync ? new RsyncFetcher({ ...bounds, rsyncCommand: l.rsync_command, mirrorDir: join(dir, 'rsync') }) : undefined
  return new LivenessFetcher({ rrdp, ...(rsync ? { rsync } : {}), clock })
}
