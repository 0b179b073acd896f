/**
 * The publication side of the composition root (design.md §2, §6): the publication service with its RRDP and rsync
 * writers and rsyncd. compose.ts builds it for svcd; tests and benchmarks that need only this side call
 * `composePublication`.
 */
import { join } from 'node:path'
import { PubdCodec, type MessageCodec } from './app/pubd/message-codec.js'
import type { PublishObserver } from './app/pubd/publish-latency.js'
import { OutputService } from './app/pubd/output-service.js'
import type { PublicationService } from './app/pubd/publication-service.js'
import { PublisherService } from './app/pubd/publisher-service.js'
import { RsyncDaemon } from './app/pubd/rsync-daemon.js'
import { SafetyFloor } from './app/pubd/safety-floor.js'
import { loadOrCreateIdentity } from './app/shared/identity.js'
import type { Config, RepositoryConfig } from './config.js'
import type { Signer } from './crypto/signer.js'
import type { Logger } from './log.js'
import { MessageSigner } from './protocol/signed-message.js'
import { RrdpWriter } from './pubd/rrdp/index.js'
import { RsyncWriter } from './pubd/rsync-writer.js'
import type { PublicationStore, RrdpFileStore, SharedLocks, Stores } from './store/interfaces.js'
import { PubdReader } from './store/pubd-store.js'
import type { SqlDb } from './store/sql.js'
import type { Clock, Random } from './util/clock.js'
import { AppError } from './errors.js'
import { isSignerFailure, retryUntilSigned, type Retry } from './compose-retry.js'

/** What the publication side is built from (compose, and tests and benchmarks that need only this side). */
export interface PublicationParts {
  repository: RepositoryConfig
  serviceUri: string
  /** The address rsyncd listens on (with `rsync_daemon = "auto"`). */
  ip: string
  /** RRDP files under <dataDir>/repo/rrdp, the rsync tree under <dataDir>/repo/rsync. */
  dataDir: string
  /** A new connection to the database, for each writer's own read transactions. */
  openReader: () => SqlDb
  store: PublicationStore
  codec: MessageCodec
  log: Logger
  /** What gets recorded (serials, publishers, the publish delay); tests shift it. */
  now: () => Date
  /** Waits and durations (pacers, the cluster poll, file ages), and the random source of RRDP session ids and file names. */
  clock: Clock
  random: Random
  /** Told of each acknowledged publish and of the notification that contains it (the publish delay metric). */
  latency?: PublishObserver
  /** Several instances on one database (PostgreSQL): RRDP files through the database, serials by the leader only. */
  replication?: Replication
  /** Told after each RRDP serial written (the liveness check after a publication). */
  written?: () => void
}

/** What an instance on a shared database needs to make or copy RRDP serials (compose wires it to the leadership). */
export interface Replication {
  /** On the stores' database (the leader's writes), and on a reader's connection (the others' copies). */
  files: RrdpFileStore
  readerFiles: (db: SqlDb) => RrdpFileStore
  transaction: <T>(fn: () => T) => T
  fence: () => void
  leading: () => boolean
  pollMs: number
  /** The locks among the instances (RFC 8181 messages: one per publisher). */
  locks?: SharedLocks | undefined
}

/**
 * The publication service with its RRDP and rsync writers (each reading through its own connection) and rsyncd when
 * configured; `close` closes the writers' read connections (after the service stopped).
 */
