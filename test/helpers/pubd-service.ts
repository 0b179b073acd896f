/**
 * A PublicationService over a real database and data directory, wired as src/main.ts createPubServer wires it
 * (SQLite store, RRDP and rsync writers each reading through their own connection; no rsyncd). For tests and the
 * benchmark that need the whole publication side; tests of the service alone hand it fakes instead.
 */
import { join } from 'node:path'
import type { MessageCodec } from '../../src/app/pubd/message-codec.js'
import { PublicationService } from '../../src/app/pubd/publication-service.js'
import { defaults, type RepositoryConfig } from '../../src/config.js'
import { silentLogger, type Logger } from '../../src/log.js'
import { RrdpWriter } from '../../src/pubd/rrdp-writer.js'
import { RsyncWriter } from '../../src/pubd/rsync-writer.js'
import { Db } from '../../src/store/db.js'
import { PubdReader, SqlitePubdStore } from '../../src/store/pubd-store.js'

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
}

/** The service and `close` for the writers' read connections (call after `service.stop()`). */
export function buildPubdService(o: PubdServiceOptions): { service: PublicationService; close(): void } {
  const now = o.now ?? (() => new Date())
  const r: RepositoryConfig = { ...defaults().repository, rrdp_base_uri: 'https://localhost/rrdp/', rsync_base_uri: 'rsync://localhost/repo/', ...o.repository }
  const rrdpBaseUri = r.rrdp_base_uri!
  const rsyncBaseUri = r.rsync_base_uri!
  const store = new SqlitePubdStore(o.db)
  const readers = [Db.openSecondary(o.dbPath), Db.openSecondary(o.dbPath)]
  const rrdpDir = join(o.dataDir, 'repo', 'rrdp')
  const retention = { minNr: r.rrdp_delta_files_min_nr, minSeconds: r.rrdp_delta_files_min_seconds, maxNr: r.rrdp_delta_files_max_nr, maxSeconds: r.rrdp_delta_files_max_seconds }
  const rrdp = new RrdpWriter({ dir: rrdpDir, baseUri: rrdpBaseUri, store, reader: new PubdReader(readers[0]), now, retention })
  const rsync = new RsyncWriter({ dir: join(o.dataDir, 'repo', 'rsync'), baseUri: rsyncBaseUri, reader: new PubdReader(readers[1]), now })
  const config = { serviceUri: o.serviceUri ?? 'https://localhost/', rsyncBaseUri, rrdpBaseUri, rrdpDir, rrdpIntervalSeconds: r.rrdp_delta_interval_min_seconds }
  const service = new PublicationService({ store, rrdp, rsync, daemon: undefined, codec: o.codec, now, log: o.log ?? silentLogger(), config })
  return { service, close: () => readers.forEach((r) => r.close()) }
}
