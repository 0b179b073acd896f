/**
 * A real svcd (dist/main.js) for the daemon benchmarks: own temporary data dir and free loopback ports, log level
 * "info" (the test helper's startDaemon forces "debug", which would make svcd's logging part of what is measured),
 * a keep-alive HTTPS client for the API, the process's RSS and CPU from /proc, and the RRDP notification on disk.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { decodeDelta, decodeNotification, type Notification } from '../../src/protocol/rrdp.js'
import { freePort, httpsRequest } from '../../test/helpers/daemon.js'

/** The project root (this file is bench/lib/daemon.ts, compiled to dist-bench/bench/lib/daemon.js). */
export const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)))
export const SVCD = join(ROOT, 'dist', 'main.js')

export interface BenchDaemonOptions {
  /** Embedded repository (default true). */
  repository?: boolean
  /** Embedded trust anchor and testbed CA (default true). */
  testbed?: boolean
  /** svcd's log level (default "info"). */
  logLevel?: string
  /** Extra TOML: top-level keys. */
  top?: string
  /** Extra TOML: sections (appended last). */
  sections?: string
  /** Run the rsync daemon for the embedded repository (default off: then the liveness check fetches over RRDP only). */
  rsyncDaemon?: boolean
  /** The HTTPS port (default: a free one). */
  port?: number
  /**
   * Several instances on one database share one configuration apart from port and data dir: service_uri and
   * rrdp_base_uri name `port`, rsync_base_uri `rsyncPort` (default: this instance's own port and a free rsync port).
   */
  shared?: { port: number; rsyncPort: number }
  /**
   * Node options for svcd; BENCH_CPU_PROF=<dir> adds --cpu-prof into that directory (profile written at exit), and
   * BENCH_NODE_ARGS adds more (e.g. "--trace-gc", with BENCH_SVCD_OUT=<file> to keep svcd's output there), and
   * BENCH_PERF_MAP=1 adds --perf-basic-prof and --interpreted-frames-native-stack so `perf record -e cpu-clock` (on-CPU samples only) names JS functions.
   */
  nodeArgs?: string[]
}

export interface ApiResult {
  status: number
  text: string
}

const KEEP_OUTPUT = 256 * 1024

export class BenchDaemon {
  proc: ChildProcess | undefined
  private out = ''
  /** API requests made so far (each retry of a reset keep-alive socket not counted again). */
  requests = 0
  private exited: Promise<number | null> = Promise.resolve(null)
  readonly agent = new https.Agent({ keepAlive: true, maxSockets: 32, rejectUnauthorized: false })

  private constructor(
    readonly dir: string,
    readonly dataDir: string,
    readonly configFile: string,
    readonly port: number,
    readonly token: string,
    private readonly nodeArgs: string[],
  ) {}

