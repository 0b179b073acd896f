/**
 * Issue 28 §3: the BGP analysis of one CA with N ROAs against a RIS-like table of M announcements, in svcd's analysis
 * worker (app/bgp/analysis-pool.ts). The table is a synthetic whois dump (IPv4 and IPv6 files, '<asn> <prefix>
 * <peers>' lines) served by a loopback HTTP server, as RIPE serves riswhoisdump.IPv4/IPv6; about a third of it lies in
 * the CA's resources (10.0.0.0/7): the ROAs' own /24s (every tenth from another origin), /25 more-specifics of every
 * fifth (invalid length), prefixes no ROA covers; the rest is spread over other space (a tenth IPv6). The ROAs go in
 * with one delta. Then GET …/routes/analysis/full and …/suggest are timed (three times each, the median), with svcd's
 * CPU (all threads, and the main thread alone) and the worst wait of a GET /health polled beside them: the longest
 * the event loop was held. Sizes: N = 100,000, M = 1,000,000 (quick: 20,000 × 200,000; BENCH_BGP_ROAS and
 * BENCH_BGP_ANNOUNCEMENTS set others); the growth exponent between the quick size and the one run is printed when
 * both ran (BENCH_BGP_BOTH=1 runs both).
 */
import { createServer, type Server } from 'node:http'
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import type { BgpAnalysisEntry, CertAuthInfo, RoaJson } from '../src/api/cas.js'
import { BenchDaemon, sleep } from './lib/daemon.js'
import { below, median, type BenchContext, mib, ms, num } from './lib/report.js'
import { bigCa } from './routes.bench.js'

const ASNS = 100

function roa(i: number): RoaJson {
  return { asn: 64512 + (i % ASNS), prefix: `${10 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.0/24` }
}

/** The dump lines (IPv4, IPv6) for `n` ROAs and about `m` announcements. */
function dumps(n: number, m: number): { v4: string; v6: string; inside: number } {
  const v4: string[] = []
  const v6: string[] = []
  for (let i = 0; i < n; i++) {
    const r = roa(i)
    v4.push(`${i % 10 === 9 ? r.asn + 1000 : r.asn}\t${r.prefix}\t100`)
    if (i % 5 === 0) {
      const base = r.prefix.slice(0, -5)
      v4.push(`${r.asn}\t${base}.0/25\t50`, `${r.asn}\t${base}.128/25\t50`)
    }
  }
  // Not found: /24s in the CA's space beyond the ROAs (11.160.0.0 up), up to a third of the table.
  for (let k = 0; v4.length < Math.floor(m / 3); k++) v4.push(`${65000 + (k % 500)}\t11.${160 + ((k >> 8) % 96)}.${k & 255}.0/24\t30`)
  const inside = v4.length
  // Elsewhere: /24s and some /16-/23 over 1.0.0.0–9.255.255.255 and 12.0.0.0 up; a tenth IPv6 /48s in 2a00::/12.
  for (let k = 0; v4.length + v6.length < m; k++) {
    if (k % 10 === 0) {
      v6.push(`${1000 + (k % 30_000)}\t2a0${(k >> 28) & 15}:${((k >> 16) & 0xfff).toString(16)}:${(k & 0xffff).toString(16)}::/48\t40`)
      continue
    }
    const a = k < 2_300_000 ? 1 + Math.floor(k / 65_536) : 12 + Math.floor(k / 65_536)
    const first = a >= 10 ? a + 2 : a
    const len = k % 7 === 0 ? 16 + (k % 8) : 24
    const net = (k & 0xffff) << 8 // the /24 at k; a shorter prefix masked to its length
    const mask = len >= 24 ? 0xffffff : (0xffffff << (24 - len)) & 0xffffff
    const x = net & mask
    v4.push(`${2000 + (k % 60_000)}\t${first}.${(x >> 16) & 255}.${(x >> 8) & 255}.${x & 255}/${len}\t${20 + (k % 300)}`)
  }
  return { v4: v4.join('\n') + '\n', v6: v6.join('\n') + '\n', inside }
}

