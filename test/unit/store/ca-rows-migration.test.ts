/**
 * Migration 006 (children and routes in rows of their own) over the data of a released svcd
 * (fixtures/upgrade/data-7656ee3.tar.gz): every CA loads as exactly the state the old snapshot held, with the same
 * top-level key order, and a command after the migration writes as usual.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import type { CaState } from '../../../src/ca/state.js'
import { SqlCaStore } from '../../../src/store/ca-store.js'
import { Db } from '../../../src/store/db.js'
import { MIGRATIONS } from '../../../src/store/migrations/index.js'
import { tempDir } from '../../helpers/daemon.js'
import { fixture } from '../../helpers/paths.js'

t.test('the states of a 7656ee3 database survive migration 006 exactly', async (t) => {
  const dir = tempDir(t)
  execFileSync('tar', ['-xzf', fixture('upgrade', 'data-7656ee3.tar.gz'), '-C', dir, './svcd.db'])
  const path = join(dir, 'svcd.db')
  const old = Db.open(path, MIGRATIONS.filter((m) => m.version <= 5))
  t.equal(old.version(), 5, 'the fixture is at schema version 5')
  const before = old.raw.prepare('SELECT handle, version, state FROM ca_snapshots ORDER BY handle').all() as { handle: string; version: number; state: string }[]
  old.close()
  t.ok(before.some((r) => Object.keys((JSON.parse(r.state) as CaState).children).length > 0), 'the fixture has a CA with children')
  t.ok(before.some((r) => Object.keys((JSON.parse(r.state) as CaState).routes).length > 0), 'and a CA with routes')

  const db = Db.open(path)
  t.teardown(() => db.close())
  t.equal(db.version(), MIGRATIONS[MIGRATIONS.length - 1].version, 'migrated')
  const store = new SqlCaStore(db)
  t.same(store.handles(), before.map((r) => r.handle))
  for (const r of before) {
    const expected = JSON.parse(r.state) as CaState
    const loaded = store.load(r.handle)!
    t.equal(loaded.version, r.version, `${r.handle}: the same version`)
    t.same(loaded.state, expected, `${r.handle}: the same state`)
    t.same(Object.keys(loaded.state), Object.keys(expected), `${r.handle}: the same top-level key order`)
    t.same(Object.keys(loaded.state.children), Object.keys(expected.children).sort(), `${r.handle}: children by handle`)
  }

  const ca1 = store.load('ca1')!
  const next = structuredClone(ca1.state)
  const [firstRoute] = Object.keys(next.routes)
  delete next.routes[firstRoute]
  store.save({ handle: 'ca1', time: '2026-12-01T00:00:00Z', actor: 'test', kind: 'roas-update', summary: { label: 'x', msg: 'x', args: {} }, details: {}, effect: { result: 'success', events: [] } }, next, ca1.version)
  t.same(new SqlCaStore(db).load('ca1'), { version: ca1.version + 1, state: next }, 'a save after the migration reads back from a fresh store')
})
