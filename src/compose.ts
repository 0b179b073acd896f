/**
 * The composition root (design.md §2, §6): the one place, with main.ts and cli.ts, that constructs stores, signers,
 * writers, servers and services, and wires them together. svcd (main.ts), the scenario tests that need a wired
 * daemon in-process, and the benchmarks all build through `compose`.
 */
import { hostname } from 'node:os'
import { DEFAULT_DUMP_LIMITS } from './app/bgp/ris-loader.js'
import { RisWhoisService } from './app/bgp/ris-service.js'
import { AnalysisPool } from './app/bgp/analysis-pool.js'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { CaCommands } from './app/ca/ca-commands.js'
import { CaFollowUps } from './app/ca/ca-follow-ups.js'
import { CaPublisher } from './app/ca/ca-publisher.js'
import { PlanService } from './app/ca/plan-service.js'
import { RoaIoService } from './app/ca/roa-io-service.js'
import { StructureImportService } from './app/ca/structure-import.js'
import { CaService } from './app/ca/ca-service.js'
import { RscService } from './app/ca/rsc-service.js'
import { CaTasks } from './app/ca/ca-tasks.js'
import { commandAudit } from './app/ca/command-audit.js'
import { ChildServer } from './app/ca/child-server.js'
import { ChildService } from './app/ca/child-service.js'
import { IdRollService } from './app/ca/id-roll-service.js'
import { MessageSigners } from './app/ca/message-signers.js'
import { ParentClient, type LocalUpdown } from './app/ca/parent-client.js'
import { ParentService } from './app/ca/parent-service.js'
import type { EmbeddedRepository, TaskScheduling } from './app/ca/ports.js'
import { RepoClient } from './app/ca/repo-client.js'
import { RepoService } from './app/ca/repo-service.js'
import { RoasView } from './app/ca/roas-view.js'
import { ChildExchanges } from './app/metrics/metrics-snapshot.js'
import { MetricsService } from './app/metrics/metrics-service.js'
import { PublishLatency } from './app/pubd/publish-latency.js'
import type { PublicationService } from './app/pubd/publication-service.js'
import { SingleInstance, type Leadership } from './app/shared/leadership.js'
import { postMessage } from './app/shared/protocol-client.js'
import { ClusterService } from './app/shared/cluster.js'
import { Scheduler } from './app/shared/scheduler.js'
import { StatusService } from './app/status-service.js'
import { clockAt, systemClock, systemRandom } from './clock.js'
import { composeAccess } from './compose-access.js'
import { composeLiveness } from './compose-liveness.js'
import { composeAlerts } from './compose-alerts.js'
import { composeQueues, type Queues } from './compose-queues.js'
import { createPublication } from './compose-publication.js'
import { openStorage } from './compose-storage.js'
import type { Config } from './config.js'
import type { Signer } from './crypto/signer.js'
import { composeSigners } from './compose-signers.js'
import { effectiveSigners } from './config-signers.js'
import { SignerService } from './app/signers/signer-service.js'
import { isSignerFailure, retryUntilSigned, type Retry } from './compose-retry.js'
import type { HttpServices } from './http/app.js'
import type { Logger } from './log.js'
import { MessageSigner } from './protocol/signed-message.js'
import { TaKeyRollService } from './ta/ta-keyroll-service.js'
import { TestbedService } from './ta/testbed-service.js'
import { fromBase64 } from './util/base64.js'
import type { Clock, Random, TimerHandle } from './util/clock.js'

export { composePublication, type PublicationParts, type Replication } from './compose-publication.js'
export { openStorage, type Storage } from './compose-storage.js'
import { VERSION } from './version.js'

export interface ComposeOptions {
  config: Config
  /** The data directory (absolute): svcd.db, keys/, the repository output. */
  dataDir: string
  log: Logger
  /** The one clock of everything that reads the time, waits or schedules (default: the system's); a test's fake. */
  clock?: Clock
  /** Without `clock`: the time, fixed or shifted by a test, with the system's timers (clockAt). */
  now?: () => Date
  /** The one source of randomness (default: the operating system's); tests inject a deterministic one. */
  random?: Random
  /** The signer; tests inject one (default: the software signer with keys under <data_dir>/keys). */
  signer?: Signer
  /** The admin token (main.ts reads or generates it); without one, only sessions and API tokens authenticate. */
  adminToken?: string
}