  static async start(opts: BenchDaemonOptions = {}): Promise<BenchDaemon> {
    if (!existsSync(SVCD)) throw new Error(`${SVCD} is missing: run make build (make bench does it)`)
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
    const dataDir = join(dir, 'data') + '/'
    const port = opts.port ?? (await freePort())
    const rsync = opts.shared?.rsyncPort ?? (await freePort())
    const uriPort = opts.shared?.port ?? port
    const token = 'bench-' + Math.random().toString(36).slice(2).padEnd(12, '0')
    const toml = [`data_dir = "${dataDir}"`, `port = ${port}`, `admin_token = "${token}"`, `log_level = "${opts.logLevel ?? 'info'}"`, opts.top ?? '']
    if (opts.shared) toml.push(`service_uri = "https://localhost:${uriPort}/"`)
    if (opts.repository !== false) {
      toml.push('[repository]', 'enabled = true', `rrdp_base_uri = "https://localhost:${uriPort}/rrdp/"`, `rsync_base_uri = "rsync://localhost:${rsync}/repo/"`, `rsync_daemon = "${opts.rsyncDaemon ? 'auto' : 'off'}"`)
      if (opts.testbed !== false) toml.push('[testbed]', 'enabled = true')
    }
    // Nothing serves rsync without the daemon: the relying-party view reads RRDP only (as test/helpers/daemon.ts does).
    if (!opts.rsyncDaemon && !(opts.sections ?? '').includes('[liveness]')) toml.push('[liveness]', 'rsync = false')
    toml.push(opts.sections ?? '')
    const configFile = join(dir, 'svcd.toml')
    writeFileSync(configFile, toml.join('\n') + '\n')
    const nodeArgs = [...(opts.nodeArgs ?? []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : []), ...(process.env.BENCH_PERF_MAP ? ['--perf-basic-prof', '--interpreted-frames-native-stack'] : []), ...(process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])]
    const d = new BenchDaemon(dir, dataDir, configFile, port, token, nodeArgs)
    try {
      await d.spawn()
    } catch (e) {
      await d.stop('SIGKILL') // not healthy in time: it may still run
      d.agent.destroy()
      rmSync(dir, { recursive: true, force: true })
      throw e
    }
    return d
  }

  get url(): string {
    return `https://localhost:${this.port}/`
  }

  get pid(): number {
    return this.proc!.pid!
  }

  output(): string {
    return this.out
  }

  /** Start the process (again) on the same data dir and wait until /health answers. */
  async spawn(): Promise<void> {
    const proc = spawn(process.execPath, [...this.nodeArgs, SVCD, '-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] })
    this.proc = proc
    const copy = process.env.BENCH_SVCD_OUT
    const keep = (d: Buffer) => {
      if (copy) appendFileSync(copy, d)
      this.out += d.toString()
      if (this.out.length > KEEP_OUTPUT * 2) this.out = this.out.slice(-KEEP_OUTPUT)
    }
    proc.stdout!.on('data', keep)
    proc.stderr!.on('data', keep)
    this.exited = new Promise((r) => proc.once('exit', (code) => r(code)))
    let gone = false
    void this.exited.then(() => (gone = true))
    for (let i = 0; i < 600; i++) {
      if (gone) throw new Error(`svcd exited during start-up:\n${this.out.slice(-4000)}`)
      const status = await httpsRequest(this.url + 'health').then((r) => r.status, () => 0)
      if (status === 200) return
      await sleep(i < 100 ? 10 : 100)
    }
    throw new Error(`svcd did not become healthy:\n${this.out.slice(-4000)}`)
  }

  /** Stop the process (SIGTERM by default) and wait until it has exited. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const p = this.proc
    if (p && p.exitCode === null && p.signalCode === null) p.kill(signal)
    return this.exited
  }

  /** Stop (SIGKILL if it does not stop within 60 s) and remove the data dir (kept with BENCH_KEEP=1). */
  async dispose(): Promise<void> {
    this.agent.destroy()
    const timer = setTimeout(() => this.proc?.kill('SIGKILL'), 60_000)
    await this.stop()
    clearTimeout(timer)
    if (process.env.BENCH_KEEP) process.stdout.write(`BENCH_KEEP: svcd data dir and config kept in ${this.dir}\n`)
    else rmSync(this.dir, { recursive: true, force: true })
  }

  /** One API call over the keep-alive agent; throws on HTTP ≥ 400. */
  async api<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const r = await this.request(method, path, body)
    if (r.status >= 400) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.text.slice(0, 500)}`)
    return (r.text ? JSON.parse(r.text) : undefined) as T
  }

  /**
   * The raw exchange (status and text), over the keep-alive agent. A request on a reused connection that the server
   * closed as idle at the same moment (ECONNRESET before any answer) is sent once more on a new connection.
   */
  async request(method: string, path: string, body?: unknown): Promise<ApiResult> {
    this.requests++
    try {
      return await this.once(method, path, body)
    } catch (e) {
      if ((e as { reusedSocket?: boolean }).reusedSocket && (e as NodeJS.ErrnoException).code === 'ECONNRESET') return this.once(method, path, body)
      throw e
    }
  }

  private once(method: string, path: string, body?: unknown): Promise<ApiResult> {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}` }
    if (data !== undefined) headers['Content-Type'] = typeof body === 'string' ? 'application/xml' : 'application/json'
    return new Promise((resolvePromise, reject) => {
      const req = https.request(this.url + path.replace(/^\//, ''), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      })
      req.on('error', (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })))
      req.end(data)
    })
  }

  /** VmRSS and VmHWM (peak) of the daemon process, in bytes. */
  memory(): { rss: number; peak: number } {
    return procMemory(this.pid)
  }

  /** CPU seconds (user + system, all threads incl. the key generation threadpool) used by the daemon so far. */
  cpuSeconds(): number {
    return procCpuSeconds(this.pid)
  }

  /** CPU seconds of svcd's main thread: its work besides key generation (mainThreadCpuSeconds). */
  mainCpuSeconds(): number {
    return mainThreadCpuSeconds(this.pid)
  }

  /** Wait until the daemon uses less than `maxShare` of one core over `windowMs` (key pool full, writers idle). */
  async idle(opts: { windowMs?: number; maxShare?: number; timeoutMs?: number } = {}): Promise<number> {
    const windowMs = opts.windowMs ?? 1000
    const t0 = performance.now()
    while (performance.now() - t0 < (opts.timeoutMs ?? 300_000)) {
      const c0 = this.cpuSeconds()
      await sleep(windowMs)
      if ((this.cpuSeconds() - c0) / (windowMs / 1000) < (opts.maxShare ?? 0.05)) return performance.now() - t0
    }
    throw new Error('svcd did not become idle')
  }

  rrdpDir(): string {
    return join(this.dataDir, 'repo', 'rrdp')
  }
}

