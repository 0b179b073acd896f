/**
 * The output side of the publication server (design.md §6, §7): RRDP serials and rsync trees paced from what the
 * publisher side accepted (publisher-service.ts tells it through `changed`), or, on an instance that does not lead,
 * the leader's serials copied from the database; their problems and lags (GET /ready, the bulk issues), the safety
 * floor's release, the session reset, and the RRDP files served under /rrdp/. The composition root builds its RRDP
 * module (pubd/rrdp/), rsync writer and rsyncd and hands them in.
 */
import { AppError, reasonOf } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { PublicationStore } from '../../store/interfaces.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import { Pacer } from '../shared/pacer.js'
import { lagObserver, OUTPUT_LAG_MAX_SECONDS, OutputLag, PACING_BUDGET_WINDOW_MS, RSYNC_PACING } from './output-lag.js'
import type { RrdpOutput, RsyncOutput, RsyncServer } from './outputs.js'
import { OutputProblems, type ProblemJson } from './problems.js'
import type { PublicationOutput } from './publisher-service.js'
import type { PublishObserver } from './publish-latency.js'
import type { RrdpFile } from '../../pubd/rrdp/index.js'
import type { SafetyFloor } from './safety-floor.js'

/** The share of the time RRDP serials may take (the pacer's busyShare; see the constructor). */
export const RRDP_BUSY_SHARE = 0.05
const RRDP_MAX_SPACING_MS = 10_000 // however slow the last serial (a loaded machine), the next comes within 10 s

/** The settings the output side reads (from the config's [repository]). */
export interface OutputConfig {
  /** rrdp_delta_interval_min_seconds: the least time between two RRDP serials. */
  rrdpIntervalSeconds: number
  /** output_lag_max_seconds: an acknowledged change missing from RRDP or the rsync tree after this long is a problem. */
  outputLagMaxSeconds?: number
}

/** The collaborators of the service, built by the composition root. */
export interface OutputServiceDeps {
  /** The RRDP state, for the log. */
  store: Pick<PublicationStore, 'rrdpState' | 'serialHolds'>
  rrdp: RrdpOutput
  rsync: RsyncOutput
  /** rsyncd, for rsync_daemon = "auto"; undefined when the tree is served by something else. */
  daemon: RsyncServer | undefined
  /** Waits and durations: the pacers' timers, the cluster poll, how long a serial took. */
  clock: Clock
  /** The service's time: when a change was acknowledged and notified (the publish delay), problems' times. */
  now: () => Date
  log: Logger
  /**
   * Several instances on one database (design.md §7): whether this one leads (only the leader makes serials; the
   * others copy them from the database) and how often to look for changes other instances accepted or serials the
   * leader made. Without it the instance is alone and leads.
   */
  cluster?: { leading: () => boolean; pollMs: number }
  config: OutputConfig
  /** The safety floor the writers' `hold` hooks consult; released through pubdRelease. */
  floor?: SafetyFloor
  /** Told of each acknowledged change and of the notification that contains it (the publish delay metric). */
  latency?: PublishObserver
  /** Told after each RRDP serial this instance wrote (the liveness check that follows a publication). */
  written?: () => void
}

export class OutputService implements PublicationOutput {
  private readonly d: OutputServiceDeps
  private readonly rrdpPacer: Pacer
  private readonly rsyncPacer: Pacer
  private readonly problems: OutputProblems
  /** Acknowledged changes not yet in RRDP, and not yet in the rsync tree (output-lag.ts). */
  private readonly rrdpLag = new OutputLag()
  private readonly rsyncLag = new OutputLag()
  /** Whether the RRDP files were brought in line with the database since this instance began to lead. */
  private initialised = false
  private poll: TimerHandle | undefined

