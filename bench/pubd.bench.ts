/**
 * Publication server, issue 4 "publish one object into a repository already holding 1,000 and 100,000 objects" and
 * issue 28 (100,000 and 1,000,000 objects: publish → notification against writing and fsyncing the snapshot's bytes
 * in the same run, RSS, growth between sizes; one change at a time at 1,000 objects, the pacer's budget):
 * the in-process publication services (as compose.ts composePublication wires them, with a temporary data dir), whose repository is
 * filled by bulk store inserts (many publishers, ~2 KB objects) and written once as the first snapshot; then one
 * object is published through the in-process RFC 8181 path (PublisherService.publish) and the time until the new
 * notification.xml is on disk is measured, split by the file times of what the RRDP cycle wrote (delta, then
 * snapshot, then notification) and compared with the disk's own durable write rate and fsync latency.
 * A burst of publishes at the largest size shows the publication-delay bound the pacer gives (two cycles).
 */
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { MessageCodec } from '../src/app/pubd/message-codec.js'
import { sha256Hex } from '../src/crypto/digest.js'
import type { PublicationService } from '../src/app/pubd/publication-service.js'
import { defaults } from '../src/config.js'
import { silentLogger } from '../src/log.js'
import type { ContentChange } from '../src/pubd/content.js'
import { encodeSnapshotChunks, RRDP_MAX_BYTES } from '../src/protocol/rrdp.js'
import { Db } from '../src/store/db.js'
import { PubdReader } from '../src/store/pubd-store.js'
import { buildPubdService } from '../test/helpers/pubd-service.js'
import { currentSerial, notificationOnDisk, sleep, watchNotification } from './lib/daemon.js'
import { diskWriteRate, fsyncLatency, writeFsync } from './lib/machine.js'
import { atMost, below, type BenchContext, median, mib, ms, num, pct } from './lib/report.js'

const RSYNC = 'rsync://localhost:3873/repo/'
const RRDP = 'https://localhost:3000/rrdp/'
const OBJECT_BYTES = 2048
const OBJECTS_PER_PUBLISHER = 1000

/** The MessageCodec is only used for RFC 8181 over HTTPS; the in-process path never calls it. */
const noCodec: MessageCodec = {
  idCert: new Uint8Array(0),
  sign: () => Promise.reject(new Error('not used in this benchmark')),
  verify: () => {
    throw new Error('not used in this benchmark')
  },
}

interface Repo {
  size: number
  dir: string
  db: Db
  pub: PublicationService
  close(): void
  rrdpDir: string
  publishers: string[]
  fillMs: number
  firstSnapshotMs: number
  firstRsyncMs: number
}

async function buildRepo(size: number): Promise<Repo> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pubd-'))
  const dbPath = join(dir, 'svcd.db')
  const db = Db.open(dbPath)
  const base = defaults().repository
  // The server-wide quota (1,000,000 objects by default) would refuse the publishes at the largest size.
  const repository = { ...base, enabled: true, rrdp_base_uri: RRDP, rsync_base_uri: RSYNC, rsync_daemon: 'off' as const,
    quota_total_objects: Math.max(base.quota_total_objects, 2 * size), quota_total_bytes: Math.max(base.quota_total_bytes, 4 * size * OBJECT_BYTES) }
  const { service: pub, close } = buildPubdService({ dataDir: dir, db, dbPath, codec: noCodec, repository, serviceUri: 'https://localhost:3000/', log: silentLogger() })
  // Many publishers: at least 10, at most 1,000 objects each; one store transaction per publisher.
  const count = Math.max(10, Math.ceil(size / OBJECTS_PER_PUBLISHER))
  const publishers: string[] = []
  const t0 = performance.now()
  let left = size
  for (let p = 0; p < count; p++) {
    const handle = `pub-${String(p).padStart(4, '0')}`
    publishers.push(handle)
    pub.publishers.store.addPublisher({ handle, idCert: new Uint8Array(16), baseUri: `${RSYNC}${handle}/`, created: new Date().toISOString() })
    const n = Math.ceil(left / (count - p))
    left -= n
    const changes: ContentChange[] = []
    for (let i = 0; i < n; i++) {
      const content = new Uint8Array(randomBytes(OBJECT_BYTES))
      changes.push({ type: 'publish', uri: `${RSYNC}${handle}/obj-${String(i).padStart(6, '0')}.roa`, content, hash: sha256Hex(content) })
    }
    pub.publishers.store.applyChanges(handle, changes, new Date())
  }
  const fillMs = performance.now() - t0
  // start(): no RRDP state yet, so a new session whose first snapshot holds everything (no 100,000-element delta).
  const t1 = performance.now()
  await pub.outputs.start()
  const firstSnapshotMs = performance.now() - t1
  const t2 = performance.now()
  await pub.outputs.flushed()
  const firstRsyncMs = performance.now() - t2
  return { size, dir, db, pub, close, rrdpDir: join(dir, 'repo', 'rrdp'), publishers, fillMs, firstSnapshotMs, firstRsyncMs }
}

