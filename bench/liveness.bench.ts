/**
 * Liveness benchmark (issue 26, `make bench BENCH=liveness`): what one check of the relying-party view costs. svcd in
 * testbed mode with the rsync daemon, N CAs under testbed each with 5 ROAs (quick 100, full 1,000; BENCH_LIVENESS_N),
 * `[liveness]` checks only when asked (POST /api/v1/health/check). Then a few checks one after another, each timed from
 * the request to its answer, with svcd's CPU (all threads and the main thread) and RSS over the check, and the longest
 * wait of a GET /health polled beside it (how long the check held the event loop). The first check reads every object
 * (RRDP snapshot, a full rsync copy); the later ones the changes only (RRDP deltas, rsync's own transfer).
 */
import { performance } from 'node:perf_hooks'
import type { HealthCheckJson } from '../src/api/health.js'
import { addChildCa, startTestbed, waitCertified } from './cas.bench.js'
import { type BenchDaemon, RssSampler, sleep } from './lib/daemon.js'
import { below, type BenchContext, median, ms, num } from './lib/report.js'

const mib = (b: number) => `${(b / 1048576).toFixed(0)} MiB`

/** GET /health one after another; the longest wait is the longest the event loop was held (plus one round trip). */
async function probe(d: BenchDaemon, stop: { done: boolean }): Promise<number> {
  let worst = 0
  while (!stop.done) {
    const t0 = performance.now()
    await d.request('GET', '/health').catch(() => undefined)
    worst = Math.max(worst, performance.now() - t0)
    await sleep(5)
  }
  return worst
}

async function createCas(ctx: BenchContext, d: BenchDaemon, n: number): Promise<void> {
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < n) {
      const i = next++
      const handle = `lca-${String(i).padStart(4, '0')}`
      const net = `10.${i >> 8}.${i & 255}`
      await addChildCa(d, handle, { asn: '', ipv4: `${net}.0/24`, ipv6: '' })
      await waitCertified(d, handle, 900_000, 250)
      const asn = 64512 + (i % 1000)
      await d.api('POST', `/api/v1/cas/${handle}/routes`, { added: [`${net}.0/24`, `${net}.0/25`, `${net}.128/25`, `${net}.64/26`, `${net}.192/26`].map((prefix) => ({ asn, prefix })), removed: [] })
    }
  }))
  ctx.log(`  ${num(n)} CAs with 5 ROAs each configured in ${ms(performance.now() - t0)}`)
}

export async function runLivenessBench(ctx: BenchContext): Promise<void> {
  const n = Number(process.env.BENCH_LIVENESS_N) || (ctx.quick ? 100 : 1000)
  ctx.log(`${num(n)} CAs under testbed with 5 ROAs each, rsync daemon on; checks only when asked, one after another`)
  const d = await startTestbed({ rsyncDaemon: true, sections: '[liveness]\ncheck_seconds = 86400\nafter_publish_seconds = 86400\n' })
  try {
    await createCas(ctx, d, n)
    await d.idle({ windowMs: 2000, maxShare: 0.05, timeoutMs: 900_000 })
    const runs: { ms: number; cpu: number; main: number; rss: number; block: number; cas: number }[] = []
    for (let i = 0; i < 3; i++) {
      if (i > 0) await sleep(10_500) // POST /api/v1/health/check answers `recent` within 10 s of the last one
      const stop = { done: false }
      const blocked = probe(d, stop)
      const rss = new RssSampler(d.pid, 100)
      const cpu0 = d.cpuSeconds()
      const main0 = d.mainCpuSeconds()
      const t0 = performance.now()
      const r = await d.api<HealthCheckJson>('POST', '/api/v1/health/check')
      const took = performance.now() - t0
      stop.done = true
      const mem = rss.stop()
      runs.push({ ms: took, cpu: d.cpuSeconds() - cpu0, main: d.mainCpuSeconds() - main0, rss: mem.peak, block: await blocked, cas: r.cas.length })
      ctx.log(`  check ${i + 1} (${r.check}): ${ms(took)}, svcd CPU ${(d.cpuSeconds() - cpu0).toFixed(2)} s (main thread ${(d.mainCpuSeconds() - main0).toFixed(2)} s), RSS peak ${mib(mem.peak)}, longest /health wait ${ms(runs[i]!.block)}; ${r.cas.filter((c) => c.functional === true).length} of ${r.cas.length} CAs functional`)
    }
    const first = runs[0]!
    const later = runs.slice(1)
    ctx.row(`liveness: first check of ${num(n + 2)} CAs (RRDP snapshot, full rsync copy)`, first.ms, `${ms(first.ms)}, CPU ${first.cpu.toFixed(1)} s`, undefined, { limit: `${((first.main * 1000) / (n + 2)).toFixed(1)} ms main-thread CPU per CA; RSS peak ${mib(first.rss)}` })
    const laterMs = median(later.map((x) => x.ms))
    const laterCpu = median(later.map((x) => x.cpu))
    ctx.row(`liveness: a later check of ${num(n + 2)} CAs (deltas, rsync changes)`, laterMs, `${ms(laterMs)}, CPU ${laterCpu.toFixed(1)} s`, undefined, { limit: `${((median(later.map((x) => x.main)) * 1000) / (n + 2)).toFixed(1)} ms main-thread CPU per CA` })
    const block = Math.max(...runs.map((x) => x.block))
    ctx.row('liveness: longest /health wait during a check', block, ms(block), below(100, '< 100 ms'))
  } finally {
    await d.dispose()
  }
}
