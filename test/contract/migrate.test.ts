/**
 * store/migrate.ts (issue 14 item 2) on real databases: SQLite → PostgreSQL → SQLite keeps every row of every table
 * and every key byte for byte, and what the stores read back is the same; a non-empty target is refused; a copy that
 * fails half-way leaves the target empty (rows rolled back, key files removed).
 */
import { join } from 'node:path'
import t from 'tap'
import { MemoryKeyStore } from '../../src/crypto/soft-signer.js'
import { Db } from '../../src/store/db.js'
import type { Stores } from '../../src/store/interfaces.js'
import { KeyEncryptionKey } from '../../src/store/kek.js'
import { FileKeyStore } from '../../src/store/key-store.js'
import { contents, INSTANCE_TABLES, migrateInstance, type Instance } from '../../src/store/migrate.js'
import { PgDb } from '../../src/store/pg-db.js'
import { PgKeyStore } from '../../src/store/pg-key-store.js'
import { createPostgresStores } from '../../src/store/postgres.js'
import type { SqlDb } from '../../src/store/sql.js'
import { createSqlStores } from '../../src/store/sql-stores.js'
import { tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { caState, child, command, route } from './ca-store.contract.js'
import { chmodSync, writeFileSync } from 'node:fs'

const cluster = await startPostgres(t)
const dir = tempDir(t, 'svc-migrate-')
const kekFile = join(dir, 'kek')
writeFileSync(kekFile, '7e'.repeat(32))
chmodSync(kekFile, 0o600)
const kek = KeyEncryptionKey.read(kekFile)
const KEY_A = 'A'.repeat(40)
const KEY_B = 'B'.repeat(40)

/** Some of everything: properties, a publisher with objects and pending changes, RRDP state and deltas, CAs, tasks. */
function fill(s: Stores): void {
  s.properties.set('created', '2026-01-01T00:00:00.000Z')
  s.publication.addPublisher({ handle: 'alice', idCert: new Uint8Array([1, 2, 3]), baseUri: 'rsync://x/repo/alice/', created: '2026-01-01T00:00:00.000Z' })
  s.publication.applyChanges('alice', [{ type: 'publish', uri: 'rsync://x/repo/alice/a.cer', content: new Uint8Array([0, 255, 7]), hash: 'h1' }], new Date('2026-01-02T00:00:00Z'), { signingTime: '2026-01-02T00:00:00Z', digests: ['d1'] })
  s.publication.recordSerial({ session: 'S', serial: 2, snapshotPath: 'S/2/snapshot.xml', snapshotHash: 'sh', snapshotSize: 10, updated: '2026-01-02T00:00:00.000Z' }, { serial: 2, path: 'S/2/delta.xml', hash: 'dh', size: 5, time: '2026-01-02T00:00:00.000Z' }, [], [])
  s.publication.applyChanges('alice', [{ type: 'publish', uri: 'rsync://x/repo/alice/b.roa', content: new Uint8Array([9]), hash: 'h2' }], new Date('2026-01-03T00:00:00Z'))
  s.cas.create(command('ca1', '2026-01-01T00:00:01.000Z', 'ca-add'), caState('ca1', [child('c1')], [route(65000, '10.0.0.0/24', 24)]))
  s.cas.appendPublication('ca1', '2026-01-01T00:00:02.000Z', { label: 'pub', msg: 'published', args: {} })
  s.objects.save('ca1', [{ keyId: KEY_A, state: { className: '0', revision: 3, revocations: [] } as never, objects: [{ name: 'x.mft', kind: 'mft', der: new Uint8Array([48, 3, 1, 2, 3]), hash: 'mh', notAfter: '2027-01-01T00:00:00Z', meta: {} as never }] }])
  s.status.record('ca1', 'parent', 'testbed', { time: '2026-01-01T00:00:03.000Z', uri: 'https://x/', result: 'success' })
  s.tasks.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1_790_000_000_123 })
}

/** Every table's rows as JSON text, bytes as hex, in key order. */
function dump(db: SqlDb): Record<string, string> {
  const out: Record<string, string> = {}
  for (const table of INSTANCE_TABLES) {
    const rows = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]
    out[table] = rows.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v]))).sort().join('\n')
  }
  return out
}

t.test('SQLite → PostgreSQL → SQLite: every row and key, as stored', async (t) => {
  const a = Db.open(join(dir, 'a.db'))
  const pg = PgDb.open(cluster.createDatabase('mig'), 'mig')
  const b = Db.open(join(dir, 'b.db'))
  t.teardown(() => [a, pg, b].forEach((d) => d.close()))
  fill(createSqlStores(a))
  const aKeys = new FileKeyStore(join(dir, 'a-keys'))
  aKeys.put(KEY_A, new Uint8Array([1, 1, 1]))
  aKeys.put(KEY_B, new Uint8Array([2, 2, 2]))
  const from: Instance = { db: a, keys: aKeys, display: 'a' }
  const mid: Instance = { db: pg, keys: new PgKeyStore(pg, kek), display: 'pg', afterCopy: () => pg.syncSequences() }
  const report = migrateInstance(from, mid)
  t.same(report.keys, 2)
  t.equal(report.rows.pubd_objects, 2)
  t.same(dump(pg), dump(a), 'PostgreSQL holds the same rows')
  t.same([...mid.keys.get(KEY_B)!], [2, 2, 2], 'and the same keys')
  const back: Instance = { db: b, keys: new FileKeyStore(join(dir, 'b-keys')), display: 'b' }
  migrateInstance(mid, back)
  t.same(dump(b), dump(a), 'back in SQLite: the same rows')
  t.same(back.keys.list(), [KEY_A, KEY_B])
  const [sa, sp] = [createSqlStores(a), createPostgresStores(pg)]
  t.same(sp.cas.load('ca1'), sa.cas.load('ca1'), 'the stores read the same CA')
  t.same(sp.publication.stats(), sa.publication.stats(), 'and the same publishers')
  // The pending changes continue after the copied ones.
  sp.publication.applyChanges('alice', [{ type: 'withdraw', uri: 'rsync://x/repo/alice/b.roa', previous: 'h2' }], new Date('2026-01-04T00:00:00Z'))
  t.same((pg.prepare('SELECT seq FROM pubd_changes ORDER BY seq').all() as { seq: number }[]).map((r) => r.seq), [1, 2, 3], 'a new change gets the seq after the copied ones')

  t.throws(() => migrateInstance(from, mid), /the target pg is not empty \(properties: 1, pubd_publishers: 1, .*\); migrate copies into an empty database only/)
})

t.test('a copy that fails half-way leaves the target empty', async (t) => {
  const a = Db.open(join(dir, 'c.db'))
  const c = Db.open(join(dir, 'd.db'))
  t.teardown(() => [a, c].forEach((d) => d.close()))
  fill(createSqlStores(a))
  const keys = new MemoryKeyStore()
  keys.put(KEY_A, new Uint8Array([1]))
  keys.put(KEY_B, new Uint8Array([2]))
  const target = new FileKeyStore(join(dir, 'd-keys'))
  const failing = { put: (id: string, der: Uint8Array) => (id === KEY_B ? (() => { throw new Error('disk full') })() : target.put(id, der)), get: (id: string) => target.get(id), delete: (id: string) => target.delete(id), list: () => target.list() }
  t.throws(() => migrateInstance({ db: a, keys, display: 'c' }, { db: c, keys: failing, display: 'd' }), /disk full/)
  const left = contents({ db: c, keys: target, display: 'd' })
  t.same(Object.values(left.rows).filter((n) => n > 0), [], 'no rows')
  t.equal(left.keys, 0, 'no key files')
})
