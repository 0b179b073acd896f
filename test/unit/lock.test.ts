/** The data-dir lock: exclusive while the owner lives, replaced when stale. */
import t from 'tap'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock, LockError } from '../../src/lock.js'
import { tempDir } from '../helpers/daemon.js'

t.test('exclusive, released, stale replaced', async (t) => {
  const dir = tempDir(t)
  const path = join(dir, 'svcd.lock')
  const lock = acquireLock(path, dir)
  t.throws(() => acquireLock(path, dir), LockError, 'our own live pid holds it')
  t.throws(() => acquireLock(path, dir), /another svcd \(pid \d+\) is already using the data directory/)
  lock.release()
  t.notOk(existsSync(path))
  writeFileSync(path, '2147483646 1\n')
  const again = acquireLock(path, dir)
  t.ok(existsSync(path), 'a lock of a pid that does not run is replaced')
  again.release()
  writeFileSync(path, `${process.pid} 1\n`)
  const reused = acquireLock(path, dir)
  t.ok(reused, 'a live pid with another start time is a reused pid, so the lock is stale')
  reused.release()
  writeFileSync(path, 'garbage\n')
  acquireLock(path, dir).release()
})
