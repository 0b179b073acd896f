/**
 * Several svcd on one PostgreSQL database for the `cluster` bench (issue 14, design.md §7): a PostgreSQL cluster of the
 * bench's own (test/helpers/postgres.ts, durable settings), instances sharing one configuration apart from port and
 * data dir, the leader as GET /api/v1/cluster names it, the serial each instance serves over HTTPS, and whether a
 * delta published an object.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { ClusterJson } from '../../src/api/status.js'
import { decodeDelta, decodeNotification, type Notification } from '../../src/protocol/rrdp.js'
import { freePort, httpsGet } from '../../test/helpers/daemon.js'
import { startPostgres, type PgCluster } from '../../test/helpers/postgres.js'
import { BenchDaemon, sleep } from './daemon.js'
import { sha } from './publish-loop.js'

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
