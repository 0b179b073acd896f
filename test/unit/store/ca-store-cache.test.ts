/**
 * The CA store's state cache is bounded (issue 28: 10,000 CAs must not keep every state in memory): at most
 * `cacheMax` CAs, the least recently used leaving first; a CA that left is read again, equal to what it was.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import { SqlCaStore } from '../../../src/store/ca-store.js'
import { Db } from '../../../src/store/db.js'
import { tempDir } from '../../helpers/daemon.js'
import { fixture } from '../../helpers/paths.js'

t.test('at most cacheMax CA states stay cached, the least recently used leaving first', async (t) => {
  const dir = tempDir(t)
  execFileSync('tar', ['-xzf', fixture('upgrade', 'data-7656ee3.tar.gz'), '-C', dir, './svcd.db'])
  const db = Db.open(join(dir, 'svcd.db'))
  t.teardown(() => db.close())
  const store = new SqlCaStore(db, 2)
  const [a, b, c] = store.handles()
  t.ok(a && b && c, 'the fixture has three CAs or more')
  const first = store.load(a!)!.state
  t.equal(store.load(a!)!.state, first, 'a cached state is handed out again (the same frozen object)')
  const second = store.load(b!)!.state
  store.load(a!) // a is now the most recently used, b the least
  store.load(c!) // beyond two: b leaves
  t.equal(store.load(a!)!.state, first, 'the recently used CA stayed')
  const again = store.load(b!)!.state
  t.not(again, second, 'the least recently used CA left the cache and is read again')
  t.same(again, second, 'as it was')
})
