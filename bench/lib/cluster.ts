/**
 * Several svcd on one PostgreSQL database for the `cluster` bench (issue 14, design.md §7): a PostgreSQL cluster of the
 * bench's own (test/helpers/postgres.ts, durable settings), instances sharing one configuration apart from port and
 * data dir, the leader as GET /api/v1/cluster names it, the serial each instance serves (over HTTPS and on disk), and
 * a watcher that notes when each serial appears in an instance's notification.xml and what its delta published.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { ClusterJson } from '../../src/api/status.js'
import { decodeDelta, decodeNotification, decodeSnapshot, type Notification } from '../../src/protocol/rrdp.js'
import { freePort, httpsGet } from '../../test/helpers/daemon.js'
import { startPostgres, type PgCluster } from '../../test/helpers/postgres.js'
import { BenchDaemon, notificationOnDisk, sleep } from './daemon.js'

export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** Clean-up steps, run last-in first-out by `run` (also after an error); it is the TestLike startPostgres needs. */
export class Teardown {
  private readonly fns: (() => unknown)[] = []

  teardown(fn: () => unknown): void {
    this.fns.push(fn)
  }

  async run(log: (line: string) => void): Promise<void> {
    while (this.fns.length) {
      try {
        await this.fns.pop()!()
      } catch (e) {
        log(`teardown: ${(e as Error).message}`)
      }
    }
  }
}

export interface BenchPostgres {
  pg: PgCluster
  /** A key encryption key file (64 hex characters, mode 0600). */
  kek: string
}

/** Start PostgreSQL (durable: fsync and synchronous_commit on, like SQLite's writes) and write a KEK file. */
export async function benchPostgres(td: Teardown): Promise<BenchPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-kek-'))
  td.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const kek = join(dir, 'kek')
  writeFileSync(kek, createHash('sha256').update(dir).digest('hex') + '\n', { mode: 0o600 })
  const pg = await startPostgres(td, { durable: true })
  return { pg, kek }
}

export interface ClusterOptions {
  /** cluster_lease_seconds; undefined: svcd's default (10). */
  leaseSeconds?: number
  /** cluster_poll_ms. */
  pollMs: number
}

/** The TOML for an instance on PostgreSQL: storage, KEK, and the cluster settings. */
export function pgTop(uri: string, kek: string, o: ClusterOptions): string {
  return [`storage_uri = "${uri}"`, `key_encryption_key_file = "${kek}"`, `cluster_poll_ms = ${o.pollMs}`, ...(o.leaseSeconds !== undefined ? [`cluster_lease_seconds = ${o.leaseSeconds}`] : [])].join('\n')
}

/**
 * `n` instances on the database `uri`, started together (each registers its dispose with `td`); one configuration
 * apart from port and data dir: service_uri and rrdp_base_uri name the first instance's port.
 */
export async function startCluster(td: Teardown, uri: string, kek: string, n: number, o: ClusterOptions): Promise<BenchDaemon[]> {
  const ports: number[] = []
  for (let i = 0; i < n; i++) ports.push(await freePort())
  const shared = { port: ports[0]!, rsyncPort: await freePort() }
  const started = await Promise.allSettled(ports.map((port) => BenchDaemon.start({ testbed: false, port, shared, top: pgTop(uri, kek, o) })))
  const ds: BenchDaemon[] = []
  for (const s of started) if (s.status === 'fulfilled') {
    ds.push(s.value)
    td.teardown(() => s.value.dispose())
  }
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason
  return ds
}

export async function clusterView(d: BenchDaemon): Promise<ClusterJson> {
  return d.api<ClusterJson>('GET', '/api/v1/cluster')
}

/** The index in `ds` of the instance whose URL is `url` (instances report their own address, not service_uri). */
export function indexOfUrl(ds: BenchDaemon[], url: string): number {
  return ds.findIndex((d) => url.endsWith(`:${d.port}/`))
}

