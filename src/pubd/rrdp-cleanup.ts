/**
 * The files of the RRDP directory (<dir>/<session>/<serial>/<random>/<file>) and their removal once no notification
 * references them (krill-reference.md §3, design.md "Publication server"). The directory is walked once, at the
 * first cleanup after a start; from then on the writer reports every file it writes, so a cleanup works from memory
 * and touches the disk only for what it removes. Walking every serial's directory at each cycle cost a readdir and
 * a stat per file kept within the retention, at every serial: the largest share of the writer's time for a
 * repository that changes every second.
 */
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

interface TrackedFile {
  /** Milliseconds since the epoch on the real clock, like the mtimes the walk reads. */
  mtimeMs: number
  size: number
}

export interface CleanupOptions {
  /** Files that the notification references: kept whatever their age. Relative paths with '/'. */
  referenced: ReadonlySet<string>
  /** Unreferenced files older than this go. */
  graceSeconds: number
  /** Superseded snapshots within the grace period, together at most this many bytes (newest kept). */
  supersededSnapshotBytes: number
}

export class RrdpFiles {
  private readonly files = new Map<string, TrackedFile>()
  private walked = false

  constructor(private readonly dir: string) {}

  /** A file the writer has just written (relative path with '/'). */
  written(rel: string, size: number): void {
    this.files.set(normalise(rel), { mtimeMs: Date.now(), size })
  }

  /** Everything under the directory `rel` is gone (a failed cycle removed what it wrote). */
  removedDir(rel: string): void {
    const prefix = normalise(rel).replace(/\/?$/, '/')
    for (const path of this.files.keys()) if (path.startsWith(prefix)) this.files.delete(path)
  }

  /**
   * Remove what is not referenced once it is older than the grace period, so that readers of an earlier
   * notification can still fetch it; superseded snapshots go sooner when together they exceed the budget (the newest
   * are kept). A download in progress is not cut short: an open file outlives its name. Directories left empty go
   * too, and so do old sessions.
   */
  async cleanup(o: CleanupOptions): Promise<void> {
    if (!this.walked) await this.walk()
    const cutoff = Date.now() - o.graceSeconds * 1000
    const superseded: { path: string; mtimeMs: number; size: number }[] = []
    const emptied = new Set<string>()
    for (const [path, f] of [...this.files]) {
      if (o.referenced.has(path)) continue
      if (f.mtimeMs < cutoff) await this.remove(path, emptied)
      else if (path.endsWith('/snapshot.xml')) superseded.push({ path, ...f })
    }
    superseded.sort((a, b) => b.mtimeMs - a.mtimeMs)
    let kept = 0
    for (const f of superseded) if ((kept += f.size) > o.supersededSnapshotBytes) await this.remove(f.path, emptied)
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

function normalise(rel: string): string {
  return rel.split('\\').join('/')
}

async function rmdirIfEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => undefined)
  if (entries && entries.length === 0) await rm(dir, { recursive: true, force: true })
}
