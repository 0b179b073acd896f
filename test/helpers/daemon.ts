/**
 * Scenario-test harness: start the real svcd (dist/main.js) on a free loopback port with a temporary data dir,
 * drive it with the real svcc (dist/cli.js) as a child process, and stop both when the test ends. Every answer svcd
 * sends is recorded (test/helpers/response-recorder.mjs) and, when the test ends, checked against Krill's JSON
 * rules (test/helpers/krill-json.ts, issue 16): a violation fails the test that started the daemon.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { allProblems, readRecords, type RecordedResponse } from './krill-json.js'
import { assertBuilt, ROOT, SVCC, SVCD } from './paths.js'
import { waitFor } from './wait.js'

/** Loaded into every svcd the harness starts: records its answers for the Krill JSON check. */
const RECORDER = pathToFileURL(join(ROOT, 'test', 'helpers', 'response-recorder.mjs')).href

export interface TestLike {
  teardown(fn: () => unknown): void
}

/** A free TCP port on 127.0.0.1 (bind to 0, read, release). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })
}

/** A temporary directory removed at teardown. */
export function tempDir(t: TestLike, prefix = 'svc-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface Daemon {
  port: number
  url: string
  dataDir: string
  configFile: string
  token: string
  proc: ChildProcess
  /** Everything svcd wrote to stderr/stdout so far. */
  output(): string
  /** SIGTERM (graceful) and wait for exit; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** Environment for svcc pointing at this daemon. */
  env: Record<string, string>
  /** The answers svcd has sent so far (checked against Krill's JSON rules when the test ends). */
  responses(): RecordedResponse[]
}

export interface DaemonOptions {
  /** Extra TOML appended to the generated config (top-level keys first, then sections). */
  toml?: string
  /** Use this data dir instead of a fresh temporary one. */
  dataDir?: string
  port?: number
  token?: string
  env?: Record<string, string>
  /** Do not wait for /health (for start-up failure tests). */
  noWait?: boolean
  /** svcd's log level (default "debug"); timing-sensitive tests use "info". */
  logLevel?: string
}

/** The svcd processes of this test process still running: killed when it exits, however it exits. */
const live = new Set<ChildProcess>()
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL')
})

/**
 * A test daemon that runs no rsync daemon serves no rsync tree: its liveness check then reads RRDP only (`[liveness]
 * rsync = false`), so that rsync being unreachable is no finding in every test. svcd itself checks rsync by default
 * (in production an rsyncd of the operator's serves rsync_daemon = "off"). A test's own `[liveness]` section wins.
 */
function livenessDefaults(toml: string): string {
  if (/^\s*\[liveness\]/m.test(toml) || /^\s*rsync_daemon\s*=\s*"auto"/m.test(toml)) return ''
  return '[liveness]\nrsync = false'
}

