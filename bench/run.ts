/**
 * The bench harness behind `make bench` (design.md §5 "Benchmarks"; house rule: speed and memory targets are
 * checked here, not by timed tests). Runs every benchmark in order, or the ones named on the command line:
 *
 *   node --expose-gc dist-bench/bench/run.js [crypto objects signed-message resources pubd publish-load roas cas routes cluster failover signers liveness bgp parents]
 *   BENCH_QUICK=1 …   smaller sizes, a few minutes (sizes: see SIZES below and each bench's header)
 *
 * Each benchmark prints its figures as it goes; the harness ends with a summary table (figure, target, ratio to the
 * target, the machine limit measured in the same run, PASS/MISS) and writes the whole report to bench/results/
 * (latest.md for a full run, latest-quick.md for BENCH_QUICK, subset.md for a subset; the directory is git-ignored).
 * The exit code is 1 only when a benchmark failed to run (an error), not for a missed target.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { run as runCrypto } from './crypto.bench.js'
import { runCasBench, runRoasBench } from './cas.bench.js'
import { runClusterBench } from './cluster.bench.js'
import { runFailoverBench } from './failover.bench.js'
import { ROOT } from './lib/daemon.js'
import { CORES } from './lib/machine.js'
import { atLeast, BenchContext, below, ms, num, summaryTable } from './lib/report.js'
import { run as runObjects } from './objects.bench.js'
import { runPublishLoadBench } from './publish-load.bench.js'
import { runPubdBench } from './pubd.bench.js'
import { runResourcesBench } from './resources.bench.js'
import { runRoutesBench } from './routes.bench.js'
import { run as runSignedMessage } from './signed-message.bench.js'
import { runSignersBench } from './signers.bench.js'
import { runLivenessBench } from './liveness.bench.js'
import { runBgpBench } from './bgp.bench.js'
import { runParentsBench } from './parents.bench.js'

const QUICK = /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? '')

/** What each mode runs (printed in the report). */
const SIZES = QUICK
  ? 'BENCH_QUICK: pubd 1,000 and 10,000 objects (BENCH_PUBD_SIZES to choose); publish-load 50 publishers × 15 s; roas 10 × 10 ROAs and 200 ROAs in one delta; cas 100 CAs × 5 ROAs, 500 GETs each; routes 20,000 ROAs in one CA; cluster 10 publishers × 8 s per storage, failover 5 rounds per lease; failover 3 rounds idle and 3 beside stress-ng; liveness 100 CAs; bgp 20,000 ROAs × 200,000 announcements; parents 20 parents, 20 and 200 children'
  : 'full: pubd 1,000, 100,000 and 1,000,000 objects; publish-load 50 publishers × 60 s; roas 10 × 10 ROAs and 1,000 ROAs in one delta; cas 1,000 CAs × 5 ROAs, 1,000 GETs each; routes 100,000 ROAs in one CA; cluster 20 publishers × 20 s per storage, failover 5 rounds per lease; failover 5 rounds idle and 5 beside stress-ng; liveness 1,000 CAs; bgp 100,000 ROAs × 1,000,000 announcements; parents 100 parents, 1,000 and 10,000 children'

interface Bench {
  name: string
  what: string
  run(ctx: BenchContext): Promise<void>
}

/** Run a bench that prints with console.log, show its lines as they come, and return them for parsing. */
async function captured(ctx: BenchContext, fn: () => Promise<void> | void): Promise<string[]> {
  const lines: string[] = []
  const log = console.log
  console.log = (...args: unknown[]) => {
    const line = args.map(String).join(' ')
    lines.push(line)
    ctx.log(line)
  }
  try {
    await fn()
  } finally {
    console.log = log
  }
  return lines
}

/** The first match of `re` in the captured lines, or a FAIL row naming what was not found. */
function find(ctx: BenchContext, lines: string[], re: RegExp, what: string): RegExpExecArray | undefined {
  for (const l of lines) {
    const m = re.exec(l)
    if (m) return m
  }
  ctx.failed(what, `no line matching ${re} in the bench output`)
  return undefined
}