/** Wait until `d` sees a leader and `n` instances; the view and the leader's index in `ds`. */
export async function waitLeader(ds: BenchDaemon[], d: BenchDaemon, n: number, timeoutMs = 60_000): Promise<{ view: ClusterJson; index: number }> {
  const t0 = performance.now()
  for (;;) {
    const v = await clusterView(d).catch(() => undefined)
    const leader = v?.leader ? v.instances.find((i) => i.id === v.leader) : undefined
    if (v && leader && v.instances.length >= n) {
      const index = indexOfUrl(ds, leader.url)
      if (index >= 0) return { view: v, index }
    }
    if (performance.now() - t0 > timeoutMs) throw new Error(`no leader among ${n} instances after ${timeoutMs} ms: ${JSON.stringify(v)}`)
    await sleep(100)
  }
}

/** The notification an instance serves over HTTPS (undefined while it serves none). */
export async function servedNotification(d: BenchDaemon): Promise<Notification | undefined> {
  const r = await httpsGet(d.url + 'rrdp/notification.xml').catch(() => undefined)
  return r?.status === 200 ? decodeNotification(r.raw) : undefined
}

/** Whether one of the deltas after `from` up to the notification's serial, fetched from `d`, publishes `hash`. */
export async function deltasPublish(d: BenchDaemon, n: Notification, from: number, hash: string): Promise<boolean> {
  for (const x of n.deltas) {
    if (x.serial <= from) continue
    const r = await httpsGet(d.url + x.uri.replace(/^https:\/\/[^/]+\//, '')).catch(() => undefined)
    if (r?.status !== 200) continue
    if (decodeDelta(r.raw).elements.some((e) => e.type === 'publish' && sha(e.content) === hash)) return true
  }
  return false
}

/** Wait until every instance serves one serial (at least `min`) over HTTPS; that serial. */
export async function sameSerial(ds: BenchDaemon[], min = 0, timeoutMs = 60_000): Promise<number> {
  const t0 = performance.now()
  for (;;) {
    const ns = await Promise.all(ds.map(servedNotification))
    const serials = ns.map((n) => Number(n?.serial ?? -1))
    if (serials.every((s) => s === serials[0]) && serials[0]! >= min) return serials[0]!
    if (performance.now() - t0 > timeoutMs) throw new Error(`the instances serve different serials after ${timeoutMs} ms: ${serials.join(', ')}`)
    await sleep(50)
  }
}

/**
 * Polls an instance's notification.xml on disk (what it serves) every `everyMs`: when each serial first appeared and,
 * with `decode`, the content hashes each new delta published (with the serial and the time it was seen).
 */
export class SerialWatcher {
  readonly seen = new Map<number, number>()
  readonly published = new Map<string, { serial: number; at: number }>()
  private last = 0
  private readonly timer: NodeJS.Timeout

  constructor(private readonly rrdpDir: string, private readonly decode: boolean, everyMs = 20) {
    this.last = Number(notificationOnDisk(rrdpDir)?.notification.serial ?? 0)
    this.timer = setInterval(() => this.poll(), everyMs)
  }

  stop(): void {
    clearInterval(this.timer)
    this.poll()
  }

  poll(): void {
    const at = performance.now()
    let n
    try {
      n = notificationOnDisk(this.rrdpDir)
    } catch {
      return // being replaced
    }
    if (!n) return
    const serial = Number(n.notification.serial)
    for (let s = this.last + 1; s <= serial; s++) {
      this.seen.set(s, at)
      if (!this.decode) continue
      // A delta larger than the snapshot is left out of the notification (RFC 8182 §3.3.2); with few small objects
      // all replaced at once that happens: the snapshot of the current serial then shows what it published.
      const d = n.notification.deltas.find((x) => x.serial === s)
      let objects: Uint8Array[]
      try {
        if (d) objects = decodeDelta(readFileSync(n.path(d.uri))).elements.flatMap((e) => (e.type === 'publish' ? [e.content] : []))
        else if (s === serial) objects = decodeSnapshot(readFileSync(n.path(n.notification.snapshot.uri))).publishes.map((o) => o.content)
        else continue
      } catch {
        continue // retention removed it already
      }
      for (const c of objects) {
        const h = sha(c)
        if (!this.published.has(h)) this.published.set(h, { serial: s, at })
      }
    }
    this.last = Math.max(this.last, serial)
  }
}