export function composePublication(o: PublicationParts): { service: PublicationService; close: () => void } {
  const r = o.repository
  const readers = [o.openReader(), o.openReader()]
  const rrdpDir = join(o.dataDir, 'repo', 'rrdp')
  const retention = { minNr: r.rrdp_delta_files_min_nr, minSeconds: r.rrdp_delta_files_min_seconds, maxNr: r.rrdp_delta_files_max_nr, maxSeconds: r.rrdp_delta_files_max_seconds }
  const floor = new SafetyFloor({ minObjects: r.safety_min_objects, maxShrinkPercent: r.safety_max_shrink_percent })
  const rep = o.replication
  const replicate = rep && { transaction: rep.transaction, fence: rep.fence, files: rep.files, readerFiles: rep.readerFiles(readers[0]!) }
  const rrdp = new RrdpWriter({ dir: rrdpDir, baseUri: r.rrdp_base_uri!, store: o.store, reader: new PubdReader(readers[0]!), now: o.now, clock: o.clock, random: o.random, retention, hold: (b, a) => floor.check('rrdp', b, a), replicate })
  const daemon = r.rsync_daemon === 'auto' ? new RsyncDaemon({ rsyncBaseUri: r.rsync_base_uri!, workDir: join(o.dataDir, 'repo'), address: o.ip, log: o.log, clock: o.clock }) : undefined
  const rsync = new RsyncWriter({ dir: join(o.dataDir, 'repo', 'rsync'), baseUri: r.rsync_base_uri!, reader: new PubdReader(readers[1]!), now: o.now, clock: o.clock, graceSeconds: r.rsync_tree_grace_seconds, maxTrees: r.rsync_trees_max, hold: (b, a) => floor.check('rsync', b, a), onSwitch: (tree) => daemon?.setPath(tree) })
  const quotas = { publisher: { objects: r.quota_objects, bytes: r.quota_bytes, objectBytes: r.quota_object_bytes }, total: { objects: r.quota_total_objects, bytes: r.quota_total_bytes }, selfService: { objects: r.self_service_quota_objects, bytes: r.self_service_quota_bytes, objectBytes: r.self_service_quota_object_bytes }, selfServiceTotal: { objects: r.self_service_quota_total_objects, bytes: r.self_service_quota_total_bytes } }
  const cluster = rep && { leading: rep.leading, pollMs: rep.pollMs }
  const outputs = new OutputService({ store: o.store, rrdp, rsync, daemon, clock: o.clock, now: o.now, log: o.log, config: { rrdpIntervalSeconds: r.rrdp_delta_interval_min_seconds, outputLagMaxSeconds: r.output_lag_max_seconds }, floor, cluster, ...(o.latency ? { latency: o.latency } : {}), ...(o.written ? { written: o.written } : {}) })
  const config = { serviceUri: o.serviceUri, rsyncBaseUri: r.rsync_base_uri!, rrdpBaseUri: r.rrdp_base_uri!, quotas }
  const publishers = new PublisherService({ store: o.store, output: outputs, codec: o.codec, now: o.now, log: o.log, locks: rep?.locks, config })
  return { service: { publishers, outputs }, close: () => readers.forEach((reader) => reader.close()) }
}

/** The embedded publication server of svcd: its identity (created at first start) and CMS codec, then the service. */
export async function createPublication(config: Config, dataDir: string, openReader: () => SqlDb, stores: Stores, signer: Signer, log: Logger, time: { now: () => Date; clock: Clock; random: Random }, latency: PublishObserver, replication?: Replication, written?: () => void): Promise<{ service: PublicationService; close: () => void; identity?: Retry }> {
  const make = async () => {
    const identity = await loadOrCreateIdentity('pubd', stores.properties, signer, time.now())
    return new PubdCodec(new MessageSigner({ idKey: identity.key, idCert: identity.cert, newEeKey: () => signer.oneOffKey() }))
  }
  let codec: MessageCodec
  let retry: Retry | undefined
  try {
    codec = await make()
  } catch (e) {
    // The default signer cannot sign (a token absent at start): the publication server answers sys-signer-unavailable
    // until its identity can be read or made; then it serves as usual (the identity is made once, never replaced).
    if (!isSignerFailure(e)) throw e
    const pending = new PendingCodec(e)
    codec = pending
    retry = retryUntilSigned('the publication server identity', async () => pending.ready(await make()), { clock: time.clock, log })
  }
  const built = composePublication({ repository: config.repository, serviceUri: config.service_uri, ip: config.ip, dataDir, openReader, store: stores.publication, codec, log, now: time.now, clock: time.clock, random: time.random, latency, replication, ...(written ? { written } : {}) })
  return { service: built.service, close: () => (retry?.stop(), built.close()), ...(retry ? { identity: retry } : {}) }
}

/** The codec of a publication server whose identity is not available yet: every use answers the signer's error. */
class PendingCodec implements MessageCodec {
  #codec: MessageCodec | undefined
  constructor(private readonly why: AppError) {}

  ready(codec: MessageCodec): void {
    this.#codec = codec
  }

  get idCert(): Uint8Array {
    return this.codec().idCert
  }

  sign(xml: string, now: Date): Promise<Uint8Array> {
    try {
      return this.codec().sign(xml, now)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  verify(cms: Uint8Array, peer: { handle: string; idCert: Uint8Array }, now: Date): ReturnType<MessageCodec['verify']> {
    return this.codec().verify(cms, peer, now)
  }

  private codec(): MessageCodec {
    if (this.#codec) return this.#codec
    throw new AppError(this.why.label, this.why.args)
  }
}
