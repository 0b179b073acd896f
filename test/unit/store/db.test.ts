/** The SQLite store: WAL, forward-only migrations, refusal to downgrade, transactions. */
import t from 'tap'
import { join } from 'node:path'
import { Db, StoreError } from '../../../src/store/db.js'
import { MIGRATIONS } from '../../../src/store/migrations/index.js'
import { propertyStore } from '../../../src/store/properties.js'
import { tempDir } from '../../helpers/daemon.js'

t.test('migrations run once, in order; WAL is on', async (t) => {
  const file = join(tempDir(t), 'x.db')
  const db = Db.open(file)
  t.equal(db.version(), MIGRATIONS[MIGRATIONS.length - 1].version)
  t.equal(db.raw.pragma('journal_mode', { simple: true }), 'wal')
  const props = propertyStore(db)
  props.set('a', '1')
  db.close()
  const again = Db.open(file)
  t.equal(propertyStore(again).get('a'), '1', 'data survives reopening, migrations are not re-run')
  again.close()
})

t.test('a newer schema is refused', async (t) => {
  const file = join(tempDir(t), 'x.db')
  Db.open(file, [...MIGRATIONS, { version: 99, name: 'future', sql: 'CREATE TABLE f (x)' }]).close()
  t.throws(() => Db.open(file), StoreError)
  t.throws(() => Db.open(file), /schema version 99 is newer than this svcd knows/)
})

t.test('a failing migration leaves nothing half-applied', async (t) => {
  const file = join(tempDir(t), 'x.db')
  const last = MIGRATIONS[MIGRATIONS.length - 1].version
  t.throws(() => Db.open(file, [...MIGRATIONS, { version: last + 1, name: 'broken', sql: 'CREATE TABLE ok (x); THIS IS NOT SQL' }]), new RegExp(`migration ${last + 1} \\(broken\\) failed`))
  const db = Db.open(file)
  t.equal(db.version(), last, 'the earlier migrations are in, the broken one left no trace')
  t.same(db.raw.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'ok'").get(), { n: 0 })
  db.close()
})

t.test('transactions are all or nothing', async (t) => {
  const db = Db.open(join(tempDir(t), 'x.db'))
  const props = propertyStore(db)
  t.throws(() =>
    db.transaction(() => {
      props.set('x', '1')
      throw new Error('abort')
    }),
  )
  t.equal(props.get('x'), undefined)
  db.close()
})
