/**
 * The ROA listing at scale (issue 10, defect 5), against a real svcd in testbed mode: one CA with 100,000 ROAs
 * (BENCH_QUICK: 20,000) over 100 ASNs (quick: 20), so aggregated into one ROA object per ASN, added through the API
 * in deltas of 4,000 (under the default post_limit_api). A /health poller runs throughout on its own connection;
 * its worst latency in each phase shows how long svcd's event loop was blocked. Figures:
 *  - time to add the ROAs (first POST until the last one is carried by a published object), the slowest POST,
 *    and the worst /health latency meanwhile;
 *  - GET /api/v1/cas/{ca}/routes page by page (the default page of 10,000, then 1,000-row pages at random
 *    offsets): the slowest page (the first includes building the listing index), the body size per page and in
 *    all, and the worst /health latency meanwhile; next to this machine's own JSON.stringify time for the same page
 *    (the floor of answering it);
 *  - what else touches the whole configuration: GET /api/v1/cas/{ca} (CA show) and GET …/history/commands, with the
 *    worst /health latency meanwhile;
 *  - issue 22: all N in one delta to a CA of their own, and a dry run of N more on top of the first CA's N, each with
 *    its time, ROAs/s, svcd's CPU and the worst /health latency meanwhile.
 */
import https from 'node:https'
import { performance } from 'node:perf_hooks'
import type { AddParentJson, CertAuthInfo, ChildRequestJson, ConfiguredRoa, ParentResponseJson, RoaJson } from '../src/api/cas.js'
import { BenchDaemon, sleep } from './lib/daemon.js'
import { below, type BenchContext, mib, ms, num } from './lib/report.js'

/** Sequential GET /health on a connection of its own, every `everyMs`; the latencies with their start times. */
class HealthPoller {
  private readonly agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  private readonly samples: { at: number; ms: number }[] = []
  private running = true
  private readonly done: Promise<void>

  constructor(private readonly url: string, everyMs = 20) {
    this.done = (async () => {
      while (this.running) {
        const t0 = performance.now()
        await new Promise<void>((resolve) => {
          const req = https.get(this.url + 'health', { agent: this.agent }, (res) => {
            res.resume()
            res.on('end', () => resolve())
            res.on('error', () => resolve())
          })
          req.on('error', () => resolve())
        })
        this.samples.push({ at: t0, ms: performance.now() - t0 })
        await sleep(everyMs)
      }
    })()
  }

  /** The worst latency of the polls that overlapped [from, to], with how many there were (once a poll after `to` is back). */
  async worst(from: number, to: number): Promise<{ max: number; n: number }> {
    while (this.running && !this.samples.some((s) => s.at > to)) await sleep(5)
    const xs = this.samples.filter((s) => s.at <= to && s.at + s.ms >= from)
    return { max: xs.reduce((m, s) => Math.max(m, s.ms), 0), n: xs.length }
  }

  async stop(): Promise<void> {
    this.running = false
    await this.done
    this.agent.destroy()
  }
}

function roa(i: number, asns: number): RoaJson {
  return { asn: 64512 + (i % asns), prefix: `${10 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.0/24` }
}