const BENCHES: Bench[] = [
  {
    name: 'crypto',
    what: 'issue 3: RSA keygen raw vs KeyPool (same concurrency), signing, DER reader (bench/crypto.bench.ts)',
    async run(ctx) {
      const lines = await captured(ctx, runCrypto)
      const raw = find(ctx, lines, /generateKeyPair, concurrency (\d+) \(raw\)\s+([\d.]+) keys\/s/, 'raw keygen')
      const pool = find(ctx, lines, /KeyPool, concurrency (\d+)\s+([\d.]+) keys\/s/, 'KeyPool keygen')
      if (raw && pool) {
        const r = Number(raw[2]), p = Number(pool[2])
        ctx.row(`KeyPool throughput vs raw generateKeyPair (concurrency ${pool[1]})`, p / r, `${p.toFixed(1)} vs ${r.toFixed(1)} keys/s (${((p / r) * 100).toFixed(0)} %)`, atLeast(0.9, '≥ 90 % of raw'), { limit: `raw keygen ${r.toFixed(1)} keys/s` })
      }
      const take = find(ctx, lines, /await take\(\) from a warm pool.*?([\d.]+) \/ ([\d.]+) µs/, 'warm take')
      if (take) ctx.row('  take() from a warm pool, median / max', Number(take[1]), `${take[1]} / ${take[2]} µs`)
    },
  },
  {
    name: 'objects',
    what: 'issue 3: ROA build+sign with pooled keys, ROA decode, 5,000-entry manifest decode (bench/objects.bench.ts)',
    async run(ctx) {
      const lines = await captured(ctx, runObjects)
      const sign = find(ctx, lines, /RSA-2048 sign \(sync, the build ceiling\): (\d+)\/s/, 'sign rate')
      const build = find(ctx, lines, /roa build\+sign \(pooled key\): (\d+)\/s \((\d+)\/s per CPU-second\)/, 'ROA build')
      if (build) {
        const b = Number(build[1])
        const ceiling = sign ? Number(sign[1]) / 2 : NaN
        ctx.row('ROA build+sign with EE cert, pooled key (one core)', b, `${num(b)}/s (${num(Number(build[2]))}/s per CPU-s)`, atLeast(1000, '≥ 1,000/s'),
          { limit: sign ? `${((b / ceiling) * 100).toFixed(0)} % of 2-signature ceiling ${num(ceiling)}/s` : '' })
      }
      const decode = find(ctx, lines, /roa decode \(ours, (\d+) B\): (\d+)\/s/, 'ROA decode')
      if (decode) ctx.row(`ROA decode (${decode[1]} B)`, Number(decode[2]), `${num(Number(decode[2]))}/s`, atLeast(100_000, '≥ 100,000/s'))
      const krill = lines.map((l) => /roa decode \(Krill AS64512.roa, (\d+) B\): (\d+)\/s/.exec(l)).find((m) => m)
      if (krill) ctx.row(`  ROA decode, a real Krill ROA (${krill[1]} B)`, Number(krill[2]), `${num(Number(krill[2]))}/s`, atLeast(100_000, '≥ 100,000/s'))
      const mft = find(ctx, lines, /manifest decode, 5000 entries: first ([\d.]+) ms, median ([\d.]+) ms/, 'manifest decode')
      if (mft) ctx.row('manifest decode, 5,000 entries (median of 15)', Number(mft[2]), `${mft[2]} ms (first ${mft[1]} ms)`, below(50, '< 50 ms'))
    },
  },
  {
    name: 'signed-message',
    what: 'issue 4: RFC 6492/8181 CMS wrap and unwrap+verify (bench/signed-message.bench.ts)',
    async run(ctx) {
      const lines = await captured(ctx, runSignedMessage)
      const wrap = find(ctx, lines, /wrap, reused EE \(list query, 100 B XML\)\s+(\d+) msgs\/s/, 'CMS wrap')
      const unwrap = find(ctx, lines, /unwrap \+ verify our list query\s+(\d+) msgs\/s/, 'CMS unwrap')
      if (wrap) ctx.row('CMS wrap, reused EE key (list query)', Number(wrap[1]), `${num(Number(wrap[1]))} msgs/s`)
      if (unwrap) ctx.row('CMS unwrap + verify (list query)', Number(unwrap[1]), `${num(Number(unwrap[1]))} msgs/s`)
    },
  },
  {
    name: 'resources',
    what: 'issue 3: resource sets on RIR-sized inputs, ROA delta parsing (bench/resources.bench.ts)',
    async run(ctx) {
      const rows = runResourcesBench()
      for (const r of rows) ctx.log(`${r.name.padEnd(58)} ${r.ms.toFixed(2)} ms`)
      const delta = rows.find((r) => r.name.startsWith('parseRoaDelta'))
      if (delta) ctx.row(delta.name, delta.ms, ms(delta.ms))
    },
  },
  { name: 'pubd', what: 'issues 4 and 28: publish one object into 1,000 / 100,000 / 1,000,000 objects, in-process publication services (bench/pubd.bench.ts)', run: runPubdBench },
  { name: 'publish-load', what: 'issue 4: 50 publishers over HTTPS (RFC 8181, CMS) against svcd (bench/publish-load.bench.ts)', run: runPublishLoadBench },
  { name: 'roas', what: 'issue 5: roas update 10 ROAs (warm pool) and 1,000 ROAs vs keygen, svcd testbed (bench/cas.bench.ts)', run: runRoasBench },
  { name: 'cas', what: 'issue 5: 1,000 CAs × 5 ROAs, restart, RSS, GET latencies, svcd testbed (bench/cas.bench.ts)', run: runCasBench },
  { name: 'routes', what: 'issue 10: one CA with 100,000 ROAs: time to add, GET …/routes pages, worst /health latency meanwhile (bench/routes.bench.ts)', run: runRoutesBench },
  { name: 'cluster', what: 'issue 14: RFC 8181 load on SQLite vs PostgreSQL vs 3 instances on PostgreSQL, failover after kill -9 (bench/cluster.bench.ts)', run: runClusterBench },
  { name: 'failover', what: 'issue 23: kill -9 the leader of 3 instances (lease 5 s) under publishing, idle and beside stress-ng --cpu 2: time to a new leader (bench/failover.bench.ts)', run: runFailoverBench },
  { name: 'signers', what: 'issue 25: key generation, signing, warm one-off take and a 10-ROA change, software signer vs SoftHSM2 (bench/signers.bench.ts)', run: runSignersBench },
  { name: 'liveness', what: 'issue 26: one check of the relying-party view of 100 / 1,000 CAs (RRDP and rsync), its CPU, RSS and event-loop hold (bench/liveness.bench.ts)', run: runLivenessBench },
  { name: 'bgp', what: 'issue 28: BGP analysis and suggestion of 100,000 ROAs × 1,000,000 announcements in the analysis worker, worst /health wait (bench/bgp.bench.ts)', run: runBgpBench },
  { name: 'parents', what: 'issue 28 §4: sync with 100 parents, one dead, vs all live; a parent with 1,000 and 10,000 children: refresh CPU per child and its growth (bench/parents.bench.ts)', run: runParentsBench },
]

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim()
    return dirty ? `${head} (src/ has uncommitted changes)` : head
  } catch {
    return 'unknown'
  }
}