/** A wired svcd without its HTTP listener: the services for the routes, and start/stop of the background work. */
export interface Composed {
  services: HttpServices
  signer: Signer
  /** This instance's role and leader epoch: a single instance is the leader with epoch 0; several elect one. */
  leadership: Leadership
  /** The clock everything was built with (main.ts hands it to the HTTP edge). */
  clock: Clock
  /** The scheduler of timed tasks (tests stop it and run what is due by hand at an injected clock). */
  scheduler: Pick<Scheduler, 'runDue' | 'stop'>
  /** Queues that heal and stalls (issue 26 §5): conditions() of "publication" and "queues", attach(AlarmSink.report). */
  queues: Queues
  /** Start background work (repository writers, rsyncd, testbed, scheduled tasks). */
  start(): Promise<void>
  /** Start filling the key pool (after svcd listens: a restart is not slowed down by spare keys). */
  startKeyPool(): void
  /** Stop background work and close the database. */
  shutdown(): Promise<void>
}

export async function compose(o: ComposeOptions): Promise<Composed> {
  const { config, dataDir, log } = o
  const clock = o.clock ?? (o.now ? clockAt(o.now) : systemClock)
  const now = () => clock.date()
  const rand = o.random ?? systemRandom
  const random = (n: number) => rand.bytes(n)
  const started = now()
  const t = config.timing

  // Storage and keys. The pool starts filling once svcd listens: until then keys are made on demand only.
  const { db, stores, openReader, keys, cluster: shared } = openStorage(config, dataDir)
  // Several instances on one database: what the configuration creates (identities, the testbed) is created once, by
  // whichever instance holds the start-up lock first; leadership is decided once everything is in place (start).
  const clusterStore = shared?.store()
  // Each CA's commands and publication run on one instance at a time (a lock per CA among the instances).
  const caLocks = shared?.locks(clock)
  let releaseInit: (() => Promise<void>) | undefined
  try {
    releaseInit = await clusterStore?.startupLock()
  } catch (e) {
    db.close()
    throw e
  }
  // The signers (design.md §10): tokens are opened now; one that cannot be opened is retried, svcd starts not ready.
  let signerBack = (_name: string) => {}
  const signing = composeSigners(config, keys, stores.signers, log, clock, (name) => signerBack(name))
  const pool = signing.pool
  signing.set.start()
  const signer = o.signer ?? signing.set
  const signerService = new SignerService({ set: signing.set, oneOffSigner: effectiveSigners(config).oneOffSigner, registry: stores.signers })
  stores.transaction(() => {
    if (!stores.properties.get('created')) stores.properties.set('created', now().toISOString())
    stores.properties.set('version', VERSION)
  })

  // Leadership: alone on SQLite; on PostgreSQL elected among the instances (only the leader runs scheduled tasks and
  // makes RRDP serials). What taking and giving up the lead starts and stops is built below.
  const instanceId = config.instance_id ?? `${hostname()}:${config.port}`
  const url = `${config.https_mode === 'disable' ? 'http' : 'https'}://${config.ip.includes(':') ? `[${config.ip}]` : config.ip}:${config.port}/`
  const served = () => pub?.outputs.served() ?? {}
  const cluster = clusterStore
    ? new ClusterService({
        store: clusterStore, id: instanceId, url, started, leaseMs: config.cluster_lease_seconds * 1000, served, log, clock,
        onLead: async () => {
          pub?.outputs.leadershipChanged()
          caTasks!.resume({ republishAll: true }) // what the deposed leader left half done is redone
          scheduler.start()
        },
        onFollow: async () => {
          await scheduler.stop()
          pub?.outputs.leadershipChanged()
        },
      })
    : undefined
  const single = new SingleInstance(instanceId, url, started, served, clock)
  const leadership: Leadership = cluster ?? single

  const queues = composeQueues({ store: stores.quarantine, clock, log, stallSeconds: config.liveness.stall_seconds })
  // Alarms (design.md §11): raised and cleared by the leader from the conditions each producer reports; webhooks told.
  const alerts = composeAlerts(config, stores, { leading: () => leadership.role() === 'leader', instance: instanceId, clock, random: rand, log, delivered: (w, outcome) => metrics.observeDelivery(w, outcome) })
  queues.attach((source, conditions) => alerts.report(source, conditions)) // publish-stalled; service-stalled, task-quarantined
  // Metrics (GET /metrics): read from the stores at scrape time; told of publishes, child exchanges and requests.
  const metrics = new MetricsService({
    sources: { cas: stores.cas, objects: stores.objects, status: stores.status, tasks: stores.tasks, publication: config.repository.enabled ? stores.publication : undefined, children: new ChildExchanges(clock) },
    leadership, keyPool: pool, storeAlive: () => db.version() > 0, version: VERSION, started, clock, hideDetails: config.metrics_hide_details, processMetrics: true,
    signers: () => signerService.list().signers, alarms: () => alerts.active(),
    liveness: () => liveness?.view.all() ?? [], livenessChecks: () => liveness?.service.stats() ?? { checks: { ok: 0, failed: 0 } }, queues: () => queues.gauges(),
  })
  const latency = new PublishLatency((seconds) => metrics.observePublishDelay(seconds))

  // The embedded publication server. A publication asks for a liveness check (built below).
  let published = () => {}
  let pubd: { service: PublicationService; close: () => void; identity?: Retry } | undefined
  try {
    const replication = shared && clusterStore ? { files: shared.files(db), readerFiles: shared.files, transaction: stores.transaction, fence: () => leadership.fence(), leading: () => leadership.role() === 'leader', pollMs: config.cluster_poll_ms, locks: caLocks } : undefined
    pubd = config.repository.enabled ? await createPublication(config, dataDir, openReader, stores, signer, log, { now, clock, random: rand }, latency, replication, () => published()) : undefined
  } catch (e) {
    await releaseInit?.()
    await clusterStore?.close()
    db.close()
    throw e
  }
  const pub = pubd?.service
  const embedded: EmbeddedRepository | undefined = pub?.publishers

  // The scheduler runs CA tasks; it is built first, the task runner is set below (it needs the services). What cannot be
  // decoded is quarantined, a task that hangs frees its slot, and the watchdog reports stalls (issue 26 §5).
  let caTasks: CaTasks | undefined
  const scheduler = new Scheduler({
    quarantine: (e) => void queues.quarantine.put(e),
    stallMs: config.liveness.stall_seconds * 1000,
    tasks: stores.tasks,
    run: (task) => caTasks!.run(task),
    retry: { firstMs: t.retry_seconds * 1000, maxMs: t.parent_refresh_seconds * 1000 },
    clock,
    log,
    fence: clusterStore ? () => stores.transaction(() => leadership.fence()) : undefined,
  })
  const tasks: TaskScheduling = {
    schedule: (kind, ca, arg, due, opts) => scheduler.schedule(kind, ca, arg, due, opts),
    unschedule: (kind, ca, arg) => scheduler.unschedule(kind, ca, arg),
    unscheduleCa: (ca) => stores.tasks.removeCa(ca),
  }
  // The CA service and its collaborators.
  const commands = new CaCommands({ store: stores.cas, signer, now, random, locks: caLocks, transaction: stores.transaction, timing: { childCertValidSeconds: t.child_cert_valid_seconds, childCertReissueBeforeSeconds: t.child_cert_reissue_before_seconds } })
  const { access, sessions, audit, logins, tokens, oidc } = composeAccess(config, stores, o.adminToken ?? '', clock, rand, log, (provider, outcome) => metrics.observeLogin(provider, outcome))
  // The audit trail (design.md §9): every CA command in the transaction of its history entry; publishers right after.
  commands.audited(commandAudit(audit))
  pub?.publishers.audited((e) => void audit.record(e))
  const signers = new MessageSigners((idKey, idCert) => new MessageSigner({ idKey: signer.signingKey(idKey), idCert: fromBase64(idCert), newEeKey: () => signer.oneOffKey() }))
  const repoClient = new RepoClient({ publication: embedded, signers, post: postMessage, now, postLimit: config.post_limit_rfc8181 })
  let parents: ParentService | undefined
  let cas: CaService | undefined
  const publisher = new CaPublisher({
    commands, objects: stores.objects, status: stores.status, history: stores.cas, repo: repoClient, signer, now, clock, random, log, locks: caLocks,
    timing: {
      mftNextUpdateSeconds: t.mft_next_update_seconds, mftReissueSeconds: t.mft_reissue_seconds, mftReissueJitterSeconds: t.mft_reissue_jitter_seconds, roaValidSeconds: t.roa_valid_seconds,
      roaReissueBeforeSeconds: t.roa_reissue_before_seconds, roaAggregateThreshold: t.roa_aggregate_threshold, roaDeaggregateThreshold: t.roa_deaggregate_threshold,
    },
    certificateExpired: (ca, parent) => parents!.syncLater(ca, parent),
    releasePublisher: (s, p) => cas!.releasePublisher(s, p),
    published: () => published(),
  })
  queues.observe({ scheduler, outputs: pub?.outputs, cluster, pacers: () => publisher.pacerHealth() })
  // Suspension of inactive children (timing.suspend_child_after_inactive_seconds; 0: off, and no contact is recorded).
  const suspendAfter = t.suspend_child_after_inactive_seconds
  const contact = (ca: string, child: string) => stores.status.record(ca, 'child', child, { time: now().toISOString(), uri: '', result: 'success' })
  const suspendEveryMs = Math.min(3600, Math.max(1, Math.floor(suspendAfter / 2))) * 1000
  const suspension = suspendAfter > 0
    ? { afterSeconds: suspendAfter, lastContact: (ca: string, child: string) => stores.status.get(ca, 'child', child)?.time, contact, schedule: (ca: string) => tasks.schedule('suspend-children', ca, '', now().getTime() + suspendEveryMs, { earlier: true }) }
    : undefined
  const childServer = new ChildServer({ commands, signers, now, log, replay: stores.childReplay, locks: caLocks, exchanged: (ca, child, ok) => metrics.childExchanged(ca, child, ok), ...(suspension ? { contact } : {}) })
  // RFC 6492 messages to a parent CA in this svcd are delivered in-process (the same identities checked; no network, no CMS).
  const rfc6492Prefix = `${config.service_uri}rfc6492/`
  const localParent = (uri: string): string | undefined => {
    if (!uri.startsWith(rfc6492Prefix)) return undefined
    const ca = decodeURIComponent(uri.slice(rfc6492Prefix.length).replace(/\/$/, ''))
    return commands.exists(ca) ? ca : undefined
  }
  const local: LocalUpdown = (uri, message, senderIdCert) => {
    const ca = localParent(uri)
    if (ca === undefined) return undefined
    return childServer.local(ca, message, senderIdCert).then((reply) => ({ message: reply, idCert: commands.state(ca).idCert }))
  }
  const parentClient = new ParentClient({ commands, signers, signer, status: stores.status, post: postMessage, local, now, log, postLimit: config.post_limit_rfc6492 * 8, reissueBeforeSeconds: t.child_cert_reissue_before_seconds, timeoutMs: t.parent_request_timeout_seconds * 1000 })
  const refresh = { everySeconds: t.parent_refresh_seconds, jitterSeconds: t.parent_refresh_jitter_seconds }
  parents = new ParentService({ commands, client: parentClient, status: stores.status, tasks, now, clock, random: rand, refresh, serviceUri: config.service_uri, concurrency: t.parent_sync_concurrency })
  // What follows every CA command, whoever runs it (app/ca/follow-ups.ts): it registers with `commands`.
  const followUps = new CaFollowUps({ commands, publisher, parents, tasks, log })
  const children = new ChildService({ commands, server: childServer, now, serviceUri: config.service_uri, ...(suspension ? { suspension } : {}) })
  const roas = new RoasView({ commands, objects: stores.objects })
  // BGP announcements (RIS whois dumps) for the ROA analysis, loaded in a worker thread: never waited for.
  const ris = config.bgp_riswhois_enabled
    ? new RisWhoisService({ v4Uri: config.bgp_riswhois_v4_uri, v6Uri: config.bgp_riswhois_v6_uri, refreshSeconds: config.bgp_riswhois_refresh_seconds, minPeers: config.bgp_riswhois_min_peers, log, clock, limits: { ...DEFAULT_DUMP_LIMITS, maxBytes: config.bgp_riswhois_max_bytes } })
    : undefined
  // The analysis of a CA's ROAs against them runs in a worker thread too (issue 28 §3): one request at a time.
  const analyser = new AnalysisPool({ data: () => ris?.current(), log, pause: () => yieldToLoop() })
  let housekeeping: TimerHandle | undefined
  let testbedRetry: Retry | undefined
  // A signer back after an outage: every CA brings its objects up to date now (what failed meanwhile is redone).
  signerBack = (name) => {
    pubd?.identity?.now()
    testbedRetry?.now()
    if (leadership.role() !== 'leader') return
    log.info('signer back: republishing', { signer: name })
    caTasks!.resume({ republishAll: true })
  }
  const signerProblems = () => signerService.problems()
  const publicationProblems = (withReason: boolean) => pub?.outputs.outputProblems(withReason) ?? []
  // Change plans (design.md §12): four-eyes approval, refused when stale; the CA service refuses direct updates under four-eyes.
  const plans = new PlanService({
    commands, plans: stores.plans, now, log, bgp: () => ris?.current(), analyser, fourEyesEverywhere: config.change_control_four_eyes,
    audit: (e) => void audit.record(e), transaction: stores.transaction, suggest: (ca, scope) => cas!.caRoutesSuggest(ca, scope),
  })
  cas = new CaService({
    commands, publisher, followUps, parents, children, repo: repoClient, roas: roas, signers, cas: stores.cas, objects: stores.objects, status: stores.status, tasks, publication: embedded,
    publicationProblems: () => publicationProblems(true), signerProblems, signer, queues: { quarantined: () => queues.quarantine.list(), stalled: () => queues.watchdog.problems() }, now, log, bgp: () => ris?.current(), analyser, changeControl: plans, signerReady: (n) => signerService.requireReady(n),
  })
  const rsc = new RscService({ commands, signer, now, random, log })
  // ROA/ASPA export, import as plans, rollback from the history (design.md §12).
  const roaIo = new RoaIoService({ commands, plans, history: stores.cas })
  const repo = new RepoService({ commands, publisher, repo: repoClient, status: stores.status, now, embeddedPrefix: pub ? `${config.service_uri}rfc8181/` : undefined })
  const idRoll = new IdRollService({ commands, signer, publication: embedded, localParent, syncParents: (ca) => parents!.syncAllLater(ca), now, log })
  const taKeyRoll = new TaKeyRollService({ commands, tasks, now, log, serviceUri: config.service_uri, oldKeySeconds: config.testbed.ta_keyroll_old_key_seconds, signerOf: (k) => signer.signerOf?.(k), signerReady: (n) => signerService.requireReady(n), published: pub ? (uri, sha) => Object.values(pub.outputs.holds(uri, sha)).every(Boolean) : undefined })
  caTasks = new CaTasks({ commands, publisher, parents, tasks, repoFailure: (ca) => failure(stores.status.get(ca, 'repo', 'repo')), now, transaction: stores.transaction, quarantine: queues.quarantine, taKeyRollFinish: (ca) => taKeyRoll.finishDue(ca), ...(suspension ? { suspendInactive: { run: (ca: string) => children.suspendInactive(ca), everyMs: suspendEveryMs } } : {}) })
  const testbed = new TestbedService({ commands, cas, children, parents, followUps, publisher, signer, now, random, log, serviceUri: config.service_uri, enabled: config.testbed.enabled, publication: pub?.publishers, caps: { children: config.testbed.self_service_children_max, publishers: config.testbed.self_service_publishers_max } })
  // Krill's structure import (POST /api/v1/bulk/cas/import): a whole tree into an empty svcd.
  const repository = config.repository.enabled ? { rrdpBaseUri: config.repository.rrdp_base_uri ?? '', rsyncBaseUri: config.repository.rsync_base_uri ?? '' } : undefined
  const structureImport = new StructureImportService({ commands, cas, children, parents, followUps, publisher, publication: embedded, repository, serviceUri: config.service_uri, fourEyesEverywhere: config.change_control_four_eyes, signer, now, random, log })
  // The relying-party view (design.md §11): each CA's repository fetched as relying parties do, on a schedule and after publishing.
  const liveness = composeLiveness({ config, dataDir, stores, leadership, clock, log, alarms: alerts })
  published = () => liveness?.published()
  const status = new StatusService({ version: VERSION, started, storeAlive: () => db.version() > 0, publicationProblems: () => publicationProblems(false), signerProblems, stallProblems: () => queues.watchdog.problems(false) })

  const stopCas = async () => {
    queues.watchdog.stop()
    await cluster?.stop()
    await liveness?.stop()
    await alerts.stop()
    await ris?.stop()
    await analyser.stop()
    await scheduler.stop()
    await parents!.stop()
    await publisher.stop()
    await pub?.outputs.stop()
    await caLocks?.close()
  }
  const purgeSessions = async () => {
    try {
      sessions.purge()
    } catch (e) {
      log.warn('purging ended login sessions failed', { err: String(e) })
    }
  }
  return {
    queues,
    services: { quarantine: queues.quarantine, cas, plans, parents, children, repo, rsc, publication: pub, status, testbed, taKeyRoll, idRoll, cluster: cluster ?? single, metrics, access, sessions, audit, logins, tokens, roaIo, structureImport, signers: signerService, alerts, ...(oidc ? { oidc } : {}), ...(liveness ? { liveness: liveness.view } : {}) },
    signer,
    leadership,
    clock,
    scheduler,
    async start() {
      alerts.start()
      oidc?.start() // discovery in the background: svcd serves whether or not the provider answers yet
      // Ended login sessions are forgotten a day after they ended (every instance may do it: it is idempotent).
      housekeeping = clock.setInterval(() => void purgeSessions(), 3600_000)
      queues.watchdog.start()
      try {
        await pub?.outputs.start()
        if (config.testbed.enabled) {
          // A token absent at the first start: svcd serves now and creates ta and testbed once the token answers.
          await testbed.ensure().catch((e: unknown) => {
            if (!isSignerFailure(e)) throw e
            // The publication server's identity first: the TA and testbed publish there.
            testbedRetry = retryUntilSigned('the testbed', async () => {
              await pubd?.identity?.done
              await testbed.ensure()
            }, { clock, log })
          })
        }
        taKeyRoll.resume()
      } finally {
        await releaseInit?.()
        releaseInit = undefined
      }
      liveness?.start() // only the leader checks (each check asks)
      if (cluster) return cluster.start() // the leader resumes the tasks (onLead)
      // Resume: every CA has its tasks; renewals due while stopped happen now, CAs whose repository sync failed republish.
      caTasks!.resume()
      scheduler.start()
      ris?.start()
    },
    startKeyPool: () => signing.set.startPools(),
    async shutdown() {
      clock.clear(housekeeping)
      testbedRetry?.stop()
      oidc?.stop()
      await releaseInit?.()
      await stopCas()
      pubd?.close()
      await signing.set.stop()
      db.close()
      log.debug('services stopped')
    },
  }
}

function failure(s: { result: string; msg?: string } | undefined): string | undefined {
  return s?.result === 'failure' ? (s.msg ?? 'failed') : undefined
}
