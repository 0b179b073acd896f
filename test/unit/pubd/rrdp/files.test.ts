/** The RRDP directory's cleanup (src/pubd/rrdp/files.ts): one walk after a start, then the writer's own record. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { systemClock } from '../../../../src/clock.js'
import { RrdpFiles } from '../../../../src/pubd/rrdp/files.js'

function put(dir: string, rel: string, bytes: number, ageSeconds = 0): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true })
  writeFileSync(join(dir, rel), Buffer.alloc(bytes))
  const at = (Date.now() - ageSeconds * 1000) / 1000
  utimesSync(join(dir, rel), at, at)
}

t.test('after a start: what an earlier process left is found once, and removed by the same rules', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rrdp-cleanup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  put(dir, 's1/1/aa/snapshot.xml', 100, 3600) // an old session, unreferenced and old: goes with its directories
  put(dir, 's2/1/bb/snapshot.xml', 100, 3600) // superseded, old
  put(dir, 's2/1/bb/delta.xml', 10, 3600) // still referenced: stays whatever its age
  put(dir, 's2/2/cc/snapshot.xml', 100, 10) // superseded but within the grace period
  put(dir, 's2/3/dd/snapshot.xml', 100, 0) // current
  mkdirSync(join(dir, 's2/9/ee'), { recursive: true }) // left empty by a process that stopped halfway
  put(dir, 'notification.xml', 0, 3600) // written by the earlier process an hour ago: what it no longer named went before
  const files = new RrdpFiles(dir, systemClock)
  await files.cleanup({ referenced: new Set(['s2/1/bb/delta.xml', 's2/3/dd/snapshot.xml']), graceSeconds: 120, supersededSnapshotBytes: 1e9 })
  t.notOk(existsSync(join(dir, 's1')), 'the old session is gone')
  t.notOk(existsSync(join(dir, 's2/1/bb/snapshot.xml')), 'an old unreferenced snapshot is gone')
  t.ok(existsSync(join(dir, 's2/1/bb/delta.xml')), 'a referenced delta stays')
  t.ok(existsSync(join(dir, 's2/2/cc/snapshot.xml')), 'a superseded snapshot within the grace period stays')
  t.notOk(existsSync(join(dir, 's2/9')), 'empty directories are removed')
  t.ok(existsSync(join(dir, 'notification.xml')), 'the notification is not touched')
  t.same(readdirSync(dir).sort(), ['notification.xml', 's2'])
})

t.test('while running: files the writer reported are removed without walking the directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rrdp-cleanup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const files = new RrdpFiles(dir, systemClock)
  await files.cleanup({ referenced: new Set(), graceSeconds: 0, supersededSnapshotBytes: 1e9 }) // the walk: nothing yet
  put(dir, 's/1/a/snapshot.xml', 100)
  files.written('s/1/a/snapshot.xml', 100)
  put(dir, 's/2/b/snapshot.xml', 100)
  put(dir, 's/2/b/delta.xml', 10)
  files.written('s/2/b/snapshot.xml', 100)
  files.written('s/2/b/delta.xml', 10)
  // Not reported: a file put there by someone else is not the writer's to remove (and is not looked for).
  put(dir, 's/1/a/foreign.txt', 1, 3600)
  await files.cleanup({ referenced: new Set(['s/2/b/snapshot.xml', 's/2/b/delta.xml']), graceSeconds: 3600, supersededSnapshotBytes: 1e9 })
  t.ok(existsSync(join(dir, 's/1/a/snapshot.xml')), 'within the grace period a superseded snapshot stays')
  await files.cleanup({ referenced: new Set(['s/2/b/snapshot.xml', 's/2/b/delta.xml']), graceSeconds: 3600, supersededSnapshotBytes: 50 })
  t.notOk(existsSync(join(dir, 's/1/a/snapshot.xml')), 'beyond the superseded-snapshot budget it goes at once')
  t.ok(existsSync(join(dir, 's/1/a/foreign.txt')), 'a file the writer did not write is left, and so is its directory')
  t.ok(existsSync(join(dir, 's/2/b/delta.xml')))

  put(dir, 's/3/c/snapshot.xml', 100)
  files.written('s/3/c/snapshot.xml', 100)
  await files.cleanup({ referenced: new Set(['s/3/c/snapshot.xml']), graceSeconds: 0, supersededSnapshotBytes: 1e9 })
  t.notOk(existsSync(join(dir, 's/2')), 'with no grace period the previous serial goes, directories included')
  t.ok(existsSync(join(dir, 's/3/c/snapshot.xml')))

  mkdirSync(join(dir, 's/4/d'), { recursive: true })
  put(dir, 's/4/d/delta.xml', 10)
  files.written('s/4/d/delta.xml', 10)
  files.removedDir('s/4/d')
  rmSync(join(dir, 's/4'), { recursive: true })
  await files.cleanup({ referenced: new Set(['s/3/c/snapshot.xml']), graceSeconds: 0, supersededSnapshotBytes: 1e9 })
  t.ok(existsSync(join(dir, 's/3/c/snapshot.xml')), 'a directory a failed cycle removed is forgotten without harm')
})

t.test('the grace period runs from when a file stopped being referenced, not from when it was written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rrdp-cleanup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  // A quiet repository: the current serial's files were written hours ago (found after a start, or written then).
  put(dir, 's/1/a/snapshot.xml', 100, 7200)
  put(dir, 's/1/a/delta.xml', 10, 7200)
  put(dir, 'notification.xml', 0, 7200)
  let now = Date.now()
  const files = new RrdpFiles(dir, { now: () => now })
  await files.cleanup({ referenced: new Set(['s/1/a/snapshot.xml', 's/1/a/delta.xml']), graceSeconds: 120, supersededSnapshotBytes: 1e9 })
  t.ok(existsSync(join(dir, 's/1/a/snapshot.xml')), 'referenced: kept')
  // A new serial supersedes the two-hour-old snapshot: a reader of the previous notification may be fetching it.
  put(dir, 's/2/b/snapshot.xml', 100)
  files.written('s/2/b/snapshot.xml', 100)
  await files.cleanup({ referenced: new Set(['s/2/b/snapshot.xml', 's/1/a/delta.xml']), graceSeconds: 120, supersededSnapshotBytes: 1e9 })
  t.ok(existsSync(join(dir, 's/1/a/snapshot.xml')), 'just superseded, written two hours ago: kept for the grace period')
  now += 119_000
  await files.cleanup({ referenced: new Set(['s/2/b/snapshot.xml', 's/1/a/delta.xml']), graceSeconds: 120, supersededSnapshotBytes: 1e9 })
  t.ok(existsSync(join(dir, 's/1/a/snapshot.xml')), 'still within the grace period')
  now += 2_000
  await files.cleanup({ referenced: new Set(['s/2/b/snapshot.xml', 's/1/a/delta.xml']), graceSeconds: 120, supersededSnapshotBytes: 1e9 })
  t.notOk(existsSync(join(dir, 's/1/a/snapshot.xml')), 'gone once unreferenced for longer than the grace period')
  t.ok(existsSync(join(dir, 's/1/a/delta.xml')), 'the referenced delta stays')
})
