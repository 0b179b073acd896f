/**
 * The relying-party view's rsync client (issue 26 §1): Debian's rsync, spawned with an argument array (never a shell),
 * copies an rsync URI's tree into a mirror directory per source (`-rt --delete`, so the next fetch transfers only the
 * changes), bounded in time (--timeout, --contimeout and a deadline on the injected Clock) and in size (--max-size,
 * and the total counted while reading the files back). The files are mapped back to rsync URIs. Never throws: a
 * failure is a FetchedRepository with a one-line `error`. Constructed by the composition root (compose-liveness.ts).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, type Stats, lstatSync } from 'node:fs'
import { basename, join } from 'node:path'
import { sha256Hex } from '../../crypto/digest.js'
import type { FetchedRepository } from '../../liveness/model.js'
import type { Logger } from '../../log.js'
import type { Clock } from '../../util/clock.js'
import { diesWithSvcd } from '../shared/child-process.js'

export interface RsyncFetcherOptions {
  /** The rsync client to run ([liveness] rsync_command). */
  rsyncCommand: string
  /** Where the mirrors live: one directory per source below it. */
  mirrorDir: string
  /** The deadline of one fetch; rsync's own --timeout and --contimeout are set from it too. */
  timeoutMs: number
  /** The largest file, and the largest tree, in bytes. */
  maxBytes: number
  clock: Clock
  log?: Logger
}

class FetchError extends Error {}

export class RsyncFetcher {
  constructor(private readonly o: RsyncFetcherOptions) {}

  /** Fetch everything below the rsync directory URI `source` (rsync://host[:port]/module/[path/]). */
  async fetch(source: string): Promise<FetchedRepository> {
    const base = source.endsWith('/') ? source : `${source}/`
    try {
      checkSource(base)
      const dir = this.mirrorOf(base)
      mkdirSync(dir, { recursive: true })
      await this.run(base, dir)
      return { transport: 'rsync', source, at: this.o.clock.now(), files: this.read(dir, base) }
    } catch (e) {
      const error = e instanceof Error ? e.message.split('\n')[0] : String(e)
      this.o.log?.debug('liveness: rsync fetch failed', { source, error })
      return { transport: 'rsync', source, at: this.o.clock.now(), error, files: new Map() }
    }
  }

  /** Remove the mirror directories of sources not in `sources` (their next fetch, if any, transfers everything). */
  retain(sources: ReadonlySet<string>): void {
    const keep = new Set([...sources].map((s) => basename(this.mirrorOf(s.endsWith('/') ? s : `${s}/`))))
    let names: string[]
    try {
      names = readdirSync(this.o.mirrorDir)
    } catch {
      return // no mirror yet
    }
    for (const name of names) if (!keep.has(name)) rmSync(join(this.o.mirrorDir, name), { recursive: true, force: true })
  }

  private mirrorOf(base: string): string {
    return join(this.o.mirrorDir, sha256Hex(new TextEncoder().encode(base)).slice(0, 24))
  }

  private run(base: string, dir: string): Promise<void> {
    const seconds = Math.max(1, Math.ceil(this.o.timeoutMs / 1000))
    const args = ['-rt', '--delete', '--no-motd', `--timeout=${seconds}`, `--contimeout=${seconds}`, `--max-size=${this.o.maxBytes}`, base, `${dir}/`]
    return new Promise((resolve, reject) => {
      let stderr = ''
      let settled = false
      // Killed with svcd (kill -9 included), so that no rsync client goes on writing into the data directory.
      const child = spawn(...diesWithSvcd(this.o.rsyncCommand, args, 'KILL'), { stdio: ['ignore', 'ignore', 'pipe'] })
      const deadline = this.o.clock.setTimeout(() => {
        child.kill('SIGKILL')
        settle(new FetchError(`rsync did not finish within ${seconds} s`))
      }, this.o.timeoutMs + 2_000, { background: true })
      const settle = (e?: Error) => {
        if (settled) return
        settled = true
        this.o.clock.clear(deadline)
        if (e) reject(e)
        else resolve()
      }
      child.stderr.on('data', (c: Buffer) => {
        if (stderr.length < 4096) stderr += c.toString('utf8')
      })
      child.on('error', (e) => settle(new FetchError(`cannot run ${this.o.rsyncCommand}: ${e.message}`)))
      child.on('close', (code, signal) => {
        if (code === 0) return settle()
        const last = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '')
        const why = last.find((l) => /^(@ERROR|rsync: )/.test(l)) ?? last[0] ?? (signal ? `killed by ${signal}` : 'no message')
        settle(new FetchError(`rsync exit ${code ?? signal}: ${why}`))
      })
    })
  }

  /** The regular files below `dir` as rsync URIs under `base`; the total is bounded by maxBytes. */
  private read(dir: string, base: string): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>()
    let total = 0
    const walk = (abs: string, rel: string) => {
      for (const name of readdirSync(abs).sort()) {
        const p = join(abs, name)
        const st: Stats = lstatSync(p)
        if (st.isDirectory()) walk(p, `${rel}${name}/`)
        else if (st.isFile()) {
          total += st.size
          if (total > this.o.maxBytes) throw new FetchError(`the tree holds more than ${this.o.maxBytes} bytes`)
          out.set(`${base}${rel}${name}`, new Uint8Array(readFileSync(p)))
        }
      }
    }
    walk(dir, '')
    return out
  }
}

/** Only rsync:// sources with a host and a non-empty module, no dot or empty segments, no options in disguise. */
function checkSource(base: string): void {
  const m = /^rsync:\/\/([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?\/([^/]+)\/(.*)$/.exec(base)
  if (!m) throw new FetchError(`not an rsync URI of a directory inside a module: ${base.slice(0, 100)}`)
  const path = m[4]
  if (!/^[\x21-\x7e]*$/.test(base) || /[\\*?[\]]/.test(base)) throw new FetchError(`the rsync URI has characters that are not allowed: ${base.slice(0, 100)}`)
  if (m[3].startsWith('.') || path.split('/').slice(0, -1).some((s) => s === '' || s === '.' || s === '..')) throw new FetchError(`the rsync URI leaves its module or has empty segments: ${base.slice(0, 100)}`)
}
