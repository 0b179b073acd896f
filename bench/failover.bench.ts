/**
 * Issue 23 item 6: how long three svcd on one PostgreSQL database go without a leader after the leader is killed
 * with -9, on an idle machine and beside `stress-ng --cpu 2` (which this bench starts and stops itself), with a few
 * publishers publishing through the instances all along, as test/e2e/cluster.test.ts does. Each round kills the
 * leader, then times kill → the new leader's own log line "this instance leads" (when it took the lock) and kill →
 * GET /api/v1/cluster at a survivor names it (polled every 20 ms over keep-alive HTTPS, no process spawned); the killed
 * instance is started again between rounds. The target is the lease plus 2 s.
 *
 * Sizes: 5 rounds per phase (BENCH_QUICK: 3), lease 5 s; BENCH_FAILOVER_ROUNDS and BENCH_FAILOVER_LEASE override them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import type { ClusterJson } from '../src/api/status.js'
import { TestPublisher } from '../test/helpers/publisher.js'
import { benchPostgres, clusterView, sameSerial, startCluster, Teardown, waitLeader } from './lib/cluster.js'
import { BenchDaemon, sleep } from './lib/daemon.js'
import { addPublishers, sendTo } from './lib/publish-loop.js'
import { atMost, type BenchContext, median, ms } from './lib/report.js'

const POLL_MS = 200
const PUBLISHERS = 3
const STRESS_NG = '/usr/bin/stress-ng'
const envInt = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt)

interface Round {
  /** kill → the new leader logged that it leads (it holds the lock and bumped the epoch). */
  toLock: number
  /** From that log line: how late its successful tick ran (event-loop lag) and how long the try took (the database). */
  tickLate: number
  tryMs: number
  /** kill → a survivor's GET /api/v1/cluster names the new leader. */
  toApi: number
}

/** Publishers replacing their objects through whichever instances live, one request in flight each, until stopped. */
function publishing(ds: BenchDaemon[], pubs: TestPublisher[]): { stop: () => Promise<number> } {
  let running = true
  let acked = 0
  const loops = pubs.map(async (p, i) => {
    for (let k = 0; running; k++) {
      const d = ds[(i + k) % ds.length]!
      const r = await sendTo(p, d, { type: 'delta', pdus: [{ type: 'publish', uri: `${p.response!.siaBase}o${k}.roa`, content: new Uint8Array(randomBytes(512)) }] }).catch(() => undefined)
      if (r?.type === 'success') acked++
      else await sleep(50) // a killed instance: try the next one
    }
  })
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
      return acked
    },
  }
}

/** `d`'s last "this instance leads" line: when (ms since the epoch), how late its tick ran, how long its try took. */
function ledAt(d: BenchDaemon): { at: number; tickLate: number; tryMs: number } | undefined {
  const line = d.output().split('\n').filter((l) => l.includes('this instance leads')).at(-1)
  const time = /"time":"([^"]+)"/.exec(line ?? '')?.[1]
  const field = (name: string) => Number(new RegExp(`"${name}":(\\d+)`).exec(line ?? '')?.[1] ?? NaN)
  return time ? { at: Date.parse(time), tickLate: field('tick_late_ms'), tryMs: field('try_ms') } : undefined
}

/** One failover: kill -9 the leader, time the new leader (its log, and the API), start the killed one again. */
async function round(ds: BenchDaemon[], timeoutMs: number): Promise<Round> {
  const { view, index } = await waitLeader(ds, ds[0]!, ds.length)
  const leader = ds[index]!
  const survivors = ds.filter((d) => d !== leader)
  await sleep(500)
  const killed = Date.now()
  await leader.stop('SIGKILL')
  // Every survivor asked at once, every 20 ms: the first answer that names a newer epoch counts (a survivor busy
  // catching up as the new leader must not hold up the other's answer).
  const named = await new Promise<ClusterJson>((resolve, reject) => {
    let done = false
    for (const d of survivors) {
      void (async () => {
        while (!done) {
          const v = await clusterView(d).catch(() => undefined)
          if (done) return
          if (v?.leader && v.epoch > view.epoch) return (done = true), resolve(v)
          if (Date.now() - killed > timeoutMs) return (done = true), reject(new Error(`no new leader ${timeoutMs} ms after kill -9`))
          await sleep(20)
        }
      })()
    }
  })
  const toApi = Date.now() - killed
  const by = survivors.find((s) => named.instances.find((i) => i.id === named.leader)?.url.endsWith(`:${s.port}/`))
  // svcd's log reaches us a little later than its API answers: wait (briefly) for the line of this take-over.
  let lock = by ? ledAt(by) : undefined
  for (let i = 0; by && (!lock || lock.at < killed) && i < 100; i++) {
    await sleep(50)
    lock = ledAt(by)
  }
  await leader.spawn()
  await waitLeader(ds, ds[0]!, ds.length)
  await sameSerial(ds)
  const fresh = lock !== undefined && lock.at >= killed ? lock : undefined
  return { toApi, toLock: fresh ? fresh.at - killed : NaN, tickLate: fresh?.tickLate ?? NaN, tryMs: fresh?.tryMs ?? NaN }
}

