/**
 * The files of the RRDP directory (<dir>/<session>/<serial>/<random>/<file>) on disk: their removal once no
 * notification references them (retention.ts chooses; krill-reference.md §3, design.md "Publication server"), and
 * what an earlier process served (the restore detection of model.ts reads it). The directory is walked once, at the
 * first cleanup after a start; from then on the writer reports every file it writes, so a cleanup works from memory
 * and touches the disk only for what it removes. Walking every serial's directory at each cycle cost a readdir and
 * a stat per file kept within the retention, at every serial: the largest share of the writer's time for a
 * repository that changes every second.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { Clock } from '../../util/clock.js'
import { notificationHead, slashes } from './model.js'
import { filesToRemove, type FileRetention, type KnownFile } from './retention.js'

const gunzipAsync = promisify(gunzip)

export class RrdpFiles {
  /** Times are the clock's milliseconds (those of files found by the walk are their mtimes). */
  private readonly files = new Map<string, KnownFile>()
  private walked = false
  /** The write time of the notification the walk found: files it no longer referenced stopped being referenced by then. */
  private notifiedMs = 0

  constructor(
    private readonly dir: string,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** A file the writer has just written (relative path with '/'). */
  written(rel: string, size: number): void {
    this.files.set(slashes(rel), { mtimeMs: this.clock.now(), size })
  }

  /** Everything under the directory `rel` is gone (a failed cycle removed what it wrote). */
  removedDir(rel: string): void {
    const prefix = slashes(rel).replace(/\/?$/, '/')
    for (const path of this.files.keys()) if (path.startsWith(prefix)) this.files.delete(path)
  }

  /**
   * Remove what retention.ts chooses: unreferenced files past the grace period, superseded snapshots beyond the budget.
   * A download in progress is not cut short: an open file outlives its name. Directories left empty go too, and so
   * do old sessions.
   */
  async cleanup(o: FileRetention): Promise<void> {
    const first = !this.walked
    if (first) await this.walk()
    const now = this.clock.now()
    // The grace period runs from when a file stopped being referenced: now, for what this process superseded; for what
    // was unreferenced already when the walk found it, not before its own write time nor the notification found beside it.
    for (const [path, f] of this.files) {
      if (o.referenced.has(path)) delete f.unreferencedSinceMs
      else f.unreferencedSinceMs ??= first ? Math.max(f.mtimeMs, this.notifiedMs) : now
    }
    const emptied = new Set<string>()
    for (const path of filesToRemove(this.files, o, this.clock.now())) await this.remove(path, emptied)
    for (const dir of emptied) {
      const [session, serial, random] = dir.split('/')
      await rmdirIfEmpty(join(this.dir, session, serial, random))
      await rmdirIfEmpty(join(this.dir, session, serial))
      await rmdirIfEmpty(join(this.dir, session))
    }
  }

  private async remove(path: string, emptied: Set<string>): Promise<void> {
    await rm(join(this.dir, path), { recursive: true, force: true })
    this.files.delete(path)
    emptied.add(path.slice(0, path.lastIndexOf('/')))
  }

  /** Learn what is on disk (after a start): every file below a session, serial and random directory. */
  private async walk(): Promise<void> {
    const list = (p: string) => readdir(p).catch(() => [] as string[])
    this.notifiedMs = (await stat(join(this.dir, 'notification.xml')).catch(() => undefined))?.mtimeMs ?? 0
    for (const session of await list(this.dir)) {
      if (session.startsWith('notification.xml') || session.endsWith('.tmp')) continue
      for (const serial of await list(join(this.dir, session))) {
        for (const random of await list(join(this.dir, session, serial))) {
          const files = await list(join(this.dir, session, serial, random))
          for (const file of files) {
            const rel = `${session}/${serial}/${random}/${file}`
            if (this.files.has(rel)) continue
            const st = await stat(join(this.dir, rel)).catch(() => undefined)
            if (st) this.files.set(rel, { mtimeMs: st.mtimeMs, size: st.size })
          }
          // Directories left empty by an earlier process (it stopped between removing a file and its directory).
          if (files.length === 0) await rmdirIfEmpty(join(this.dir, session, serial, random))
        }
        await rmdirIfEmpty(join(this.dir, session, serial))
      }
      await rmdirIfEmpty(join(this.dir, session))
    }
    this.walked = true
  }
}

async function rmdirIfEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => undefined)
  if (entries && entries.length === 0) await rm(dir, { recursive: true, force: true })
}

/**
 * What the directory shows was served before this process (read at start-up, for model.ts restoreReason): the heads
 * of the notification files (plain and gzip; unreadable ones left out), and the serial directories of `session`.
 */
export async function servedOnDisk(dir: string, session: string): Promise<{ served: { session: string; serial: number }[]; serialDirs: string[] }> {
  const served: { session: string; serial: number }[] = []
  for (const name of ['notification.xml', 'notification.xml.gz']) {
    const head = await readHead(join(dir, name))
    if (head) served.push(head)
  }
  const serialDirs = await readdir(join(dir, session)).catch(() => [] as string[])
  return { served, serialDirs }
}

/** The session and serial of a notification file (plain or gzip), or undefined when there is none or it is unreadable. */
async function readHead(path: string): Promise<{ session: string; serial: number } | undefined> {
  try {
    let bytes = await readFile(path)
    if (path.endsWith('.gz')) bytes = await gunzipAsync(bytes)
    return notificationHead(bytes.subarray(0, 1024).toString('utf8'))
  } catch {
    return undefined
  }
}