async function disposeRepo(r: Repo): Promise<void> {
  await r.pub.outputs.stop()
  r.close()
  r.db.close()
  rmSync(r.dir, { recursive: true, force: true })
}

interface OneRun {
  /** publish() returned (plan + SQLite commit). */
  acceptMs: number
  /** The poll saw the new notification. */
  notificationMs: number
  /** File times: delta written, then snapshot, then notification (relative to the publish call). */
  deltaAtMs: number
  snapshotPhaseMs: number
  notificationPhaseMs: number
  deltaBytes: number
  snapshotBytes: number
  /** Until the rsync tree had switched too (OutputService.flushed). */
  flushedMs: number
}

function wallNow(): number {
  return performance.timeOrigin + performance.now()
}

let counter = 0

function publishOne(r: Repo, publisher: string): string {
  const content = new Uint8Array(randomBytes(OBJECT_BYTES))
  const uri = `${RSYNC}${publisher}/new-${counter++}.roa`
  const reply = r.pub.publishers.publish(publisher, { type: 'delta', pdus: [{ type: 'publish', uri, content }] })
  if (reply.type !== 'success') throw new Error(`publish refused: ${JSON.stringify(reply)}`)
  return uri
}

async function oneRun(r: Repo, i: number): Promise<OneRun> {
  const before = currentSerial(r.rrdpDir)
  const publisher = r.publishers[i % r.publishers.length]
  const wall0 = wallNow()
  const t0 = performance.now()
  const uri = publishOne(r, publisher)
  const acceptMs = performance.now() - t0
  const seen = await watchNotification(r.rrdpDir, before, (ds) => ds.some((d) => d.elements.some((e) => e.uri === uri)), { everyMs: 1 })
  const notificationMs = seen.at - t0
  const n = notificationOnDisk(r.rrdpDir)!
  const delta = n.notification.deltas.find((d) => d.serial === seen.serial)!
  const dSt = statSync(n.path(delta.uri))
  const sSt = statSync(n.path(n.notification.snapshot.uri))
  const nSt = statSync(join(r.rrdpDir, 'notification.xml'))
  // At a million objects an rsync tree is a million files (minutes): not waited for, it runs beside the next publish.
  if (r.size < 1_000_000) await r.pub.outputs.flushed()
  const flushedMs = r.size < 1_000_000 ? performance.now() - t0 : NaN
  return {
    acceptMs,
    notificationMs,
    deltaAtMs: dSt.mtimeMs - wall0,
    snapshotPhaseMs: sSt.mtimeMs - dSt.mtimeMs,
    notificationPhaseMs: nSt.mtimeMs - sSt.mtimeMs,
    deltaBytes: dSt.size,
    snapshotBytes: sSt.size,
    flushedMs,
  }
}

/**
 * Publishes `k` objects spaced `gapMs` apart while the writer is busy, and the delay until each is in a notification
 * on disk. With cycles back to back (kicks during a cycle make one more run), the time between two notifications is
 * the length of the later cycle, so the pacer's claim (delay ≤ 2 × cycle + interval) can be checked against the
 * longest cycle seen in the burst.
 */
