/**
 * Runs Debian's `rsync --daemon --no-detach` as a child of svcd for `rsync_daemon = "auto"`: the config comes from
 * repository/rsyncd.conf.template with the port and module of rsync_base_uri; the daemon is restarted (with back-off)
 * if it dies and stopped on shutdown. When rsync is missing, a clear warning is logged and RRDP keeps working. Waits
 * and restart back-off run on the injected Clock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../../log.js'
import type { Clock, TimerHandle } from '../../util/clock.js'
import { diesWithSvcd } from '../shared/child-process.js'
import { rsyncModule, rsyncUri } from '../../util/uri.js'

export interface RsyncDaemonOptions {
  rsyncBaseUri: string
  /** Where to put rsyncd.conf, its pid and log files. */
  workDir: string
  /** Address to bind; loopback unless configured otherwise. */
  address: string
  log: Logger
  clock: Clock
}

const TEMPLATE = new URL('../../../repository/rsyncd.conf.template', import.meta.url)

export class RsyncDaemon {
  private child: ChildProcess | undefined
  private stopping = false
  private restarts = 0
  private timer: TimerHandle | undefined
  /** Until an rsyncd left behind by an earlier svcd has gone (start waits for it before spawning). */
  private stale: Promise<void> = Promise.resolve()

  /** The directory served: the current tree's real path (given to start, updated with setPath). */
  private path = ''

  constructor(private readonly o: RsyncDaemonOptions) {}

  /** Serve another tree from the next connection on (rsyncd re-reads its config per connection). */
  setPath(path: string): void {
    this.path = path
    if (this.child) this.writeConfig()
  }

  /** Start rsyncd serving `modulePath`; false (with a warning) when rsync is not installed. */
  start(modulePath: string): boolean {
    this.path = modulePath
    if (spawnSync('rsync', ['--version'], { stdio: 'ignore' }).error) {
      this.o.log.warn('rsync is not installed: the repository is served over RRDP only (install the Debian package rsync)')
      return false
    }
    this.writeConfig()
    this.stale = this.stopStale().then(() => {
      if (!this.stopping) this.spawn()
    })
    return true
  }

  /** An rsyncd left by a svcd that was killed still holds the port: stop it (it serves our own config), and wait up to 3 s for it to go. */
  private async stopStale(): Promise<void> {
    const pidFile = join(this.o.workDir, 'rsyncd.pid')
    if (!existsSync(pidFile)) return
    const pid = Number(readFileSync(pidFile, 'utf8').trim())
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (!cmd.includes('rsync') || !cmd.includes(join(this.o.workDir, 'rsyncd.conf'))) return
      process.kill(pid, 'SIGTERM')
      this.o.log.warn('stopped an rsync daemon left behind by an earlier svcd', { rsyncd_pid: pid })
    } catch {
      return // not running (or not ours): nothing to do
    }
    const end = this.o.clock.now() + 3000
    while (this.o.clock.now() < end && existsSync(`/proc/${pid}`)) await this.o.clock.sleep(50)
  }

  async stop(): Promise<void> {
    this.stopping = true
    this.o.clock.clear(this.timer)
    await this.stale
    const child = this.child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    await new Promise<void>((resolve) => {
      const kill = this.o.clock.setTimeout(() => child.kill('SIGKILL'), 3000)
      child.once('exit', () => {
        this.o.clock.clear(kill)
        resolve()
      })
      child.kill('SIGTERM')
    })
  }

  private writeConfig(): string {
    const { module } = rsyncModule(rsyncUri(this.o.rsyncBaseUri))
    const values: Record<string, string> = {
      pid_file: join(this.o.workDir, 'rsyncd.pid'),
      log_file: join(this.o.workDir, 'rsyncd.log'),
      max_connections: '50',
      uid: String(process.getuid?.() ?? 'nobody'),
      gid: String(process.getgid?.() ?? 'nogroup'),
      module,
      path: this.path,
    }
    const text = readFileSync(TEMPLATE, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k])
    const file = join(this.o.workDir, 'rsyncd.conf')
    writeFileSync(`${file}.tmp`, text)
    renameSync(`${file}.tmp`, file)
    return file
  }

  private spawn(): void {
    const { port } = rsyncModule(rsyncUri(this.o.rsyncBaseUri))
    const args = ['--daemon', '--no-detach', `--config=${join(this.o.workDir, 'rsyncd.conf')}`, `--port=${port ?? 873}`, `--address=${this.o.address}`]
    // rsyncd gets SIGTERM when svcd dies, even by kill -9, instead of holding the port (child-process.ts).
    const [cmd, argv] = diesWithSvcd('rsync', args)
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] })
    const started = this.o.clock.now()
    this.child = child
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)))
    child.once('spawn', () => this.o.log.info('rsync daemon started', { rsyncd_pid: child.pid, port: port ?? 873, uri: this.o.rsyncBaseUri }))
    child.once('exit', (code, signal) => {
      if (this.stopping) return this.o.log.info('rsync daemon stopped')
      if (this.o.clock.now() - started > 60_000) this.restarts = 0
      const delay = Math.min(30_000, 500 * 2 ** Math.min(this.restarts++, 6))
      this.o.log.error('rsync daemon exited; restarting', { code, signal, stderr: stderr.trim(), retry_ms: delay })
      this.timer = this.o.clock.setTimeout(() => this.spawn(), delay)
    })
    child.once('error', (e) => this.o.log.error('cannot run rsync daemon', { err: e.message }))
  }
}
