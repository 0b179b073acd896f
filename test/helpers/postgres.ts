/**
 * A PostgreSQL cluster of the test's own (issue 14 item 8): initdb and pg_ctl from Debian's postgresql package in a
 * temporary directory, as an unprivileged user (nobody when the tests run as root), listening on a free loopback
 * port and on a socket in that directory only; stopped and removed at teardown. Never a system-wide server.
 */
import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

interface TestLike {
  teardown(fn: () => void | Promise<void>): void
}

export interface PgCluster {
  port: number
  /** A new empty database; its storage URI (postgresql://svc@127.0.0.1:port/name). */
  createDatabase(name: string): string
  /** Run SQL in a database as the superuser (psql), returning its output. */
  psql(db: string, sql: string): string
  stop(): void
  /** Start it again after stop() (same port and data). */
  start(): void
}

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions.length ? join(root, versions[0]!, 'bin') : undefined
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

function nobodyIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim())
  return { uid: id('-u'), gid: id('-g') }
}

/**
 * `durable`: keep PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes on), for benchmarks that compare
 * it with SQLite; tests run without them (faster, and a test never needs the data after a machine crash).
 */
export async function startPostgres(t: TestLike, opts: { durable?: boolean } = {}): Promise<PgCluster> {
  const bin = postgresBin()
  if (!bin) throw new Error('PostgreSQL is not installed (make system-deps installs Debian\'s postgresql)')
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'))
  const root = process.getuid?.() === 0
  if (root) {
    const { uid, gid } = nobodyIds()
    chownSync(dir, uid, gid)
  }
  const argv = (cmd: string, args: string[]): [string, string[]] => (root ? ['runuser', ['-u', 'nobody', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args])
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(...argv(cmd, args), { encoding: 'utf8', cwd: dir, timeout: 60_000 })
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`)
    return r.stdout
  }
  const data = join(dir, 'data')
  const port = await freePort()
  let running = false
  t.teardown(() => {
    if (running) spawnSync(...argv('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']), { timeout: 30_000 })
    rmSync(dir, { recursive: true, force: true })
  })
  run('initdb', ['-D', data, '-U', 'svc', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '-N'])
  const serverOpts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}${opts.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'}`
  const start = () => {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', serverOpts, '-w', '-t', '60', 'start'])
    running = true
  }
  start()
  const psql = (db: string, sql: string) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'svc', '-d', db, '-v', 'ON_ERROR_STOP=1', '-Atc', sql])
  return {
    port,
    createDatabase(name) {
      psql('postgres', `CREATE DATABASE "${name}"`)
      return `postgresql://svc@127.0.0.1:${port}/${name}`
    },
    psql,
    stop() {
      if (!running) return
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
      running = false
    },
    start,
  }
}