async function burst(r: Repo, k: number, gapMs: number): Promise<{ maxMs: number; delays: number[]; serials: number; longestCycleMs: number }> {
  const before = currentSerial(r.rrdpDir)
  const sent = new Map<string, number>()
  const seenAt = new Map<string, number>()
  let first = 0
  const watcher = watchNotification(r.rrdpDir, before, (ds) => {
    for (const d of ds) for (const e of d.elements) if (!seenAt.has(e.uri)) seenAt.set(e.uri, d.at)
    return sent.size === k && [...sent.keys()].every((u) => seenAt.has(u))
  }, { everyMs: 2 })
  for (let i = 0; i < k; i++) {
    const t = performance.now()
    if (i === 0) first = t
    sent.set(publishOne(r, r.publishers[i % r.publishers.length]), t)
    if (i < k - 1) await sleep(gapMs)
  }
  const result = await watcher
  await r.pub.outputs.flushed()
  const delays = [...sent].map(([u, t]) => seenAt.get(u)! - t)
  const arrivals = [first, ...new Set(result.deltas.map((d) => d.at))]
  const cycles = arrivals.slice(1).map((a, i) => a - arrivals[i])
  return { maxMs: Math.max(...delays), delays, serials: result.serial - before, longestCycleMs: Math.max(...cycles) }
}

/** Where a snapshot's time goes, outside the writer: reading the objects, encoding the XML (base64), writing. */
async function snapshotAnatomy(r: Repo): Promise<{ readMs: number; encodeMs: number; hashMs: number; bytes: number; objects: number }> {
  const db = Db.openSecondary(join(r.dir, 'svcd.db'))
  try {
    return await new PubdReader(db).read(async (view) => {
      let t = performance.now()
      let objects = 0
      for (const o of view.all()) objects += o.content.length > 0 ? 1 : 0
      const readMs = performance.now() - t
      t = performance.now()
      let bytes = 0
      const chunks: Buffer[] = []
      for (const c of encodeSnapshotChunks({ sessionId: '00000000-0000-4000-8000-000000000000', serial: 2, publishes: view.all() })) {
        bytes += c.length
        if (chunks.length < 64) chunks.push(c)
      }
      const encodeMs = performance.now() - t - readMs
      // SHA-256 of the file (the writer hashes every chunk for the notification): timed on up to 64 chunks, scaled.
      t = performance.now()
      const h = createHash('sha256')
      let hashed = 0
      for (const c of chunks) {
        h.update(c)
        hashed += c.length
      }
      h.digest()
      const hashMs = ((performance.now() - t) * bytes) / Math.max(1, hashed)
      return { readMs, encodeMs, hashMs, bytes, objects }
    })
  } finally {
    db.close()
  }
}

/** One publish at a time: publish, wait for the notification that holds it, publish the next (no flush between). */
async function oneAtATime(r: Repo, k: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < k; i++) {
    const before = currentSerial(r.rrdpDir)
    const t0 = performance.now()
    const uri = publishOne(r, r.publishers[i % r.publishers.length])
    const seen = await watchNotification(r.rrdpDir, before, (ds) => ds.some((d) => d.elements.some((e) => e.uri === uri)), { everyMs: 1 })
    out.push(seen.at - t0)
  }
  return out
}

/** The peak RSS of this process (the publication services run in it) while `fn` runs, sampled every 20 ms. */
async function rssPeak<T>(fn: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
  try {
    const value = await fn()
    return { value, peak: Math.max(peak, process.memoryUsage().rss) }
  } finally {
    clearInterval(timer)
  }
}

const load = (): string => `load ${loadavg()[0]!.toFixed(2)}`

/** The sizes: BENCH_PUBD_SIZES ("1000 100000"), else quick 1,000 and 10,000, full 1,000, 100,000 and 1,000,000. */
function pubdSizes(quick: boolean): number[] {
  const env = process.env.BENCH_PUBD_SIZES?.trim()
  if (env) return env.split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0)
  return quick ? [1_000, 10_000] : [1_000, 100_000, 1_000_000]
}

/** The target of publish → notification against the same-run write+fsync of the snapshot's bytes (issue 28). */
function notificationFactor(size: number): number {
  return size >= 1_000_000 ? 1.2 : 1.5
}