async function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const file = req.url === '/riswhoisdump.IPv4' ? 'v4' : req.url === '/riswhoisdump.IPv6' ? 'v6' : undefined
    if (!file) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/plain' })
    createReadStream(join(dir, file)).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return { server, url: `http://127.0.0.1:${port}/` }
}

/** GET /health one after another; the longest wait is the longest the event loop was held (plus one round trip). */
function poller(d: BenchDaemon): { stop: () => Promise<number>; reset: () => void; worst: () => number } {
  let worst = 0
  let running = true
  const done = (async () => {
    while (running) {
      const t0 = performance.now()
      await d.request('GET', '/health').catch(() => undefined)
      worst = Math.max(worst, performance.now() - t0)
      await sleep(10)
    }
  })()
  let all = 0
  return {
    reset: () => void ((all = Math.max(all, worst)), (worst = 0)),
    worst: () => worst,
    stop: async () => ((running = false), await done, Math.max(all, worst)),
  }
}

interface SizeResult { n: number; m: number; fullMs: number; suggestMs: number; fullCpu: number; suggestCpu: number }

async function runSize(ctx: BenchContext, n: number, m: number): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ris-'))
  const t = dumps(n, m)
  writeFileSync(join(dir, 'v4'), t.v4)
  writeFileSync(join(dir, 'v6'), t.v6)
  const { server, url } = await serve(dir)
  ctx.log(`${num(n)} ROAs in one CA × ${num(m)} announcements (${num(t.inside)} in the CA's resources; dumps ${mib(t.v4.length + t.v6.length)}) served on ${url}`)
  const top = ['bgp_riswhois_enabled = true', `bgp_riswhois_v4_uri = "${url}riswhoisdump.IPv4"`, `bgp_riswhois_v6_uri = "${url}riswhoisdump.IPv6"`, 'bgp_riswhois_min_peers = 6'].join('\n')
  const d = await BenchDaemon.start({ top })
  try {
    for (;;) {
      const r = await d.request('GET', '/api/v1/cas/testbed')
      if (r.status === 200 && Object.values((JSON.parse(r.text) as CertAuthInfo).resource_classes).length > 0) break
      await sleep(100)
    }
    await bigCa(d, 'big')
    const added = Array.from({ length: n }, (_, i) => roa(i))
    const a0 = performance.now()
    await d.api('POST', '/api/v1/cas/big/routes', { added, removed: [] })
    ctx.log(`  ${num(n)} ROAs added in one delta in ${ms(performance.now() - a0)}`)
    while (!d.output().includes('RIS whois dumps loaded')) {
      if (d.output().includes('RIS whois dumps not')) throw new Error('svcd did not load the dumps (see its log)')
      await sleep(200)
    }
    await d.idle({ windowMs: 1000, maxShare: 0.05, timeoutMs: 600_000 })
    const health = poller(d)
    const timeIt = async (path: string) => {
      const runs: { ms: number; cpu: number; main: number; worst: number; bytes: number; text: string }[] = []
      for (let k = 0; k < 3; k++) {
        await sleep(200)
        health.reset()
        const c0 = d.cpuSeconds()
        const m0 = d.mainCpuSeconds()
        const t0 = performance.now()
        const r = await d.request('GET', path)
        const took = performance.now() - t0
        if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.text.slice(0, 300)}`)
        await sleep(30) // one more poll after the answer
        runs.push({ ms: took, cpu: d.cpuSeconds() - c0, main: d.mainCpuSeconds() - m0, worst: health.worst(), bytes: r.text.length, text: k === 0 ? r.text : '' })
      }
      return runs
    }
    const full = await timeIt('/api/v1/cas/big/routes/analysis/full')
    const entries = JSON.parse(full[0]!.text) as BgpAnalysisEntry[]
    const states = new Map<string, number>()
    for (const e of entries) states.set(e.state, (states.get(e.state) ?? 0) + 1)
    const suggest = await timeIt('/api/v1/cas/big/routes/analysis/suggest')
    const worst = await health.stop()
    const load = (await import('node:os')).loadavg()[0]!.toFixed(2)
    const show = (label: string, runs: typeof full) => {
      const med = median(runs.map((r) => r.ms))
      ctx.log(`  ${label}: ${runs.map((r) => ms(r.ms)).join(', ')} (median ${ms(med)}); ${mib(runs[0]!.bytes)}; svcd CPU ${runs.map((r) => r.cpu.toFixed(2)).join(', ')} s, main thread ${runs.map((r) => r.main.toFixed(2)).join(', ')} s; worst /health ${runs.map((r) => ms(r.worst)).join(', ')} (load ${load})`)
      return med
    }
    const fullMs = show('GET …/routes/analysis/full', full)
    ctx.log(`    states: ${[...states].map(([s, c]) => `${s} ${num(c)}`).join(', ')}`)
    const suggestMs = show('GET …/routes/analysis/suggest', suggest)
    ctx.log(`  worst GET /health wait during the analyses: ${ms(worst)}`)
    const size = `${num(n)} ROAs × ${num(m)} announcements`
    const cpu = (runs: typeof full) => median(runs.map((r) => r.cpu))
    const main = (runs: typeof full) => median(runs.map((r) => r.main))
    ctx.row(`BGP analysis (…/analysis/full), ${size}`, fullMs, ms(fullMs), below(5000, '< 5 s'), { limit: `svcd CPU ${cpu(full).toFixed(2)} s (main thread ${main(full).toFixed(2)} s); load ${load}` })
    ctx.row(`BGP suggestion (…/analysis/suggest), ${size}`, suggestMs, ms(suggestMs), below(5000, '< 5 s'), { limit: `svcd CPU ${cpu(suggest).toFixed(2)} s (main thread ${main(suggest).toFixed(2)} s)` })
    ctx.row('  worst /health wait during the analyses', worst, ms(worst), below(100, '< 100 ms'))
    return { n, m, fullMs, suggestMs, fullCpu: cpu(full), suggestCpu: cpu(suggest) }
  } finally {
    await d.dispose()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function runBgpBench(ctx: BenchContext): Promise<void> {
  const quick = { n: 20_000, m: 200_000 }
  const size = { n: Number(process.env.BENCH_BGP_ROAS ?? (ctx.quick ? quick.n : 100_000)), m: Number(process.env.BENCH_BGP_ANNOUNCEMENTS ?? (ctx.quick ? quick.m : 1_000_000)) }
  const results: SizeResult[] = []
  if (process.env.BENCH_BGP_BOTH && (size.n !== quick.n || size.m !== quick.m)) results.push(await runSize(ctx, quick.n, quick.m))
  results.push(await runSize(ctx, size.n, size.m))
  if (results.length === 2) {
    const [a, b] = results as [SizeResult, SizeResult]
    const k = Math.log(b.n / a.n) // the exponent per size factor: cost ratio = factor^e
    const e = (x: number, y: number) => Math.log(y / x) / k
    ctx.log(`  growth exponent ${num(a.n)} → ${num(b.n)} ROAs (and ${num(a.m)} → ${num(b.m)} announcements): full ${e(a.fullMs, b.fullMs).toFixed(2)} (CPU ${e(a.fullCpu, b.fullCpu).toFixed(2)}), suggest ${e(a.suggestMs, b.suggestMs).toFixed(2)} (CPU ${e(a.suggestCpu, b.suggestCpu).toFixed(2)})`)
    ctx.row('  growth exponent of the analysis CPU (5× ROAs and announcements)', e(a.fullCpu, b.fullCpu), e(a.fullCpu, b.fullCpu).toFixed(2), below(1.2, '≤ linear'))
  }
}
