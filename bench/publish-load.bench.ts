/**
 * Publication server, issue 4 "sustained publishing from 50 concurrent publishers over HTTPS": a real svcd (embedded
 * repository, no testbed) and 50 TestPublishers, each with its own identity key and ID certificate, each replacing
 * its own small object again and again with CMS-wrapped RFC 8181 over HTTPS for 60 s (BENCH_QUICK: 15 s).
 * Reports requests/s, errors (must be 0), latency as the publisher sees it (sign, HTTPS, svcd, verify the signed
 * reply), svcd's RSS (VmRSS sampled, and VmHWM), and that the final RRDP snapshot holds every publisher's last object.
 */
import { createHash, randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { TestPublisher } from '../test/helpers/publisher.js'
import { readRrdp } from '../test/helpers/repo.js'
import { readFileSync } from 'node:fs'
import { decodeDelta } from '../src/protocol/rrdp.js'
import { BenchDaemon, currentSerial, notificationOnDisk, RssSampler, sleep } from './lib/daemon.js'
import { fsyncLatency } from './lib/machine.js'
import { type BenchContext, mib, ms, num, summary } from './lib/report.js'

const PUBLISHERS = 50
const OBJECT_BYTES = 1024

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/**
 * Publication delay under load: polls the notification on disk, reads each new delta and matches the content hashes
 * it publishes with the time the publisher got its success reply. (Objects replaced again before the next serial
 * never reach RRDP and are not sampled.)
 */
class DelayMonitor {
  readonly acked = new Map<string, number>()
  readonly delays: number[] = []
  serials = 0
  private last: number
  private readonly timer: NodeJS.Timeout

  constructor(private readonly rrdpDir: string) {
    this.last = currentSerial(rrdpDir)
    this.timer = setInterval(() => this.poll(), 20)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  poll(): void {
    const at = performance.now()
    let n
    try {
      n = notificationOnDisk(this.rrdpDir)
    } catch {
      return
    }
    if (!n) return
    const serial = Number(n.notification.serial)
    for (let s = this.last + 1; s <= serial; s++) {
      this.serials++
      const d = n.notification.deltas.find((x) => x.serial === s)
      if (!d) continue
      for (const e of decodeDelta(readFileSync(n.path(d.uri))).elements) {
        if (e.type !== 'publish') continue
        const t = this.acked.get(sha(e.content))
        if (t !== undefined) this.delays.push(at - t)
      }
    }
    this.last = Math.max(this.last, serial)
  }
}

export async function runPublishLoadBench(ctx: BenchContext): Promise<void> {
  const seconds = ctx.quick ? 15 : 60
  ctx.log(`${PUBLISHERS} publishers, each replacing one ${num(OBJECT_BYTES)} B object in a loop for ${seconds} s (one request in flight per publisher)`)
  const fsync = await fsyncLatency()
  const d = await BenchDaemon.start({ testbed: false })
  try {
    const t0 = performance.now()
    const pubs: TestPublisher[] = []
    for (let i = 0; i < PUBLISHERS; i++) pubs.push(new TestPublisher(`load-${String(i).padStart(2, '0')}`))
    const keysMs = performance.now() - t0
    const t1 = performance.now()
    for (const p of pubs) {
      await d.api('POST', '/api/v1/pubd/publishers', p.requestXml())
      const xml = await d.request('GET', `/api/v1/pubd/publishers/${p.handle}/response.xml`)
      if (xml.status !== 200) throw new Error(`response.xml for ${p.handle}: HTTP ${xml.status}`)
      p.useResponse(xml.text)
    }
    const last = new Map<TestPublisher, string>()
    await Promise.all(pubs.map(async (p) => {
      const content = new Uint8Array(randomBytes(OBJECT_BYTES))
      const r = await p.send({ type: 'delta', pdus: [{ type: 'publish', uri: `${p.response!.siaBase}object.roa`, content }] })
      if (r.type !== 'success') throw new Error(`first publish of ${p.handle}: ${JSON.stringify(r)}`)
      last.set(p, sha(content))
    }))
    ctx.log(`setup: ${PUBLISHERS} identities (2 RSA keys each, generateKeyPairSync) ${ms(keysMs)}; publishers added and first objects published ${ms(performance.now() - t1)}`)
    await d.idle({ windowMs: 500, maxShare: 0.1 })

    const rss = new RssSampler(d.pid, 200)
    const monitor = new DelayMonitor(d.rrdpDir())
    const clientCpu0 = process.cpuUsage()
    const cpu0 = d.cpuSeconds()
    const serial0 = currentSerial(d.rrdpDir())
    const latencies: number[] = []
    let errors = 0
    const errorSamples: string[] = []
    const start = performance.now()
    const end = start + seconds * 1000
    await Promise.all(pubs.map(async (p) => {
      const uri = `${p.response!.siaBase}object.roa`
      while (performance.now() < end) {
        const content = new Uint8Array(randomBytes(OBJECT_BYTES))
        const t = performance.now()
        try {
          const r = await p.send({ type: 'delta', pdus: [{ type: 'publish', uri, hash: last.get(p)!, content }] })
          latencies.push(performance.now() - t)
          if (r.type === 'success') {
            const h = sha(content)
            last.set(p, h)
            monitor.acked.set(h, performance.now())
          }
          else {
            errors++
            if (errorSamples.length < 3) errorSamples.push(JSON.stringify(r).slice(0, 300))
          }
        } catch (e) {
          errors++
          if (errorSamples.length < 3) errorSamples.push(String(e).slice(0, 300))
        }
      }
    }))
    const elapsed = (performance.now() - start) / 1000
    const cpu = d.cpuSeconds() - cpu0
    const clientUsage = process.cpuUsage(clientCpu0)
    const clientCpu = (clientUsage.user + clientUsage.system) / 1e6
    const serials = currentSerial(d.rrdpDir()) - serial0
    const mem = rss.stop()
    const hwm = d.memory().peak

    // The load is over: the last object of every publisher must reach the RRDP snapshot.
    const t2 = performance.now()
    let consistent = false
    while (!consistent && performance.now() - t2 < 60_000) {
      const v = await readRrdp(d.url).catch(() => undefined)
      consistent = v !== undefined && pubs.every((p) => v.objects.get(`${p.response!.siaBase}object.roa`) === last.get(p))
      if (!consistent) await sleep(100)
    }
    const convergeMs = performance.now() - t2
    monitor.poll()
    monitor.stop()
    const delay = summary(monitor.delays)
    const endRss = d.memory().rss

    const s = summary(latencies)
    const rps = latencies.length / elapsed
    ctx.log(`${num(latencies.length)} requests in ${elapsed.toFixed(1)} s: ${num(rps, 1)} req/s, ${errors} errors${errorSamples.length ? ` (${errorSamples.join(' | ')})` : ''}`)
    ctx.log(`latency p50 ${ms(s.p50)}, p90 ${ms(s.p90)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`)
    ctx.log(`svcd: ${(cpu / elapsed).toFixed(2)} cores of CPU on average, ${num((cpu * 1000) / Math.max(1, latencies.length), 2)} ms CPU per request (${num(1000 / rps, 2)} ms of wall time per request at this rate); bench client ${(clientCpu / elapsed).toFixed(2)} cores`)
    ctx.log(`RRDP during the load: ${serials} serials (${(serials / elapsed).toFixed(2)}/s, ${num(latencies.length / Math.max(1, serials), 1)} requests per serial); publication delay (success reply → in a notification on disk) over ${num(delay.n)} sampled objects: p50 ${ms(delay.p50)}, p99 ${ms(delay.p99)}, max ${ms(delay.max)}`)
    ctx.log(`svcd RSS: peak ${mib(mem.peak)} (sampled every 200 ms; VmHWM ${mib(hwm)}), at the end of the load ${mib(mem.last)}, after it ${mib(endRss)}`)
    ctx.log(`final RRDP snapshot holds every publisher's last object: ${consistent ? 'yes' : 'NO'} (${ms(convergeMs)} after the load stopped)`)
    const commitCeiling = 1000 / fsync.fsyncMs
    ctx.row(`sustained publish, ${PUBLISHERS} publishers over HTTPS, ${seconds} s: throughput`, rps, `${num(rps, 1)} req/s`, undefined,
      { limit: `${(rps / commitCeiling * 100).toFixed(0)} % of one-fsync-per-request ceiling ${num(commitCeiling)}/s` })
    ctx.check('  errors', errors === 0, num(errors), '0')
    ctx.check('  final RRDP snapshot = every publisher\'s last object', consistent, consistent ? `yes, ${ms(convergeMs)} after the load` : 'no', 'yes')
    ctx.row('  latency p50 / p99', s.p99, `${ms(s.p50)} / ${ms(s.p99)}`)
    ctx.row('  publication delay under load, p50 / max (reply → notification on disk)', delay.max, `${ms(delay.p50)} / ${ms(delay.max)}`, undefined, { limit: `${serials} serials in ${elapsed.toFixed(0)} s` })
    ctx.row('  svcd RSS peak / end', mem.peak, `${mib(Math.max(mem.peak, hwm))} / ${mib(mem.last)}`)
  } finally {
    await d.dispose()
  }
}