/** The processes whose command line names a path under `dir`: svcd's rsyncd and its connections, its rsync clients. */
function processesUnder(dir: string): number[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').some((arg) => arg.includes(prefix))) found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/**
 * After svcd has exited: wait until the processes it ran on its data dir have gone too (rsyncd gets SIGTERM when svcd
 * dies and ends its connections; an rsync client is killed with it), so that the next svcd on the same data dir, or the
 * removal of the data dir at teardown, does not race with them. Whatever is left after 10 s is killed.
 */
async function helpersGone(dataDir: string): Promise<void> {
  try {
    await waitFor(`the processes of svcd on ${dataDir} to end`, () => processesUnder(dataDir).length === 0, 10_000, 20)
  } catch {
    for (const pid of processesUnder(dataDir)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
    await waitFor(`the processes of svcd on ${dataDir} to end after SIGKILL`, () => processesUnder(dataDir).length === 0, 5_000, 20)
  }
}

/** Start svcd and wait until /health answers. */
export async function startDaemon(t: TestLike, opts: DaemonOptions = {}): Promise<Daemon> {
  assertBuilt()
  const dir = opts.dataDir ?? join(tempDir(t), 'data')
  const dataDir = dir.endsWith('/') ? dir : dir + '/'
  const port = opts.port ?? (await freePort())
  const token = opts.token ?? 'test-token-' + Math.random().toString(36).slice(2).padEnd(8, '0')
  const configFile = join(tempDir(t), 'svcd.toml')
  writeFileSync(configFile, [`data_dir = "${dataDir}"`, `port = ${port}`, `admin_token = "${token}"`, `log_level = "${opts.logLevel ?? 'debug'}"`, opts.toml ?? '', livenessDefaults(opts.toml ?? '')].join('\n') + '\n')
  const record = recordResponses(t)
  const proc = spawn(process.execPath, [`--import=${RECORDER}`, SVCD, '-c', configFile], { env: { ...process.env, ...opts.env, SVC_TEST_RECORD_RESPONSES: record.file }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  const url = `https://localhost:${port}/`
  const daemon: Daemon = {
    port,
    url,
    dataDir,
    configFile,
    token,
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
      const code = await exited
      await helpersGone(dataDir)
      return code
    },
    env: { SVC_CLI_SERVER: url, SVC_CLI_TOKEN: token },
    responses: () => readRecords(record.file),
  }
  t.teardown(() => daemon.stop('SIGKILL'))
  // A test process that dies (an uncaught error in a file's top level skips its teardowns) takes its svcd with it:
  // an orphan would go on renewing and publishing, taking the CPU the next files need.
  live.add(proc)
  void exited.then(() => live.delete(proc))
  if (!opts.noWait) {
    try {
      await waitHealthy(daemon, exited)
    } catch (e) {
      await daemon.stop('SIGKILL')
      throw e
    }
  }
  return daemon
}

/**
 * A file for svcd's recorded answers; at teardown every answer is checked (krill-json.ts) and the file removed. A
 * problem fails the test: the teardown throws with the first problems listed.
 */
function recordResponses(t: TestLike): { file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-responses-'))
  const file = join(dir, 'responses.jsonl')
  t.teardown(() => {
    const records = readRecords(file)
    rmSync(dir, { recursive: true, force: true })
    const problems = allProblems(records)
    if (problems.length > 0) throw new Error(`svcd answered ${problems.length} time(s) not as Krill's JSON (issue 16):\n${problems.slice(0, 20).join('\n')}`)
  })
  return { file }
}

/**
 * How long svcd may take to answer /health after it was spawned: start-up generates keys (TLS, the TA and testbed
 * CAs: a few seconds on an idle machine, 20 s and more beside a second workload). Only a hang crosses it.
 */
export const HEALTHY_MS = 180_000

async function waitHealthy(d: Daemon, exited: Promise<number | null>): Promise<void> {
  let done = false
  void exited.then(() => (done = true))
  const end = Date.now() + HEALTHY_MS
  while (Date.now() < end) {
    if (done) throw new Error(`svcd exited during start-up:\n${d.output()}`)
    const status = await httpsGet(d.url + 'health').then((r) => r.status, () => 0)
    if (status === 200) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`svcd did not become healthy within ${HEALTHY_MS / 1000} s:\n${d.output()}`)
}

/**
 * A raw HTTPS request to a loopback daemon (self-signed certificate accepted), on a connection of its own: the global
 * agent keeps connections alive, and a request sent on one just as svcd closes it as idle fails with ECONNRESET.
 */
export function httpsRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; binary?: boolean } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    let answered = false
    const req = https.request(url, { method: opts.method ?? 'GET', headers: opts.headers, rejectUnauthorized: false, agent: false }, (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw })
      })
    })
    // svcd answers an oversized upload (413) and closes the connection while the rest is still being sent: once the
    // answer is here, the upload's EPIPE/ECONNRESET does not matter; the answer stream ends or fails on its own.
    req.on('error', (e) => {
      if (!answered) reject(e)
    })
    req.end(opts.body)
  })
}

export function httpsGet(url: string, headers?: Record<string, string>) {
  return httpsRequest(url, { headers })
}

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Run svcc as a child process with only the given SVC_CLI_* environment (nothing inherited from the shell). */
export function svcc(args: string[], opts: { env?: Record<string, string>; stdin?: string; cwd?: string } = {}): Promise<RunResult> {
  assertBuilt()
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TZ: process.env.TZ ?? 'UTC', ...opts.env }
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [SVCC, ...args], { env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => resolve({ code, stdout, stderr }))
    p.stdin.end(opts.stdin ?? '')
  })
}

/** Run svcd directly (for --help, --version and start-up failures); resolves when it exits or after timeoutMs. */
export function svcdOnce(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  assertBuilt()
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [SVCD, ...args], { env: { PATH: process.env.PATH ?? '', ...opts.env }, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 20_000)
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    p.on('error', reject)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
