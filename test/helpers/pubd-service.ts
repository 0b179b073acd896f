/**
 * The publication server's services over a real database and data directory, wired by compose.ts as svcd wires it (SQLite store,
 * RRDP and rsync writers each reading through their own connection; no rsyncd unless the options ask for it). For tests and the
 * benchmark that need the whole publication side; tests of the service alone hand it fakes instead.
 */
import type { MessageCodec } from '../../src/app/pubd/message-codec.js'
import type { PublishObserver } from '../../src/app/pubd/publish-latency.js'
import type { PublicationService } from '../../src/app/pubd/publication-service.js'
import { systemClock, systemRandom } from '../../src/clock.js'
import { composePublication } from '../../src/compose.js'
import { defaults, type RepositoryConfig } from '../../src/config.js'
import { silentLogger, type Logger } from '../../src/log.js'
import { Db } from '../../src/store/db.js'
import { SqlPublicationStore } from '../../src/store/pubd-store.js'

export interface PubdServiceOptions {
  /** The data directory: RRDP files under <dataDir>/repo/rrdp, the rsync tree under <dataDir>/repo/rsync. */
  dataDir: string
  db: Db
  /** The database file, for the writers' read connections. */
  dbPath: string
  codec: MessageCodec
  /** [repository] over the defaults; the base URIs default to https://localhost/rrdp/ and rsync://localhost/repo/. */
  repository?: Partial<RepositoryConfig>
  serviceUri?: string
  now?: () => Date
  log?: Logger
  /** Told of acknowledged publishes and of the notifications that contain them. */
  latency?: PublishObserver
}

/** The services and `close` for the writers' read connections (call after `service.outputs.stop()`), built by compose.ts. */
export function buildPubdService(o: PubdServiceOptions): { service: PublicationService; close(): void } {
  const repository: RepositoryConfig = { ...defaults().repository, rrdp_base_uri: 'https://localhost/rrdp/', rsync_base_uri: 'rsync://localhost/repo/', rsync_daemon: 'off', ...o.repository }
  return composePublication({
    repository, serviceUri: o.serviceUri ?? 'https://localhost/', ip: '127.0.0.1', dataDir: o.dataDir, openReader: () => Db.openSecondary(o.dbPath), store: new SqlPublicationStore(o.db), codec: o.codec,
    log: o.log ?? silentLogger(), now: o.now ?? (() => new Date()), clock: systemClock, random: systemRandom, ...(o.latency ? { latency: o.latency } : {}),
  })
}
