/**
 * PgDb when the database goes away and comes back: statements fail with a StoreError while it is down (svcd's /ready
 * reports the store down), a transaction cut by the loss lands nothing, and the next statement after it returns runs
 * on a new connection, without a restart.
 */
import t from 'tap'
import { PgDb } from '../../src/store/pg-db.js'
import { StoreError } from '../../src/store/sql.js'
import { startPostgres } from '../helpers/postgres.js'

/** The error `fn` throws (undefined when it does not). */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

t.test('lost and back', async (t) => {
  const cluster = await startPostgres(t)
  const db = PgDb.open(cluster.createDatabase('lost'), 'lost')
  t.teardown(() => db.close())
  const set = db.prepare('INSERT INTO properties (key, value) VALUES (?, ?)')
  const count = () => (db.prepare('SELECT count(*) AS n FROM properties').get() as { n: number }).n
  set.run('a', '1')

  cluster.stop()
  t.ok(thrown(() => count()) instanceof StoreError, 'a statement fails while the database is down')
  t.throws(() => count(), /unreachable|connect|ECONNREFUSED/, 'and keeps failing, with a reason')
  t.ok(thrown(() => db.transaction(() => set.run('b', '1'))) instanceof StoreError, 'a transaction too')

  cluster.start()
  t.equal(count(), 1, 'back: the next statement reconnects')
  const cut = thrown(() => db.transaction(() => {
    set.run('c', '1')
    cluster.stop()
    set.run('d', '1')
  }))
  t.ok(cut instanceof StoreError, 'a transaction cut by the loss fails')
  cluster.start()
  t.equal(count(), 1, 'and landed nothing')
  db.transaction(() => set.run('e', '1'))
  t.equal(count(), 2, 'transactions work again')
})