function cpuModel(): string {
  try {
    return /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? '?'
  } catch {
    return cpus()[0]?.model ?? '?'
  }
}

async function main(names: string[]): Promise<number> {
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n))
  if (unknown.length) {
    process.stderr.write(`unknown bench ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}\n`)
    return 2
  }
  const selected = names.length ? BENCHES.filter((b) => names.includes(b.name)) : BENCHES
  const ctx = new BenchContext(QUICK)
  const started = new Date()
  const head = [
    `# svc benchmarks${QUICK ? ' (BENCH_QUICK)' : ''}`,
    '',
    `- date: ${started.toISOString()}; commit ${gitCommit()}`,
    `- machine: ${CORES} cores (${cpuModel()}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; node ${process.version}`,
    `- ${SIZES}`,
    `- benches: ${selected.map((b) => b.name).join(', ')}`,
    `- load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (1, 5, 15 min; the machine may be shared: each bench shows the load it ran under)`,
  ]
  for (const l of head) ctx.log(l)
  const times: string[] = []
  const t0 = performance.now()
  for (const b of selected) {
    ctx.bench = b.name
    ctx.log('')
    ctx.log(`## ${b.name}: ${b.what}`)
    ctx.log('')
    ctx.log('```')
    const t = performance.now()
    const load0 = loadavg()[0]
    try {
      await b.run(ctx)
    } catch (e) {
      ctx.log(`ERROR: ${(e as Error).stack ?? String(e)}`)
      ctx.failed(`${b.name} did not finish`, (e as Error).message ?? String(e))
    }
    const took = performance.now() - t
    ctx.log(`(${b.name}: ${ms(took)}; 1-min load average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end, ${CORES} cores)`)
    ctx.log('```')
    times.push(`${b.name} ${ms(took)}`)
    ;(globalThis as { gc?: () => void }).gc?.()
  }
  const total = performance.now() - t0
  const table = summaryTable(ctx.rows)
  const tail = ['', '## Summary', '', table, '', `Run time: ${ms(total)} (${times.join(', ')}).`, '']
  process.stdout.write(tail.join('\n') + '\n')
  const dir = join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, names.length ? 'subset.md' : QUICK ? 'latest-quick.md' : 'latest.md')
  writeFileSync(file, [...ctx.lines, ...tail].join('\n') + '\n')
  process.stdout.write(`report written to ${file}\n`)
  return ctx.rows.some((r) => r.status === 'FAIL') ? 1 : 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`)
    process.exit(1)
  },
)
