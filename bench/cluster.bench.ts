/**
 * Issue 14 "Performance": PostgreSQL vs SQLite and several instances, in one run on real components.
 *
 * 1. Sustained RFC 8181 publishing (the publish-load approach: TestPublishers with their own identities, each
 *    replacing its own 1 KB object over CMS-wrapped RFC 8181/HTTPS, one request in flight each) for the same number
 *    of publishers and seconds against (a) one svcd on SQLite, (b) one svcd on PostgreSQL, (c) three svcd on one
 *    PostgreSQL database with the publishers spread round-robin over them. req/s, errors, request latency, and the
 *    publication delay (success reply → the content hash in a new delta of the notification on disk; for (c) the
 *    leader's, and the time until every instance serves that serial). cluster_poll_ms = 200 on PostgreSQL.
 * 2. Failover: kill -9 the leader of three instances, publish through a survivor at once, and time kill → a survivor
 *    serves a new serial with that object (/rrdp/notification.xml over HTTPS) and kill → GET /api/v1/cluster names a
 *    new leader; the killed instance restarts between rounds. 5 rounds with the default lease (10 s) and 5 with 4 s.
 *
 * Sizes: 20 publishers × 20 s (BENCH_QUICK: 10 × 8 s); BENCH_CLUSTER_PUBLISHERS, BENCH_CLUSTER_SECONDS and
 * BENCH_CLUSTER_ROUNDS override them, BENCH_CLUSTER_LEASES="10 4" the leases of the failover rounds.
 */
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { TestPublisher } from '../test/helpers/publisher.js'
import { readRrdp } from '../test/helpers/repo.js'
import { benchPostgres, clusterView, deltasPublish, sameSerial, servedNotification, startCluster, Teardown, waitLeader, type BenchPostgres } from './lib/cluster.js'
import { addPublishers, replaceLoop, sendTo, SerialWatcher, sha } from './lib/publish-loop.js'
import { BenchDaemon, sleep } from './lib/daemon.js'
import { fsyncLatency } from './lib/machine.js'
import { atMost, type BenchContext, median, ms, num, summary } from './lib/report.js'

const OBJECT_BYTES = 1024
const POLL_MS = 200
const envInt = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt)

interface LoadResult {
  label: string
  rps: number
  requests: number
  errors: number
  latency: ReturnType<typeof summary>
  /** Reply → the leader's notification on disk. */
  delay: ReturnType<typeof summary>
  /** Reply → every instance serves that serial (one instance: = delay). */
  delayAll: ReturnType<typeof summary>
  /** Per serial: the last instance's notification minus the leader's (several instances only). */
  lag: ReturnType<typeof summary>
  serials: number
  consistent: boolean
  cpuCores: number
}