export async function runPubdBench(ctx: BenchContext): Promise<void> {
  const sizes = pubdSizes(ctx.quick)
  const runsOf = (size: number) => (size >= 1_000_000 ? 2 : ctx.quick ? 3 : 4)
  ctx.log(`sizes ${sizes.map((s) => num(s)).join(', ')} objects of ${num(OBJECT_BYTES)} B (random), ≤ ${num(OBJECTS_PER_PUBLISHER)} per publisher; ${sizes.map((s) => runsOf(s)).join('/')} publishes each (median)`)
  const disk = await diskWriteRate(tmpdir(), 128)
  const fsync = await fsyncLatency(tmpdir(), 40)
  ctx.log('phases from the file times the RRDP cycle leaves (kernel coarse clock, ~4 ms steps): delta written, then snapshot, then notification')
  ctx.log(`machine: durable sequential write ${mib(disk)}/s; 4 KiB write+fsync ${ms(fsync.fsyncMs)}; durable replace (write, fsync, rename, dir fsync) ${ms(fsync.replaceMs)} (${load()})`)
  const results: { size: number; runs: OneRun[]; notif: number; floor: number; rss: number }[] = []
  for (const size of sizes) {
    const repo = await buildRepo(size)
    try {
      ctx.log(`${num(size)} objects, ${repo.publishers.length} publishers: bulk insert ${ms(repo.fillMs)}, first snapshot (session start) ${ms(repo.firstSnapshotMs)}, first rsync tree ${ms(repo.firstRsyncMs)} (${load()})`)
      const runs = runsOf(size)
      const { value: rs, peak } = await rssPeak(async () => {
        const rs: OneRun[] = []
        for (let i = 0; i < runs; i++) {
          // A quiet spell first (the pacer's budget refilled: at most maxSpacingMs, 10 s): one change, not a stream.
          if (i > 0 && size > 1_000) await sleep(Math.min(10_000, 20 * rs[i - 1]!.notificationMs))
          const o = await oneRun(repo, i)
          rs.push(o)
          ctx.log(`  publish 1 object: accepted ${ms(o.acceptMs)}, notification on disk ${ms(o.notificationMs)} [delta written at ${ms(o.deltaAtMs)} (${num(o.deltaBytes)} B), snapshot +${ms(o.snapshotPhaseMs)} (${mib(o.snapshotBytes)}), its fsync + notification +${ms(o.notificationPhaseMs)}], rsync tree switched at ${ms(o.flushedMs)} (${load()})`)
        }
        return rs
      })
      const m = (f: (o: OneRun) => number) => median(rs.map(f))
      const notif = m((o) => o.notificationMs)
      const snapBytes = m((o) => o.snapshotBytes)
      // The machine's own cost of the snapshot's bytes, on the same file system, in the same run.
      const wf = await writeFsync(tmpdir(), snapBytes)
      ctx.log(`  machine: write ${mib(snapBytes)} to a new file ${ms(wf.writeMs)}, its fsync ${ms(wf.fsyncMs)} (${load()})`)
      results.push({ size, runs: rs, notif, floor: wf.totalMs, rss: peak })
      const f = notificationFactor(size)
      ctx.row(`publish 1 → notification on disk, ${num(size)} objects (median of ${runs})`, notif, `${ms(notif)} (${(notif / wf.totalMs).toFixed(2)}× write+fsync)`,
        size >= 10_000 ? atMost(f * wf.totalMs, `≤ ${f} × write+fsync of ${mib(snapBytes)} = ${ms(f * wf.totalMs)}${size < 100_000 ? ' (quick size)' : ''}`) : undefined,
        { limit: `write+fsync ${ms(wf.totalMs)} (${load()})` })
      ctx.row(`  delta written (${num(m((o) => o.deltaBytes))} B), ${num(size)} objects`, m((o) => o.deltaAtMs), ms(m((o) => o.deltaAtMs)), undefined,
        { limit: `durable replace ${ms(fsync.replaceMs)}` })
      ctx.row(`  snapshot written (${mib(snapBytes)}), ${num(size)} objects`, m((o) => o.snapshotPhaseMs), ms(m((o) => o.snapshotPhaseMs)), undefined,
        { limit: `write alone ${ms(wf.writeMs)}` })
      ctx.row(`  RSS peak during the publishes, ${num(size)} objects`, peak, mib(peak), size >= 1_000_000 ? below(1024 ** 3, '< 1 GiB') : undefined, { limit: `after ${mib(process.memoryUsage().rss)}` })
      if (size === 1_000) {
        const k = ctx.quick ? 10 : 20
        const one = await oneAtATime(repo, k)
        ctx.log(`  one change at a time (publish, wait for its notification, the next): ${one.map((d) => ms(d)).join(', ')} (${load()})`)
        ctx.row(`publish 1 → notification, ${num(size)} objects, one change at a time (median of ${k})`, median(one), ms(median(one)), atMost(200, '≤ 200 ms'), { limit: load() })
      }
      const big = size === Math.max(...sizes.filter((s) => s <= 100_000))
      if (big && size > 1_000) {
        const gap = Math.max(20, notif / 3)
        const b = await burst(repo, 8, gap)
        ctx.log(`  burst of 8 publishes ${ms(gap)} apart: delays ${b.delays.map((d) => ms(d)).join(', ')}; ${b.serials} serials; longest cycle ${ms(b.longestCycleMs)} (the rsync tree writer shares the event loop)`)
        ctx.row(`  burst: worst delay of 8 publishes ${ms(gap)} apart, ${num(size)} objects`, b.maxMs, ms(b.maxMs), atMost(2 * b.longestCycleMs, `≤ 2 × longest cycle = ${ms(2 * b.longestCycleMs)}`))
        const a = await snapshotAnatomy(repo)
        const writeFloor = (a.bytes / disk) * 1000
        ctx.log(`  snapshot anatomy (${mib(a.bytes)}): read objects from SQLite ${ms(a.readMs)}, encode XML + base64 ${ms(a.encodeMs)}, SHA-256 ${ms(a.hashMs)}, durable write at disk speed ≥ ${ms(writeFloor)} (sum ${ms(a.readMs + a.encodeMs + a.hashMs + writeFloor)}); writer's snapshot phase ${ms(m((o) => o.snapshotPhaseMs))} + its fsync in the notification phase ${ms(m((o) => o.notificationPhaseMs))}`)
        if (a.bytes > RRDP_MAX_BYTES) ctx.log(`  note: the snapshot (${mib(a.bytes)}) is larger than RRDP_MAX_BYTES (${mib(RRDP_MAX_BYTES)}), the limit of svc's own RRDP decoder`)
      }
    } finally {
      await disposeRepo(repo)
    }
  }
  // Growth between consecutive sizes: cost at the larger size ÷ cost at the smaller, beside the size ratio.
  for (let i = 1; i < results.length; i++) {
    const a = results[i - 1]!, b = results[i]!
    const x = b.size / a.size
    ctx.row(`growth of publish → notification, ${num(a.size)} → ${num(b.size)} objects (${num(x)}× the size)`, b.notif / a.notif, `${(b.notif / a.notif).toFixed(1)}×`, undefined,
      { limit: `write+fsync ${(b.floor / a.floor).toFixed(1)}×; RSS ${(b.rss / a.rss).toFixed(2)}×` })
  }
  const small = results[0]!, large = results[results.length - 1]!
  if (small === large) return
  const dm = (r: (typeof results)[number]) => median(r.runs.map((o) => o.deltaAtMs))
  // File times have the kernel's coarse clock resolution (4 ms here): allow 1.5× plus 5 ms.
  ctx.row(`delta cost ${num(large.size)} vs ${num(small.size)} objects (size ${num(median(large.runs.map((o) => o.deltaBytes)))} vs ${num(median(small.runs.map((o) => o.deltaBytes)))} B)`,
    dm(large), `${ms(dm(large))} vs ${ms(dm(small))} (${(dm(large) / dm(small)).toFixed(2)}×)`, atMost(1.5 * dm(small) + 5, `≤ 1.5 × ${ms(dm(small))} + 5 ms (independent of size)`))
  const sm = (r: (typeof results)[number]) => median(r.runs.map((o) => o.snapshotPhaseMs))
  ctx.log(`snapshot cost grows with the repository: ${ms(sm(small))} at ${num(small.size)} → ${ms(sm(large))} at ${num(large.size)} (${(sm(large) / sm(small)).toFixed(0)}×)`)
}