  constructor(deps: OutputServiceDeps) {
    this.d = { ...deps, latency: lagObserver(deps.latency, this.rrdpLag, this.rsyncLag) }
    this.problems = new OutputProblems(deps.log, deps.now)
    const clock = deps.clock
    // Issue 10: a failed write (full disk, I/O error) is retried until done, and is a problem (GET /ready) until then.
    const retry = { firstMs: 1000, maxMs: 30_000 }
    // A serial writes a whole new snapshot (a copy of the previous one plus what changed), so its cost grows with the
    // repository, not with the change. Serials take at most a twentieth of the time, budgeted over a minute: a single
    // change after a quiet spell gets its serial at once (issue 28: one change at a time at 1,000 objects waited 20 ×
    // the last serial), while a large repository under a stream of changes (a thousand CAs being created, or thousands
    // of publishers) batches them into fewer serials, one every few seconds, as the publication-server BCP advises
    // (never more than 10 s apart), and `rrdp_delta_interval_min_seconds` can space them further.
    this.rrdpPacer = new Pacer(() => this.rrdpCycle(), deps.config.rrdpIntervalSeconds * 1000, (e) => this.problems.failed('rrdp', 'sys-rrdp-behind', e), clock, { retry, onSuccess: () => this.problems.recovered('rrdp'), busyShare: RRDP_BUSY_SHARE, budgetWindowMs: PACING_BUDGET_WINDOW_MS, maxSpacingMs: RRDP_MAX_SPACING_MS })
    // A tree is built once the changes have paused for half a second, or under constant change at least every 10 s;
    // trees take at most a hundredth of the time but are never more than 30 s apart, whatever one publisher sent
    // (issue 22: after a burst of 10,000 objects, trees were 440 s apart). See output-lag.ts.
    this.rsyncPacer = new Pacer(() => this.rsyncCycle(), 1000, (e) => this.problems.failed('rsync', 'sys-rsync-behind', e), clock, { retry, onSuccess: () => this.problems.recovered('rsync'), ...RSYNC_PACING })
  }

  /** Bring the RRDP files and the rsync tree in line with the database, and start rsyncd if there is one. */
  async start(): Promise<void> {
    if (this.leading()) await this.initRrdp()
    else this.initialised = false
    this.d.rsync.init()
    this.rrdpPacer.kick()
    this.rsyncPacer.kick()
    this.d.daemon?.start(this.d.rsync.currentTree())
    if (this.d.cluster) this.poll = this.d.clock.setInterval(() => this.rrdpPacer.kick(), this.d.cluster.pollMs)
  }

  /** This instance now leads (or no longer does): its next RRDP cycle starts from the database's current serial. */
  leadershipChanged(): void {
    this.initialised = false
    this.rrdpPacer.kick()
  }

  /** The session and serial of the notification this instance serves. */
  served(): { session?: string; serial?: number } {
    return this.d.rrdp.served()
  }

  async stop(): Promise<void> {
    this.d.clock.clear(this.poll)
    await this.rrdpPacer.stop()
    await this.d.rrdp.settled()
    await this.rsyncPacer.stop()
    try {
      this.d.rsync.save()
    } catch (e) {
      this.d.log.warn('could not save the rsync tree listing; the next start rewrites the tree', { err: reasonOf(e) })
    }
    await this.d.daemon?.stop()
  }

  /** Changes were accepted (`seq`: the last one recorded): observed for the publish delay, and RRDP runs soon. */
  changed(seq?: number, publisher?: string): void {
    if (seq !== undefined) this.d.latency?.acked(seq, this.d.now().getTime(), publisher)
    this.rrdpPacer.kick()
  }

  /** Write everything accepted so far to RRDP and the rsync tree now (not after the usual pause); resolves when done. */
  async flushed(): Promise<void> {
    await this.rrdpPacer.flush()
    await this.rsyncPacer.flush()
    await this.d.rrdp.settled()
  }

  notificationUri(): string {
    return this.d.rrdp.notificationUri()
  }

  /** Release what the safety floor holds back: the next RRDP serial and rsync tree go ahead, whatever they remove. */
  async pubdRelease(): Promise<void> {
    const held = this.problems.keys().filter((k) => k.startsWith('held:'))
    this.d.floor?.release()
    this.d.log.warn('safety floor released by the operator', { held: held.map((k) => k.slice('held:'.length)).join(',') })
    this.rrdpPacer.kick()
    this.rsyncPacer.kick()
    await this.rrdpPacer.idle()
  }

  async pubdSessionReset(): Promise<void> {
    if (!this.leading()) throw new AppError('sys-not-leader', { action: 'an RRDP session reset', leader: 'see GET /api/v1/cluster' })
    await this.rrdpPacer.idle()
    const consumed = await this.d.rrdp.resetSession()
    this.d.latency?.notified(consumed, this.d.now().getTime())
    this.d.log.info('RRDP session reset', { session: this.d.store.rrdpState()?.session })
  }

  /** GET /rrdp/{path}: an RRDP file (its gzip copy when `gzip`), or undefined (404) for anything else. */
  rrdpFile(rel: string, gzip = false): RrdpFile | undefined {
    return this.d.rrdp.file(rel, gzip)
  }

  /**
   * Whether both outputs hold `uri` with this content (hex SHA-256; issue 26 §4): RRDP's served notification is the
   * database's last serial and that serial holds it, and the current rsync tree holds the same bytes. A TAL is served
   * only then, so a relying party that reads it finds the certificate over either transport at once.
   */
  holds(uri: string, sha256: string): { rrdp: boolean; rsync: boolean } {
    const served = this.d.rrdp.served()
    const recorded = this.d.store.rrdpState()
    const rrdp = served.serial !== undefined && recorded !== undefined && served.session === recorded.session && served.serial === recorded.serial && this.d.store.serialHolds(uri) === sha256
    return { rrdp, rsync: this.d.rsync.holds(uri, sha256) }
  }

