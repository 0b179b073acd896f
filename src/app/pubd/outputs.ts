/**
 * What the OutputService needs of its outputs: the RRDP module (RFC 8182 files), the rsync tree writer and the
 * rsync daemon that serves the tree. The composition root builds the concrete ones (pubd/rrdp/writer.ts,
 * pubd/rsync-writer.ts, app/pubd/rsync-daemon.ts); a test hands in fakes.
 */
import type { CycleResult, RrdpFile } from '../../pubd/rrdp/index.js'
import type { RsyncCycle } from '../../pubd/rsync-writer.js'

/** The RRDP files under <data_dir>/repo/rrdp/: the RRDP module's entry (pubd/rrdp/ RrdpWriter). */
export interface RrdpOutput {
  /** Bring the files in line with the database at start; why a new session was started, if one was. */
  init(): Promise<string | undefined>
  /** Write one new serial from the pending changes; undefined when nothing was pending. Never two at once. */
  cycle(): Promise<CycleResult | undefined>
  /** A new session: serial 1, a snapshot and no deltas (RFC 8182 §3.5.1.2); the pending changes (seqs) it consumed. */
  resetSession(): Promise<readonly number[]>
  /** The notification file's URI (RFC 8183 §5.2.4 rrdp_notification_uri). */
  notificationUri(): string
  /**
   * An instance that does not lead: copy the database's current serial here; true when a new one was written.
   * `inRead` runs first inside the copy's consistent read.
   */
  mirror(inRead?: (view: { stillPending(seqs: readonly number[]): Set<number> }) => void): Promise<boolean>
  /** The session and serial of the notification this instance serves. */
  served(): { session?: string; serial?: number }
  /** Resolves once the work begun in the background (a large snapshot's gzip copy) is done. */
  settled(): Promise<void>
  /** GET /rrdp/{rel}: an RRDP file (its gzip copy when `gzip`), or undefined for any other name. */
  file(rel: string, gzip?: boolean): RrdpFile | undefined
}

/** The rsync tree under <data_dir>/repo/rsync/ (pubd/rsync-writer.ts RsyncWriter). */
export interface RsyncOutput {
  /** Make sure a current tree exists, and learn what it holds. */
  init(): void
  /** Build a new tree from the database and switch to it; publishers whose files failed kept their old ones. */
  cycle(): Promise<RsyncCycle>
  /** Save what the current tree holds, for the next start (at shutdown). */
  save(): void
  /** The real directory of the current tree, for rsyncd. */
  currentTree(): string
  /** Whether the current tree holds `uri` with this content (hex SHA-256). */
  holds(uri: string, sha256: string): boolean
}

/** rsyncd run by svcd for rsync_daemon = "auto" (app/pubd/rsync-daemon.ts RsyncDaemon). */
export interface RsyncServer {
  /** Start serving `modulePath`; false when rsync is not installed (the repository is then served over RRDP only). */
  start(modulePath: string): boolean
  stop(): Promise<void>
}