/** `seconds` of publishing by `pubs` spread round-robin over `ds`; `leader` is the index of the instance that leads. */
async function load(ctx: BenchContext, label: string, ds: BenchDaemon[], leader: number, pubs: TestPublisher[], seconds: number): Promise<LoadResult> {
  const t1 = performance.now()
  const last = await addPublishers(ds, pubs, OBJECT_BYTES)
  for (const d of ds) await d.idle({ windowMs: 500, maxShare: 0.1 })
  ctx.log(`${label}: ${pubs.length} publishers added and first objects published, instances idle, ${ms(performance.now() - t1)}`)
  const watchers = ds.map((d, i) => new SerialWatcher(d.rrdpDir(), i === leader))
  const cpu0 = ds.map((d) => d.cpuSeconds())
  const start = performance.now()
  const { acked, latencies, errors, errorSamples } = await replaceLoop(pubs, (p, i) => ds[i % ds.length]!, last, start + seconds * 1000, OBJECT_BYTES)
  const elapsed = (performance.now() - start) / 1000
  const cpuCores = ds.reduce((a, d, i) => a + d.cpuSeconds() - cpu0[i]!, 0) / elapsed
  // Every publisher's last object must reach every instance's snapshot.
  const t2 = performance.now()
  let consistent = false
  while (!consistent && performance.now() - t2 < 60_000) {
    const views = await Promise.all(ds.map((d) => readRrdp(d.url).catch(() => undefined)))
    consistent = views.every((v) => v !== undefined && pubs.every((p) => v.objects.get(`${p.response!.siaBase}object.roa`) === last.get(p)))
    if (!consistent) await sleep(100)
  }
  for (const w of watchers) w.stop()
  const lw = watchers[leader]!
  const delays: number[] = []
  const delaysAll: number[] = []
  for (const [h, t] of acked) {
    const pub = lw.published.get(h)
    if (!pub) continue // replaced again before the next serial: never in RRDP
    delays.push(pub.at - t)
    const everywhere = watchers.map((w) => w.seen.get(pub.serial))
    if (everywhere.every((x) => x !== undefined)) delaysAll.push(Math.max(...(everywhere as number[])) - t)
  }
  const lags: number[] = []
  for (const [s, at] of lw.seen) {
    const others = watchers.map((w) => w.seen.get(s))
    if (others.every((x) => x !== undefined)) lags.push(Math.max(0, Math.max(...(others as number[])) - at))
  }
  const r: LoadResult = {
    label, rps: latencies.length / elapsed, requests: latencies.length, errors, latency: summary(latencies), delay: summary(delays), delayAll: summary(delaysAll),
    lag: summary(lags), serials: lw.seen.size, consistent, cpuCores,
  }
  ctx.log(`${label}: ${num(r.requests)} requests in ${elapsed.toFixed(1)} s: ${num(r.rps, 1)} req/s, ${errors} errors${errorSamples.length ? ` (${errorSamples.join(' | ')})` : ''}; svcd CPU ${cpuCores.toFixed(2)} cores (all instances)`)
  ctx.log(`  request latency p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}, max ${ms(r.latency.max)}`)
  ctx.log(`  ${r.serials} serials at the leader (${(r.serials / elapsed).toFixed(2)}/s); publish → leader's notification over ${num(r.delay.n)} objects: p50 ${ms(r.delay.p50)}, p99 ${ms(r.delay.p99)}, max ${ms(r.delay.max)}`)
  if (ds.length > 1) {
    ctx.log(`  publish → every instance serves that serial: p50 ${ms(r.delayAll.p50)}, p99 ${ms(r.delayAll.p99)}, max ${ms(r.delayAll.max)}; lag of the last instance behind the leader per serial (${num(r.lag.n)} serials): p50 ${ms(r.lag.p50)}, p99 ${ms(r.lag.p99)}, max ${ms(r.lag.max)}`)
  }
  ctx.log(`  every publisher's last object in the snapshot at every instance: ${consistent ? 'yes' : 'NO'} (${ms(performance.now() - t2)} after the load)`)
  return r
}

interface Round {
  toSerial: number
  toLeader: number
  ack: number
}

/** One failover: kill -9 the leader, publish through a survivor, time the new serial and the new leader; restart it. */
async function failoverRound(ds: BenchDaemon[], p: TestPublisher, timeoutMs: number): Promise<Round> {
  const before = await sameSerial(ds)
  const { view, index } = await waitLeader(ds, ds[0]!, ds.length)
  const leader = ds[index]!
  const survivors = ds.filter((d) => d !== leader)
  await sleep(500)
  const content = new Uint8Array(randomBytes(OBJECT_BYTES))
  const hash = sha(content)
  const killed = performance.now()
  await leader.stop('SIGKILL')
  let ack = NaN
  const published = (async () => {
    for (;;) {
      const r = await sendTo(p, survivors[0]!, { type: 'delta', pdus: [{ type: 'publish', uri: `${p.response!.siaBase}failover-${hash.slice(0, 8)}.roa`, content }] }).catch((e: unknown) => ({ type: 'error', e }) as const)
      if (r.type === 'success') return (ack = performance.now() - killed)
      if (performance.now() - killed > timeoutMs) throw new Error(`no survivor accepted the publish: ${JSON.stringify(r)}`)
      await sleep(50)
    }
  })()
  const newLeader = (async () => {
    for (;;) {
      const v = await clusterView(survivors[0]!).catch(() => undefined)
      if (v?.leader && v.leader !== view.leader && v.epoch > view.epoch) return performance.now() - killed
      if (performance.now() - killed > timeoutMs) throw new Error('no new leader')
      await sleep(20)
    }
  })()
  const newSerial = (async () => {
    await published
    for (;;) {
      for (const d of survivors) {
        const n = await servedNotification(d)
        if (n && Number(n.serial) > before && (await deltasPublish(d, n, before, hash))) return performance.now() - killed
      }
      if (performance.now() - killed > timeoutMs) throw new Error('no survivor served a new serial')
      await sleep(20)
    }
  })()
  const [toLeader, toSerial] = await Promise.all([newLeader, newSerial])
  await leader.spawn()
  await sameSerial(ds, before + 1)
  return { toSerial, toLeader, ack }
}