/** A CA under testbed holding 10.0.0.0/7, once its certificate has arrived (also used by bgp.bench.ts). */
export async function bigCa(d: BenchDaemon, handle: string): Promise<void> {
  await d.api('POST', '/api/v1/cas', { handle })
  const req = await d.api<ChildRequestJson>('GET', `/api/v1/cas/${handle}/child_request.json`)
  const resp = await d.api<ParentResponseJson>('POST', '/api/v1/cas/testbed/children', { handle, resources: { asn: '', ipv4: '10.0.0.0/7', ipv6: '' }, id_cert: req.id_cert })
  await d.api('POST', `/api/v1/cas/${handle}/parents`, { handle: 'testbed', response: resp } satisfies AddParentJson)
  for (;;) {
    const info = await d.api<CertAuthInfo>('GET', `/api/v1/cas/${handle}`)
    if (Object.values(info.resource_classes).some((rc) => Object.values(rc.keys).some((k) => Object.values(k).some((key) => key.incoming_cert !== null)))) return
    await sleep(100)
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now()
  const value = await fn()
  return { ms: performance.now() - t0, value }
}

export async function runRoutesBench(ctx: BenchContext): Promise<void> {
  const n = ctx.quick ? 20_000 : 100_000
  const asns = ctx.quick ? 20 : 100
  const batch = 4_000
  ctx.log(`${num(n)} ROAs over ${asns} ASNs (aggregated: ${asns} ROA objects of ${num(n / asns)} prefixes) in one CA, added in deltas of ${num(batch)}; /health polled every 20 ms throughout`)
  const d = await BenchDaemon.start()
  const health = new HealthPoller(d.url)
  try {
    for (;;) {
      const r = await d.request('GET', '/api/v1/cas/testbed')
      if (r.status === 200 && Object.values((JSON.parse(r.text) as CertAuthInfo).resource_classes).length > 0) break
      await sleep(100)
    }
    await bigCa(d, 'big')
    await d.idle({ windowMs: 1000, maxShare: 0.05 })

    // Add: deltas one after another, then until the last ROA (the last in listing order) is carried by an object.
    const cpu0 = d.cpuSeconds()
    const a0 = performance.now()
    const posts: number[] = []
    for (let i = 0; i < n; i += batch) {
      const added = Array.from({ length: Math.min(batch, n - i) }, (_, k) => roa(i + k, asns))
      posts.push((await timed(() => d.api('POST', '/api/v1/cas/big/routes', { added, removed: [] }))).ms)
    }
    const postedMs = performance.now() - a0
    for (;;) {
      const last = await d.api<ConfiguredRoa[]>('GET', `/api/v1/cas/big/routes?offset=${n - 1}&limit=1`)
      if (last.length === 1 && last[0]!.roa_objects.length > 0) break
      if (performance.now() - a0 > 3_600_000) throw new Error('the ROAs were not published within an hour')
      await sleep(1000)
    }
    const addMs = performance.now() - a0
    const addCpu = d.cpuSeconds() - cpu0
    const addHealth = await health.worst(a0, performance.now())
    ctx.log(`  add: ${posts.length} POSTs in ${ms(postedMs)} (slowest ${ms(Math.max(...posts))}); all ${num(n)} carried by published objects after ${ms(addMs)}; svcd CPU ${addCpu.toFixed(1)} s; worst /health ${ms(addHealth.max)} (${addHealth.n} polls)`)
    ctx.row(`add ${num(n)} ROAs (${posts.length} deltas of ${num(batch)}) until all published${ctx.quick ? ' (quick size)' : ''}`, addMs, ms(addMs), undefined, { limit: `svcd CPU ${addCpu.toFixed(0)} s; slowest POST ${ms(Math.max(...posts))}` })
    ctx.row('  worst /health latency while adding', addHealth.max, ms(addHealth.max), below(500, '< 500 ms'))
    await d.idle({ windowMs: 1000, maxShare: 0.05, timeoutMs: 600_000 })

    // Pages: the whole listing with the default page size (the first call builds the index), then 1,000-row pages.
    const p0 = performance.now()
    const pageMs: number[] = []
    let bytes = 0
    let firstBody = ''
    let rows = 0
    for (let offset = 0; offset < n; ) {
      const r = await timed(() => d.request('GET', `/api/v1/cas/big/routes?offset=${offset}`))
      if (r.value.status !== 200) throw new Error(`GET routes?offset=${offset}: HTTP ${r.value.status} ${r.value.text.slice(0, 300)}`)
      const page = JSON.parse(r.value.text) as ConfiguredRoa[]
      if (page.length === 0) throw new Error(`GET routes?offset=${offset}: empty page before the end`)
      if (!firstBody) firstBody = r.value.text
      pageMs.push(r.ms)
      bytes += r.value.text.length
      rows += page.length
      offset += page.length
    }
    const smallMs: number[] = []
    for (let k = 0; k < 20; k++) {
      const offset = Math.floor(Math.random() * (n - 1000))
      smallMs.push((await timed(() => d.api('GET', `/api/v1/cas/big/routes?offset=${offset}&limit=1000`))).ms)
    }
    const pagesHealth = await health.worst(p0, performance.now())
    // The floor of answering a page: this machine serialising the same page (parsed back) once.
    const parsed = JSON.parse(firstBody) as unknown
    const s0 = performance.now()
    JSON.stringify(parsed)
    const stringifyMs = performance.now() - s0
    const worstPage = Math.max(...pageMs, ...smallMs)
    ctx.log(`  pages of 10,000: ${pageMs.map((x) => ms(x)).join(', ')} (first one builds the index); ${num(rows)} rows, ${mib(bytes)} in all (${(bytes / rows).toFixed(0)} B per ROA); first page ${mib(firstBody.length)}`)
    ctx.log(`  20 pages of 1,000 at random offsets: slowest ${ms(Math.max(...smallMs))}; worst /health while paging ${ms(pagesHealth.max)} (${pagesHealth.n} polls); JSON.stringify of the first page in the bench process ${ms(stringifyMs)}`)
    ctx.row(`GET …/routes, slowest page (${num(n)} ROAs, pages of 10,000 and 1,000)`, worstPage, ms(worstPage), below(1000, '< 1 s'), { limit: `JSON.stringify of a 10,000 page here ${ms(stringifyMs)}` })
    ctx.row('  whole listing size per ROA', bytes / rows, `${(bytes / rows).toFixed(0)} B (${mib(bytes)} in all)`, below(1000, '< 1,000 B'))
    ctx.row('  worst /health latency while paging', pagesHealth.max, ms(pagesHealth.max), below(300, '< 300 ms'))

    // Other reads of a CA this size.
    const o0 = performance.now()
    const show = await timed(() => d.api('GET', '/api/v1/cas/big'))
    const history = await timed(() => d.api('GET', '/api/v1/cas/big/history/commands'))
    const showHealth = await health.worst(o0, performance.now())
    ctx.log(`  GET /api/v1/cas/big ${ms(show.ms)}; GET …/history/commands ${ms(history.ms)}; worst /health meanwhile ${ms(showHealth.max)} (${showHealth.n} polls)`)
    ctx.row(`GET /api/v1/cas/{ca} with ${num(n)} ROAs`, show.ms, ms(show.ms), below(1000, '< 1 s'))
    ctx.row(`GET …/history/commands with ${num(n)} ROAs`, history.ms, ms(history.ms), below(1000, '< 1 s'), { limit: `worst /health meanwhile ${ms(showHealth.max)}` })

    await d.idle({ windowMs: 1000, maxShare: 0.05, timeoutMs: 600_000 })
    await oneDeltaAndDryRun(ctx, d, health, n, asns)
  } finally {
    await health.stop()
    await d.dispose()
  }
}

/**
 * Issue 22 defect 8: all N ROAs in one delta to a CA of their own (applied, then published), and a dry run of N more
 * on top of the first CA's N; the worst /health latency during each (svcd's longest event-loop stall), and ROAs/s.
 */
async function oneDeltaAndDryRun(ctx: BenchContext, d: BenchDaemon, health: HealthPoller, n: number, asns: number): Promise<void> {
  await bigCa(d, 'one')
  await d.idle({ windowMs: 1000, maxShare: 0.05 })
  const added = Array.from({ length: n }, (_, i) => roa(i, asns))
  const cpu0 = d.cpuSeconds()
  const t0 = performance.now()
  await d.api('POST', '/api/v1/cas/one/routes', { added, removed: [] })
  const answered = performance.now() - t0
  const cpu1 = d.cpuSeconds()
  for (;;) {
    const last = await d.api<ConfiguredRoa[]>('GET', `/api/v1/cas/one/routes?offset=${n - 1}&limit=1`)
    if (last.length === 1 && last[0]!.roa_objects.length > 0) break
    if (performance.now() - t0 > 600_000) throw new Error('the ROAs were not published within 10 minutes')
    await sleep(200)
  }
  const published = performance.now() - t0
  const h = await health.worst(t0, performance.now())
  ctx.log(`  one delta of ${num(n)}: answered after ${ms(answered)} (${num(Math.round((n / answered) * 1000))} ROAs/s, svcd CPU ${(cpu1 - cpu0).toFixed(1)} s), all published after ${ms(published)}; worst /health ${ms(h.max)} (${h.n} polls)`)
  ctx.row(`one delta of ${num(n)} ROAs: answered`, answered, ms(answered), undefined, { limit: `${num(Math.round((n / answered) * 1000))} ROAs/s, svcd CPU ${(cpu1 - cpu0).toFixed(1)} s; all published after ${ms(published)}` })
  ctx.row('  worst /health latency while applied and published', h.max, ms(h.max), below(300, '< 300 ms'))
  await d.idle({ windowMs: 1000, maxShare: 0.05, timeoutMs: 600_000 })

  const more = Array.from({ length: n }, (_, i) => ({ ...roa(i, asns), max_length: 25 }))
  const cpu2 = d.cpuSeconds()
  const t1 = performance.now()
  const r = await d.request('POST', '/api/v1/cas/big/routes/analysis/dryrun', { added: more, removed: [] })
  const dry = performance.now() - t1
  if (r.status !== 200) throw new Error(`dry run: HTTP ${r.status} ${r.text.slice(0, 300)}`)
  const cpu3 = d.cpuSeconds()
  const hd = await health.worst(t1, performance.now())
  ctx.log(`  dry run of ${num(n)} on top of ${num(n)}: answered after ${ms(dry)} (${mib(r.text.length)}, svcd CPU ${(cpu3 - cpu2).toFixed(1)} s); worst /health ${ms(hd.max)} (${hd.n} polls)`)
  ctx.row(`dry run of ${num(n)} ROAs on top of ${num(n)}`, dry, ms(dry), undefined, { limit: `${num(Math.round((2 * n / dry) * 1000))} ROAs/s analysed, svcd CPU ${(cpu3 - cpu2).toFixed(1)} s` })
  ctx.row('  worst /health latency during the dry run', hd.max, ms(hd.max), below(300, '< 300 ms'))
}
