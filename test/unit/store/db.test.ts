/** The SQLite store: WAL, forward-only migrations, refusal to downgrade, transactions. */
import t from 'tap'
import { statSync } from 'node:fs'
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

t.test('issue 22: the space of withdrawn large objects goes back to the file system (auto_vacuum = INCREMENTAL)', async (t) => {
  const file = join(tempDir(t), 'x.db')
  const db = Db.open(file)
  t.teardown(() => db.close())
  t.equal(db.raw.pragma('auto_vacuum', { simple: true }), 2, 'a new database is INCREMENTAL')
  const size = () => {
    db.raw.pragma('wal_checkpoint(TRUNCATE)')
    return statSync(file).size
  }
  const empty = size()
  db.raw.exec("INSERT INTO pubd_publishers (handle, id_cert, base_uri, created) VALUES ('p', x'00', 'rsync://h/r/p/', 'now')")
  const put = db.raw.prepare("INSERT INTO pubd_objects (uri, publisher, hash, size, content) VALUES (?, 'p', 'h', ?, ?)")
  for (let i = 0; i < 5; i++) put.run(`rsync://h/r/p/${i}.cer`, 4 << 20, Buffer.alloc(4 << 20, i))
  const full = size()
  t.ok(full > empty + (19 << 20), `five 4 MiB objects: ${full} bytes`)
  db.raw.exec('DELETE FROM pubd_objects')
  t.equal(size(), full, 'a deletion alone leaves the file as large')
  t.ok(db.reclaim() > 5000, 'reclaim gives the free pages back')
  t.ok(size() < empty + (1 << 20), `and the file is small again: ${size()} bytes`)
  t.equal(db.reclaim(), 0, 'nothing more to give back')
})