async function phase(ctx: BenchContext, label: string, ds: BenchDaemon[], pubs: TestPublisher[], rounds: number, lease: number): Promise<void> {
  const load = publishing(ds, pubs)
  const rs: Round[] = []
  try {
    for (let i = 0; i < rounds; i++) {
      const r = await round(ds, lease * 1000 * 4 + 30_000)
      rs.push(r)
      ctx.log(`${label}, round ${i + 1}: kill -9 → the new leader took the lock ${ms(r.toLock)} (its tick ran ${ms(r.tickLate)} late, the try took ${ms(r.tryMs)}), → GET /api/v1/cluster names it ${ms(r.toApi)} (1-min load ${loadavg()[0].toFixed(1)})`)
    }
  } finally {
    const acked = await load.stop()
    ctx.log(`${label}: ${acked} publishes acknowledged meanwhile`)
  }
  const lock = rs.map((r) => r.toLock).filter((x) => !Number.isNaN(x))
  const api = rs.map((r) => r.toApi)
  const bound = lease * 1000 + 2000
  ctx.row(`failover ${label}, lease ${lease} s: kill -9 → new leader (its lock), median / max of ${rounds}`, Math.max(...lock), `${ms(median(lock))} / ${ms(Math.max(...lock))}`, undefined, { limit: `${lock.map((x) => (x / 1000).toFixed(1)).join(', ')} s` })
  ctx.row(`  kill -9 → GET /api/v1/cluster names it, median / max`, Math.max(...api), `${ms(median(api))} / ${ms(Math.max(...api))}`, atMost(bound, `≤ lease + 2 s`), { limit: `${(Math.max(...api) / (lease * 1000)).toFixed(2)} × lease` })
}

/** Start `stress-ng --cpu 2` (two busy workers, as the measurement had beside the suite). */
async function startStress(td: Teardown): Promise<ChildProcess> {
  const p = spawn(STRESS_NG, ['--cpu', '2', '--timeout', '600'], { stdio: 'ignore' })
  td.teardown(() => new Promise<void>((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve()
    p.once('exit', () => resolve())
    p.kill('SIGTERM')
  }))
  await sleep(2000) // let the workers start and the load settle
  return p
}

export async function runFailoverBench(ctx: BenchContext): Promise<void> {
  const rounds = envInt('BENCH_FAILOVER_ROUNDS', ctx.quick ? 3 : 5)
  const lease = envInt('BENCH_FAILOVER_LEASE', 5)
  const N = 3
  ctx.log(`${N} svcd on one PostgreSQL database, lease ${lease} s, cluster_poll_ms ${POLL_MS}, ${PUBLISHERS} publishers publishing through them; ${rounds} rounds idle and ${rounds} beside stress-ng --cpu 2`)
  const td = new Teardown()
  try {
    const pg = await benchPostgres(td)
    const ds = await startCluster(td, pg.pg.createDatabase('svc_failover'), pg.kek, N, { leaseSeconds: lease, pollMs: POLL_MS })
    await waitLeader(ds, ds[0]!, N)
    const pubs = Array.from({ length: PUBLISHERS }, (_, i) => new TestPublisher(`fo-${i}`))
    await addPublishers(ds, pubs, 512)
    await phase(ctx, 'idle', ds, pubs, rounds, lease)
    if (!existsSync(STRESS_NG)) {
      ctx.failed('failover beside stress-ng --cpu 2', `${STRESS_NG} is not installed (apt-get install stress-ng)`)
      return
    }
    await startStress(td)
    await phase(ctx, 'beside stress-ng --cpu 2', ds, pubs, rounds, lease)
  } finally {
    await td.run((l) => ctx.log(l))
  }
}