async function failover(ctx: BenchContext, pg: BenchPostgres, td: Teardown, lease: number, rounds: number, n: number): Promise<void> {
  const uri = pg.pg.createDatabase(`svc_failover_${lease}`)
  const ds = await startCluster(td, uri, pg.kek, n, { leaseSeconds: lease, pollMs: POLL_MS })
  await waitLeader(ds, ds[0]!, n)
  const p = new TestPublisher(`failover-${lease}`)
  await addPublishers(ds.slice(1), [p], OBJECT_BYTES)
  const rs: Round[] = []
  for (let i = 0; i < rounds; i++) {
    const r = await failoverRound(ds, p, lease * 1000 * 3 + 30_000)
    rs.push(r)
    ctx.log(`lease ${lease} s, round ${i + 1}: kill -9 → a survivor serves a new serial with the object published after the kill ${ms(r.toSerial)}; → GET /api/v1/cluster names a new leader ${ms(r.toLeader)}; publish acknowledged by a survivor ${ms(r.ack)} after the kill`)
  }
  const mSerial = median(rs.map((r) => r.toSerial))
  const mLeader = median(rs.map((r) => r.toLeader))
  ctx.log(`lease ${lease} s, ${n} instances, median of ${rounds}: new serial ${ms(mSerial)} (${(mSerial / (lease * 1000)).toFixed(2)} × lease), new leader ${ms(mLeader)} (${(mLeader / (lease * 1000)).toFixed(2)} × lease)`)
  ctx.row(`failover, ${n} instances, lease ${lease} s: kill -9 → new serial at a survivor, median of ${rounds}`, mSerial, `${ms(mSerial)} (${rs.map((r) => (r.toSerial / 1000).toFixed(1)).join(', ')} s)`, atMost(lease * 1000, `≤ lease ${lease} s`), { limit: `${(mSerial / (lease * 1000)).toFixed(2)} × lease` })
  ctx.row(`  kill -9 → GET /api/v1/cluster names a new leader, median`, mLeader, ms(mLeader), undefined, { limit: `${(mLeader / (lease * 1000)).toFixed(2)} × lease` })
  for (const d of ds) await d.dispose()
}

