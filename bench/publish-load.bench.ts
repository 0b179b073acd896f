/**
 * Publication server, issue 4 "sustained publishing from 50 concurrent publishers over HTTPS": a real svcd (embedded
 * repository, no testbed) and 50 TestPublishers, each with its own identity key and ID certificate, each replacing
 * its own small object again and again with CMS-wrapped RFC 8181 over HTTPS for 60 s (BENCH_QUICK: 15 s).
 * Reports requests/s, errors (must be 0), latency as the publisher sees it (sign, HTTPS, svcd, verify the signed
 * reply), svcd's RSS (VmRSS sampled, and VmHWM), and that the final RRDP snapshot holds every publisher's last object.
 */
import { performance } from 'node:perf_hooks'
import { TestPublisher } from '../test/helpers/publisher.js'
import { readRrdp } from '../test/helpers/repo.js'
import { BenchDaemon, currentSerial, RssSampler, sleep } from './lib/daemon.js'
import { addPublishers, publishDelays, replaceLoop, SerialWatcher } from './lib/publish-loop.js'
import { fsyncLatency } from './lib/machine.js'
import { type BenchContext, mib, ms, num, summary } from './lib/report.js'

const PUBLISHERS = 50
const OBJECT_BYTES = 1024

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
    const last = await addPublishers([d], pubs, OBJECT_BYTES)
    ctx.log(`setup: ${PUBLISHERS} identities (2 RSA keys each, generateKeyPairSync) ${ms(keysMs)}; publishers added and first objects published ${ms(performance.now() - t1)}`)
    await d.idle({ windowMs: 500, maxShare: 0.1 })

    const rss = new RssSampler(d.pid, 200)
    const watcher = new SerialWatcher(d.rrdpDir(), true)
    const clientCpu0 = process.cpuUsage()
    const cpu0 = d.cpuSeconds()
    const serial0 = currentSerial(d.rrdpDir())
    const start = performance.now()
    const { acked, latencies, errors, errorSamples } = await replaceLoop(pubs, () => d, last, start + seconds * 1000, OBJECT_BYTES)
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
    watcher.stop()
    const delay = summary(publishDelays(acked, watcher))
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