export function procMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

const TICKS = 100 // USER_HZ on Linux

/**
 * CPU seconds of a process's main thread (thread id = pid): in svcd all JavaScript, SQLite and signing run there, while
 * RSA key generation runs on libuv's worker threads (with async file I/O) and V8 collects garbage partly on its own.
 */
export function mainThreadCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS // utime, stime (fields 14 and 15 of stat)
}

/** Samples a process's RSS every `everyMs` until stopped: peak and last. */
export class RssSampler {
  peak = 0
  last = 0
  private timer: NodeJS.Timeout

  constructor(pid: number, everyMs = 200) {
    const sample = () => {
      try {
        this.last = procMemory(pid).rss
        this.peak = Math.max(this.peak, this.last)
      } catch {
        /* the process is gone */
      }
    }
    sample()
    this.timer = setInterval(sample, everyMs)
  }

  stop(): { peak: number; last: number } {
    clearInterval(this.timer)
    return { peak: this.peak, last: this.last }
  }
}

//------------ RRDP on disk ---------------------------------------------------------------------------------------

export interface NotificationOnDisk {
  notification: Notification
  /** Path under <rrdp dir> of a URI of the notification. */
  path(uri: string): string
}

/** The current notification.xml under `rrdpDir` (undefined while there is none). */
export function notificationOnDisk(rrdpDir: string): NotificationOnDisk | undefined {
  let xml: Buffer
  try {
    xml = readFileSync(join(rrdpDir, 'notification.xml'))
  } catch {
    return undefined
  }
  const notification = decodeNotification(xml)
  const base = notification.snapshot.uri.slice(0, notification.snapshot.uri.indexOf('/rrdp/') + '/rrdp/'.length)
  return { notification, path: (uri) => join(rrdpDir, uri.slice(base.length)) }
}

export interface DeltaSeen {
  serial: number
  /** performance.now() when the poll first saw the notification with this serial. */
  at: number
  /** `replace`: a publish with the hash of the object it replaces. */
  elements: { type: 'publish' | 'withdraw'; uri: string; replace: boolean }[]
}

/**
 * Polls notification.xml every `everyMs` and reads the delta of every new serial after `fromSerial` (in the same
 * session). `until` sees all deltas so far; resolves with the time the notification that satisfied it was seen.
 */
