/** RRDP retention (src/pubd/rrdp/retention.ts), pure rules: which deltas (the numbers of krill-reference.md §3), which files. */
import t from 'tap'
import { filesToRemove, retainDeltas } from '../../../../src/pubd/rrdp/retention.js'

t.test('retention rules: minimum count and age, maximum count and age, total size', async (t) => {
  const now = new Date('2026-01-01T12:00:00Z')
  const d = (serial: number, ageSeconds: number, size = 10) => ({ serial, path: `${serial}`, hash: '', size, time: new Date(now.getTime() - ageSeconds * 1000).toISOString() })
  const r = { minNr: 5, minSeconds: 1200, maxNr: 50, maxSeconds: 7200 }
  const deltas = [d(10, 10), d(9, 100), d(8, 3000), d(7, 4000), d(6, 5000), d(5, 6000), d(4, 8000), d(3, 9000)]
  t.same(retainDeltas(deltas, 1000, r, now).map((x) => x.serial), [10, 9, 8, 7, 6, 5], 'stop at the first older than maxSeconds once minNr is reached')
  const young = Array.from({ length: 60 }, (_, i) => d(100 - i, 10))
  t.equal(retainDeltas(young, 1e9, r, now).length, 60, 'every delta younger than minSeconds is kept')
  const old = Array.from({ length: 60 }, (_, i) => d(100 - i, 1300))
  t.equal(retainDeltas(old, 1e9, r, now).length, 50, 'at most maxNr beyond the minimum')
  t.same(retainDeltas([d(3, 1, 60), d(2, 2, 50), d(1, 3, 40)], 100, r, now).map((x) => x.serial), [3], 'never larger together than the snapshot')
})

t.test('files: unreferenced ones go after the grace period; superseded snapshots beyond the budget go at once', async (t) => {
  const now = Date.parse('2026-01-01T12:00:00Z')
  const f = (ageSeconds: number, size = 100) => ({ mtimeMs: now - ageSeconds * 1000, size })
  const files = new Map([
    ['s/1/a/snapshot.xml', f(3600)], // superseded, old
    ['s/1/a/delta.xml', f(3600, 10)], // still referenced
    ['s/2/b/snapshot.xml', f(60)], // superseded, within the grace period
    ['s/3/c/snapshot.xml', f(30)], // superseded, newer
    ['s/4/d/snapshot.xml', f(0)], // current
  ])
  const referenced = new Set(['s/1/a/delta.xml', 's/4/d/snapshot.xml'])
  t.same(filesToRemove(files, { referenced, graceSeconds: 120, supersededSnapshotBytes: 1e9 }, now), ['s/1/a/snapshot.xml'], 'only what is past the grace period')
  t.same(filesToRemove(files, { referenced, graceSeconds: 120, supersededSnapshotBytes: 150 }, now), ['s/1/a/snapshot.xml', 's/2/b/snapshot.xml'], 'the newest superseded snapshots are kept within the budget')
  t.same(filesToRemove(files, { referenced, graceSeconds: 0, supersededSnapshotBytes: 1e9 }, now + 1).sort(), ['s/1/a/snapshot.xml', 's/2/b/snapshot.xml', 's/3/c/snapshot.xml'], 'no grace: every unreferenced file')
  t.same(filesToRemove(files, { referenced, graceSeconds: 120, supersededSnapshotBytes: 1e9 }, now + 3600_000).sort(), ['s/1/a/snapshot.xml', 's/2/b/snapshot.xml', 's/3/c/snapshot.xml'], 'an hour later on the clock, the grace period is over for all')
  // Written an hour ago but superseded only 30 s ago: the grace period counts from then.
  const late = new Map([['s/1/a/snapshot.xml', { ...f(3600), unreferencedSinceMs: now - 30_000 }]])
  t.same(filesToRemove(late, { referenced, graceSeconds: 120, supersededSnapshotBytes: 1e9 }, now), [], 'unreferenced for 30 s: kept')
  t.same(filesToRemove(late, { referenced, graceSeconds: 120, supersededSnapshotBytes: 1e9 }, now + 91_000), ['s/1/a/snapshot.xml'], 'unreferenced for 121 s: gone')
})