  /**
   * For the watchdog (issue 26 §5): the oldest acknowledged change RRDP does not hold yet (ms), and the pacers of
   * both outputs (a run pending or running since when).
   */
  stallView(): { rrdpOldestWaiting: number | undefined; rrdpOldestPublisher?: string; pacers: { name: string; pendingSince?: number; runningSince?: number }[] } {
    const publisher = this.rrdpLag.oldestPublisher()
    return {
      rrdpOldestWaiting: this.rrdpLag.behind(this.d.clock.now(), -1),
      ...(publisher !== undefined ? { rrdpOldestPublisher: publisher } : {}),
      pacers: [{ name: 'rrdp', ...this.rrdpPacer.health() }, { name: 'rsync', ...this.rsyncPacer.health() }],
    }
  }

  /**
   * What keeps RRDP or the rsync tree from holding everything accepted, for GET /ready and the bulk issues: empty
   * while they hold it or are catching up without a failure. `withReason` adds the underlying failure (not for
   * unauthenticated callers).
   */
  outputProblems(withReason = false): ProblemJson[] {
    this.checkLag()
    return this.problems.list(withReason)
  }

  //------------ Output cycles ----------------------------------------------------------------------------------------

  private leading(): boolean {
    return this.d.cluster?.leading() ?? true
  }

  /** The RRDP files in line with the database; a leader in a cluster first copies what the previous leader made. */
  private async initRrdp(): Promise<void> {
    // Files the database does not hold (a database filled by `svcd migrate`) are no reason to stop: init() then finds
    // them missing and starts a new session, as continuity cannot be proven.
    if (this.d.cluster) await this.mirror().catch((e: unknown) => this.d.log.warn('could not copy the current RRDP serial from the database', { err: reasonOf(e) }))
    const reset = await this.d.rrdp.init()
    if (reset) this.d.log.info('RRDP session started', { session: this.d.store.rrdpState()?.session, reason: reset })
    this.initialised = true
  }

  private async rrdpCycle(): Promise<void> {
    this.rrdpPacer.busy(0) // only a leader's serials count toward RRDP's share: a copy follows the leader's pace already
    if (!this.leading()) {
      if (await this.mirror()) this.rsyncPacer.kick()
      return
    }
    if (!this.initialised) await this.initRrdp()
    const began = this.d.clock.now()
    const r = await this.d.rrdp.cycle()
    this.rrdpPacer.busy(this.d.clock.now() - began)
    if (this.problems.hold('rrdp', r?.held)) return
    if (r) {
      this.d.latency?.notified(r.consumed, this.d.now().getTime())
      this.d.log.debug('RRDP serial written', { serial: r.serial, elements: r.elements, snapshot_bytes: r.snapshotBytes })
      this.rsyncPacer.kick()
      this.d.written?.()
    }
  }

  /** Copy the leader's serial; the publishes acknowledged here that it contains are observed then (publish-latency.ts). */
  private async mirror(): Promise<boolean> {
    const latency = this.d.latency
    let contained: number[] = []
    const wrote = await this.d.rrdp.mirror((view) => {
      const waiting = latency?.waitingSeqs() ?? []
      if (waiting.length === 0) return
      const still = view.stillPending(waiting)
      contained = waiting.filter((s) => !still.has(s))
    })
    latency?.notified(contained, this.d.now().getTime())
    return wrote
  }

  /**
   * One rsync tree cycle. Publishers whose files could not be written kept their previous files and are problems of
   * their own; the cycle then counts as failed, so that the pacer retries it, but the tree did switch for the rest.
   */
  private async rsyncCycle(): Promise<void> {
    this.rsyncLag.runStarts()
    const r = await this.d.rsync.cycle()
    if (r.freshMs !== undefined) this.rsyncPacer.busy(r.freshMs) // a recycled tree is spaced as a fresh one (rsync-writer.ts)
    if (this.problems.hold('rsync', r.held)) return
    if (!r.failed.length) this.rsyncLag.runSucceeded()
    this.checkLag()
    this.problems.rsyncPublishers(r.failed)
  }

  /** Record or clear the lag of each output: an acknowledged change it does not hold after the bound (output-lag.ts). */
  private checkLag(): void {
    const bound = this.d.config.outputLagMaxSeconds ?? OUTPUT_LAG_MAX_SECONDS
    this.problems.lag('rrdp', this.rrdpLag, bound)
    this.problems.lag('rsync', this.rsyncLag, bound)
  }
}