export async function runClusterBench(ctx: BenchContext): Promise<void> {
  const npub = envInt('BENCH_CLUSTER_PUBLISHERS', ctx.quick ? 10 : 20)
  const seconds = envInt('BENCH_CLUSTER_SECONDS', ctx.quick ? 8 : 20)
  const rounds = envInt('BENCH_CLUSTER_ROUNDS', 5)
  const leases = (process.env.BENCH_CLUSTER_LEASES ?? '10 4').split(/\s+/).filter(Boolean).map(Number)
  const N = 3
  ctx.log(`${npub} publishers × ${seconds} s each against (a) svcd on SQLite, (b) svcd on PostgreSQL, (c) ${N} svcd on one PostgreSQL database (publishers round-robin); ${OBJECT_BYTES} B objects, one request in flight per publisher; cluster_poll_ms = ${POLL_MS} on PostgreSQL`)
  ctx.log(`PostgreSQL durable (fsync, synchronous_commit, full_page_writes on), its own cluster in a temp dir on loopback; failover: ${N} instances, leases ${leases.join(' and ')} s, ${rounds} rounds each`)
  const fsync = await fsyncLatency()
  ctx.log(`machine: fsync ${ms(fsync.fsyncMs)}, write+fsync+rename ${ms(fsync.replaceMs)}`)
  const td = new Teardown()
  try {
    const t0 = performance.now()
    const pubs: TestPublisher[] = []
    for (let i = 0; i < npub; i++) pubs.push(new TestPublisher(`cl-${String(i).padStart(2, '0')}`))
    ctx.log(`${npub} publisher identities ${ms(performance.now() - t0)}`)
    const pg = await benchPostgres(td)
    const results: LoadResult[] = []
    const sqlite = await BenchDaemon.start({ testbed: false })
    try {
      results.push(await load(ctx, '(a) SQLite, 1 instance', [sqlite], 0, pubs, seconds))
    } finally {
      await sqlite.dispose()
    }
    const one = await startCluster(td, pg.pg.createDatabase('svc_one'), pg.kek, 1, { pollMs: POLL_MS })
    results.push(await load(ctx, '(b) PostgreSQL, 1 instance', one, 0, pubs, seconds))
    await one[0]!.dispose()
    const three = await startCluster(td, pg.pg.createDatabase('svc_three'), pg.kek, N, { pollMs: POLL_MS })
    const { index } = await waitLeader(three, three[0]!, N)
    results.push(await load(ctx, `(c) PostgreSQL, ${N} instances`, three, index, pubs, seconds))
    const still = await waitLeader(three, three[0]!, N)
    if (still.index !== index) ctx.log(`(c): the leader changed during the load (${index} → ${still.index}): the delay is measured at the first`)
    for (const d of three) await d.dispose()

    const [a] = results as [LoadResult]
    const load1 = loadavg()[0]
    for (const r of results) {
      ctx.row(`${r.label}: ${npub} publishers × ${seconds} s, throughput`, r.rps, `${num(r.rps, 1)} req/s`, undefined, { limit: `${((r.rps * fsync.fsyncMs) / 1000 * 100).toFixed(0)} % of one-fsync-per-request ceiling ${num(1000 / fsync.fsyncMs)}/s${r === a ? '' : `; ${(r.rps / a.rps).toFixed(2)}× SQLite`}` })
      ctx.check('  errors', r.errors === 0, num(r.errors), '0')
      ctx.check('  every last object in every instance\'s snapshot', r.consistent, r.consistent ? 'yes' : 'no', 'yes')
      ctx.row('  request latency p50 / p99', r.latency.p99, `${ms(r.latency.p50)} / ${ms(r.latency.p99)}`, undefined, { limit: r === a ? `svcd CPU ${r.cpuCores.toFixed(2)} cores` : `${(r.latency.p50 / a.latency.p50).toFixed(2)}× / ${(r.latency.p99 / a.latency.p99).toFixed(2)}× SQLite; svcd CPU ${r.cpuCores.toFixed(2)} cores` })
      ctx.row(`  publish → ${r === results[2] ? "leader's " : ''}notification p50 / p99 / max`, r.delay.max, `${ms(r.delay.p50)} / ${ms(r.delay.p99)} / ${ms(r.delay.max)}`, undefined, { limit: `${r.serials} serials${r !== a ? `; p50 ${(r.delay.p50 / a.delay.p50).toFixed(2)}× SQLite` : ''}` })
      if (r === results[2]) {
        ctx.row(`  publish → every instance serves it, p50 / p99 / max`, r.delayAll.max, `${ms(r.delayAll.p50)} / ${ms(r.delayAll.p99)} / ${ms(r.delayAll.max)}`, undefined, { limit: `cluster_poll_ms ${POLL_MS}` })
        ctx.row(`  last instance behind the leader per serial, p50 / max`, r.lag.max, `${ms(r.lag.p50)} / ${ms(r.lag.max)}`, undefined, { limit: `cluster_poll_ms ${POLL_MS}` })
      }
    }
    ctx.log(`(load phases done; 1-min load average ${load1.toFixed(2)})`)

    for (const lease of leases) await failover(ctx, pg, td, lease, rounds, N)
  } finally {
    await td.run((l) => ctx.log(l))
  }
}