export async function watchNotification(rrdpDir: string, fromSerial: number, until: (deltas: DeltaSeen[]) => boolean, opts: { everyMs?: number; timeoutMs?: number } = {}): Promise<{ at: number; serial: number; deltas: DeltaSeen[] }> {
  const deltas: DeltaSeen[] = []
  let last = fromSerial
  const t0 = performance.now()
  for (;;) {
    const n = notificationOnDisk(rrdpDir)
    const at = performance.now()
    const serial = n ? Number(n.notification.serial) : 0
    if (n && serial > last) {
      for (let s = last + 1; s <= serial; s++) {
        const d = n.notification.deltas.find((x) => x.serial === s)
        if (!d) throw new Error(`delta ${s} is not in the notification (serial ${serial}, ${n.notification.deltas.length} deltas)`)
        const decoded = decodeDelta(readFileSync(n.path(d.uri)))
        deltas.push({ serial: s, at, elements: decoded.elements.map((e) => ({ type: e.type, uri: e.uri, replace: e.hash !== undefined })) })
      }
      last = serial
      if (until(deltas)) return { at, serial: last, deltas }
    }
    if (performance.now() - t0 > (opts.timeoutMs ?? 600_000)) throw new Error(`no notification satisfying the condition after serial ${fromSerial} (now ${last})`)
    await sleep(opts.everyMs ?? 2)
  }
}

export function currentSerial(rrdpDir: string): number {
  return Number(notificationOnDisk(rrdpDir)?.notification.serial ?? 0)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/**
 * Counts what every RRDP delta publishes, by kind ('new', 'replace', 'withdraw') and file extension, polling the
 * notification on disk; deltas already dropped by retention when the poll comes are counted as missed.
 */
export class DeltaCounter {
  readonly counts = new Map<string, number>()
  /** The directories that deltas published files in. */
  private readonly dirs = new Set<string>()
  missed = 0
  serials = 0
  private last: number
  private readonly timer: NodeJS.Timeout

  constructor(private readonly rrdpDir: string, everyMs = 100) {
    this.last = currentSerial(rrdpDir)
    this.timer = setInterval(() => this.poll(), everyMs)
  }

  /** True once a delta published something under `prefix` (a CA's jail: it holds a certificate). */
  publishedUnder(prefix: string): boolean {
    for (const d of this.dirs) if (d.startsWith(prefix)) return true
    return false
  }

  /** How many elements of this kind and extension ('.roa', '.mft', '.crl', '.cer'). */
  count(kind: 'new' | 'replace' | 'withdraw', ext: string): number {
    return this.counts.get(`${kind}:${ext}`) ?? 0
  }

  stop(): void {
    clearInterval(this.timer)
    this.poll()
  }

  private poll(): void {
    let n: NotificationOnDisk | undefined
    try {
      n = notificationOnDisk(this.rrdpDir)
    } catch {
      return // being replaced: next time
    }
    if (!n) return
    const serial = Number(n.notification.serial)
    for (let s = this.last + 1; s <= serial; s++) {
      this.serials++
      const d = n.notification.deltas.find((x) => x.serial === s)
      let elements: ReturnType<typeof decodeDelta>['elements'] | undefined
      try {
        elements = d && decodeDelta(readFileSync(n.path(d.uri))).elements
      } catch {
        elements = undefined
      }
      if (!elements) {
        this.missed++
        continue
      }
      for (const e of elements) {
        const kind = e.type === 'withdraw' ? 'withdraw' : e.hash !== undefined ? 'replace' : 'new'
        const ext = e.uri.slice(e.uri.lastIndexOf('.'))
        const key = `${kind}:${ext}`
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
        if (kind !== 'withdraw') this.dirs.add(e.uri.slice(0, e.uri.lastIndexOf('/') + 1))
      }
    }
    this.last = Math.max(this.last, serial)
  }
}
