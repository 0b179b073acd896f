/**
 * The data-dir lock of svcd: one daemon per data dir. The lock file holds the owner's pid and its start time
 * (from /proc), so a lock left by a crashed process is recognised as stale even when its pid was reused.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'

export class LockError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LockError'
  }
}

export interface DataDirLock {
  readonly path: string
  release(): void
}

/** Take the lock at `path`, replacing a stale one; throws LockError when a live svcd holds it. */
export function acquireLock(path: string, dataDir: string): DataDirLock {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600)
      writeSync(fd, `${process.pid} ${startTime(process.pid) ?? ''}\n`)
      closeSync(fd)
      return { path, release: () => releaseLock(path) }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockError(`cannot create lock file '${path}': ${(e as Error).message}`)
    }
    const owner = readOwner(path)
    if (owner && isAlive(owner.pid, owner.start)) {
      throw new LockError(`another svcd (pid ${owner.pid}) is already using the data directory '${dataDir}' (lock file '${path}'); stop it first`)
    }
    // Stale: move it aside atomically (only one contender's rename succeeds), then try again.
    try {
      renameSync(path, `${path}.stale`)
      unlinkSync(`${path}.stale`)
    } catch {
      /* another process took it over or removed it; retry */
    }
  }
  throw new LockError(`cannot take the lock file '${path}'`)
}

function releaseLock(path: string): void {
  const owner = readOwner(path)
  if (owner?.pid === process.pid && existsSync(path)) unlinkSync(path)
}

function readOwner(path: string): { pid: number; start: string | undefined } | undefined {
  try {
    const [pid, start] = readFileSync(path, 'utf8').trim().split(/\s+/)
    const n = Number(pid)
    return Number.isInteger(n) && n > 0 ? { pid: n, start: start || undefined } : undefined
  } catch {
    return undefined
  }
}

function isAlive(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false
  }
  const now = startTime(pid)
  return start === undefined || now === undefined || now === start
}

/** Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot (Linux); undefined elsewhere. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19]
  } catch {
    return undefined
  }
}
