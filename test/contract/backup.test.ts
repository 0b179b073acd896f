/**
 * store/backup.ts (issue 27 item 5) on real databases: a backup of SQLite restored into PostgreSQL, and a backup of
 * that PostgreSQL restored into SQLite, keep every row and every key (unsealed), with the restore's own changes only
 * (a new RRDP session to come, raised manifest numbers, tasks due); the file is mode 0600 and holds no plain key; a
 * non-empty target, a wrong key-encryption key and a file that is no backup are refused with nothing written.
 */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { generateKeyPairSync } from 'node:crypto'
import { join } from 'node:path'
import t from 'tap'
import { createBackupFile, openBackupFile, openBackupSource, openStorage, type Storage } from '../../src/compose-storage.js'
import { restoredObjectNumber, restoreInstance, writeBackup } from '../../src/store/backup.js'
import type { Stores } from '../../src/store/interfaces.js'
import { KeyEncryptionKey } from '../../src/store/kek.js'
import { contents, INSTANCE_TABLES } from '../../src/store/migrate.js'
import type { SqlDb } from '../../src/store/sql.js'
import { tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { caState, child, command, route } from './ca-store.contract.js'

const cluster = await startPostgres(t)
const dir = tempDir(t, 'svc-backup-')
const kekFile = join(dir, 'kek')
writeFileSync(kekFile, '5a'.repeat(32))
chmodSync(kekFile, 0o600)
const kek = KeyEncryptionKey.read(kekFile)
const otherKekFile = join(dir, 'other-kek')
writeFileSync(otherKekFile, 'a5'.repeat(32))
chmodSync(otherKekFile, 0o600)
const KEY_A = 'A'.repeat(40)
const KEY_B = 'B'.repeat(40)
/** A real private key (PKCS#8 DER), to look for in the backup file. */
const DER_A = new Uint8Array(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'der' }))
const DER_B = new Uint8Array(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }))
const NOW = new Date('2026-11-27T12:00:00.000Z')

/** Some of everything: properties, a publisher with objects and a pending change, RRDP state and a delta, a CA, tasks. */
function fill(s: Stores): void {
  s.properties.set('created', '2026-01-01T00:00:00.000Z')
  s.publication.addPublisher({ handle: 'alice', idCert: new Uint8Array([1, 2, 3]), baseUri: 'rsync://x/repo/alice/', created: '2026-01-01T00:00:00.000Z' })
  s.publication.applyChanges('alice', [{ type: 'publish', uri: 'rsync://x/repo/alice/a.cer', content: new Uint8Array([0, 255, 7]), hash: 'h1' }], new Date('2026-01-02T00:00:00Z'), { signingTime: '2026-01-02T00:00:00Z', digests: ['d1'] })
  s.publication.recordSerial({ session: 'old-session', serial: 7, snapshotPath: 'S/7/snapshot.xml', snapshotHash: 'sh', snapshotSize: 10, updated: '2026-01-02T00:00:00.000Z' }, { serial: 7, path: 'S/7/delta.xml', hash: 'dh', size: 5, time: '2026-01-02T00:00:00.000Z' }, [], [])
  s.publication.applyChanges('alice', [{ type: 'publish', uri: 'rsync://x/repo/alice/b.roa', content: new Uint8Array([9]), hash: 'h2' }], new Date('2026-01-03T00:00:00Z'))
  s.cas.create(command('ca1', '2026-01-01T00:00:01.000Z', 'ca-add'), caState('ca1', [child('c1')], [route(65000, '10.0.0.0/24', 24)]))
  const state = { className: '0', dir: 'rsync://x/repo/ca1/0/', revision: '41', thisUpdate: '2026-01-02T00:00:00.000Z', nextUpdate: '2026-01-03T00:00:00.000Z', revocations: [], roaMode: 'simple' as const }
  s.objects.save('ca1', [{ keyId: KEY_A, state, objects: [{ name: 'x.mft', kind: 'mft', der: new Uint8Array([48, 3, 1, 2, 3]), hash: 'mh', notAfter: '2027-01-01T00:00:00Z', meta: { serial: '5' } }] }])
  s.tasks.put({ key: 'republish:ca1', kind: 'republish', ca: 'ca1', arg: '', due: 1_790_000_000_123 })
  s.tasks.put({ key: 'sync-parent:ca1/testbed', kind: 'sync-parent', ca: 'ca1', arg: 'testbed', due: 1_790_000_000_456, attempts: 3 })
  s.tasks.put({ key: 'suspend-children:ca1', kind: 'suspend-children', ca: 'ca1', arg: '', due: 1_790_000_000_789 })
}

/** Every table's rows as JSON text, bytes as hex, in key order. */
function dump(db: SqlDb): Record<string, string> {
  const out: Record<string, string> = {}
  for (const table of INSTANCE_TABLES) {
    const rows = db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]
    out[table] = rows.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? Number(v) : v]))).sort().join('\n')
  }
  return out
}

/** What a restore changes on purpose; every other table must be equal. */
const ADJUSTED = ['rrdp_state', 'rrdp_deltas', 'ca_keys', 'tasks', 'properties']
const unadjusted = (d: Record<string, string>) => Object.fromEntries(Object.entries(d).filter(([table]) => !ADJUSTED.includes(table)))

function sqlite(sub: string): Storage {
  return openStorage({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, sub))
}

async function backupOf(config: { storage_uri: string; key_encryption_key_file: string | undefined }, dataDir: string, file: string) {
  const source = openBackupSource(config, dataDir)
  try {
    return await writeBackup(source, file, (tmp) => createBackupFile(tmp, kek), kek, { now: NOW, version: 'test' })
  } finally {
    source.db.close()
  }
}

t.test('SQLite → backup → PostgreSQL → backup → SQLite: every row and key, plus the restore\'s own changes', async (t) => {
  const a = sqlite('a')
  t.teardown(() => a.db.close())
  fill(a.stores)
  a.keys().put(KEY_A, DER_A)
  a.keys().put(KEY_B, DER_B)
  const original = dump(a.db)

  const fileA = join(dir, 'a.backup')
  const report = await backupOf({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'a'), fileA)
  t.equal(report.keys, 2, 'both keys')
  t.equal(report.rows.pubd_objects, 2)
  t.equal(report.rows.ca_keys, 1)
  t.same(report.rrdp, { session: 'old-session', serial: 7 }, 'the session and serial backed up')
  t.equal(statSync(fileA).mode & 0o777, 0o600, 'the file is readable by its owner only')
  const bytes = readFileSync(fileA)
  for (const [name, der] of [['A', DER_A], ['B', DER_B]] as const) {
    t.equal(bytes.indexOf(Buffer.from(der)), -1, `no plain DER of key ${name} in the file`)
    t.equal(bytes.indexOf(Buffer.from(Buffer.from(der).toString('base64').slice(0, 64))), -1, `no base64 of key ${name} in the file`)
    t.equal(bytes.indexOf(Buffer.from(der.subarray(der.length - 40))), -1, `not even the last 40 bytes of key ${name}`)
  }

  // Into PostgreSQL.
  const pgUri = cluster.createDatabase('restored')
  const pg = openStorage({ storage_uri: pgUri, key_encryption_key_file: kekFile }, dir)
  t.teardown(() => pg.db.close())
  const backupA = openBackupFile(fileA, kek)
  t.teardown(() => backupA.db.close())
  t.same(backupA.info.rrdp, { session: 'old-session', serial: 7 })
  t.equal(backupA.info.created, NOW.toISOString())
  const restored = restoreInstance(backupA, { db: pg.db, keys: pg.keys(), display: pg.where, afterCopy: pg.afterCopy }, NOW)
  t.equal(restored.keys, 2)
  t.equal(restored.caKeys, 1)
  const onPg = dump(pg.db)
  t.same(unadjusted(onPg), unadjusted(original), 'PostgreSQL holds the same rows')
  t.same([...pg.keys().get(KEY_A)!], [...DER_A], 'key A unsealed is the same')
  t.same([...pg.keys().get(KEY_B)!], [...DER_B], 'key B unsealed is the same')
  t.equal(pg.stores.publication.rrdpState(), undefined, 'no RRDP session: svcd starts a new one')
  t.same(pg.stores.publication.rrdpDeltas(), [], 'and no delta is carried over')
  const keyState = pg.stores.objects.summaries('ca1')[0]!.state
  t.equal(keyState.revision, String(NOW.getTime()), 'the manifest number continues after the restore time in ms')
  t.equal(keyState.thisUpdate, '1970-01-01T00:00:00.000Z', 'the manifest is due for re-issue')
  t.equal(pg.stores.tasks.get('republish:ca1')?.due, NOW.getTime(), 'republish due now')
  t.same([pg.stores.tasks.get('sync-parent:ca1/testbed')?.due, pg.stores.tasks.get('sync-parent:ca1/testbed')?.attempts], [NOW.getTime(), 0], 'the parent sync due now')
  t.equal(pg.stores.tasks.get('suspend-children:ca1')?.due, 1_790_000_000_789, 'other tasks as they were')
  t.equal(pg.stores.properties.get('restored'), NOW.toISOString())
  // The pending change continues after the copied ones (identity sequences).
  pg.stores.publication.applyChanges('alice', [{ type: 'withdraw', uri: 'rsync://x/repo/alice/b.roa', previous: 'h2' }], new Date('2026-01-04T00:00:00Z'))

  t.throws(() => restoreInstance(backupA, { db: pg.db, keys: pg.keys(), display: pg.where, afterCopy: pg.afterCopy }, NOW), /the target postgresql:\/\/.* is not empty \(properties: \d+, .*\); restore copies into an empty database only/, 'a non-empty target is refused')

  // A backup of PostgreSQL (a snapshot on a connection of its own), restored into SQLite elsewhere.
  const fileB = join(dir, 'b.backup')
  const later = new Date(NOW.getTime() + 1000)
  const reportB = await backupOf({ storage_uri: pgUri, key_encryption_key_file: kekFile }, dir, fileB)
  t.equal(reportB.keys, 2)
  t.equal(reportB.rrdp, undefined, 'no session in the restored instance yet')
  const b = sqlite('b')
  t.teardown(() => b.db.close())
  const backupB = openBackupFile(fileB, kek)
  t.teardown(() => backupB.db.close())
  restoreInstance(backupB, { db: b.db, keys: b.keys(), display: b.where }, later)
  t.same(unadjusted(dump(b.db)), unadjusted(dump(pg.db)), 'back in SQLite: the same rows')
  t.same(b.keys().list(), [KEY_A, KEY_B], 'the keys are files again')
  t.same([...b.keys().get(KEY_A)!], [...DER_A])
  t.equal(b.stores.objects.summaries('ca1')[0]!.state.revision, String(later.getTime()), 'a second restore raises the numbers again')
})

t.test('refusals: a wrong key-encryption key, a file that is no backup, a missing file; nothing written', async (t) => {
  const a = sqlite('c')
  t.teardown(() => a.db.close())
  fill(a.stores)
  a.keys().put(KEY_A, DER_A)
  const file = join(dir, 'c.backup')
  await backupOf({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'c'), file)
  t.throws(() => openBackupFile(file, KeyEncryptionKey.read(otherKekFile)), new RegExp(`the key-encryption key in '${otherKekFile}' is not the one the keys in '${file}' are sealed with; nothing was restored`))
  t.throws(() => openBackupFile(join(dir, 'c', 'svcd.db'), kek), /is not an svcd backup \(no backup_meta table\)/, 'a database that is no backup')
  t.throws(() => openBackupFile(join(dir, 'nothing'), kek), /there is no backup file/)
  // A restore that fails half-way (a key cannot be stored) leaves the target empty.
  const d = sqlite('d')
  t.teardown(() => d.db.close())
  const backup = openBackupFile(file, kek)
  t.teardown(() => backup.db.close())
  const keys = d.keys()
  const failing = { ...keys, put: () => { throw new Error('disk full') }, list: () => keys.list(), get: (id: string) => keys.get(id), delete: (id: string) => keys.delete(id) }
  t.throws(() => restoreInstance(backup, { db: d.db, keys: failing, display: d.where }, NOW), /disk full/)
  const left = contents({ db: d.db, keys, display: d.where })
  t.same(Object.values(left.rows).filter((n) => n > 0), [], 'no rows')
  t.equal(left.keys, 0, 'no keys')
})

t.test('a backup into a file that exists replaces it whole; a failed backup leaves it and no temporary file', async (t) => {
  const a = sqlite('e')
  t.teardown(() => a.db.close())
  fill(a.stores)
  const file = join(dir, 'e.backup')
  writeFileSync(file, 'previous')
  await backupOf({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'e'), file)
  t.not(readFileSync(file, 'latin1').slice(0, 6), 'previou', 'replaced')
  t.ok(readFileSync(file, 'latin1').startsWith('SQLite format 3'), 'by a SQLite database')
  const before = readFileSync(file)
  const source = openBackupSource({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'e'))
  t.teardown(() => source.db.close())
  await t.rejects(writeBackup(source, file, () => { throw new Error('cannot create') }, kek, { now: NOW, version: 'test' }), /cannot create/)
  t.same(readFileSync(file), before, 'the previous backup is still there')
  t.same(readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'no temporary file left')
  t.throws(() => openBackupSource({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'none')), /there is no database at/)
})

t.test('one instant: rows committed by another connection while the backup copies are not in it', async (t) => {
  // The backup file's key list is read when the copy begins (the empty-target check), inside the source's snapshot
  // and before any row is copied: a row the instance commits then must not be in the backup.
  let n = 0
  const late = (db: SqlDb) => db.prepare('INSERT INTO properties (key, value) VALUES (?, ?)').run(`late-${++n}`, 'x')
  const has = (db: SqlDb) => (db.prepare('SELECT count(*) AS n FROM properties WHERE key = ?').get(`late-${n}`) as { n: number }).n === 1
  const hooked = (instance: SqlDb) => (tmp: string) => {
    const f = createBackupFile(tmp, kek)
    const k = f.keys
    return { ...f, keys: { list: () => (late(instance), k.list()), get: (id: string) => k.get(id), put: (id: string, der: Uint8Array) => k.put(id, der), delete: (id: string) => k.delete(id) } }
  }
  const a = sqlite('f')
  t.teardown(() => a.db.close())
  fill(a.stores)
  const fromSqlite = openBackupSource({ storage_uri: 'sqlite://', key_encryption_key_file: undefined }, join(dir, 'f'))
  t.teardown(() => fromSqlite.db.close())
  await writeBackup(fromSqlite, join(dir, 'f.backup'), hooked(a.db), kek, { now: NOW, version: 'test' })
  t.ok(n > 0 && has(a.db), 'a row was committed in the instance during the copy')
  const backup = openBackupFile(join(dir, 'f.backup'), kek)
  t.teardown(() => backup.db.close())
  t.notOk(has(backup.db), 'SQLite: it is not in the backup')
  t.equal((backup.db.prepare('SELECT count(*) AS n FROM properties').get() as { n: number }).n, 1, "the instance's row from before it is")

  const uri = cluster.createDatabase('instant')
  const pg = openStorage({ storage_uri: uri, key_encryption_key_file: kekFile }, dir)
  t.teardown(() => pg.db.close())
  fill(pg.stores)
  const fromPg = openBackupSource({ storage_uri: uri, key_encryption_key_file: kekFile }, dir)
  t.teardown(() => fromPg.db.close())
  await writeBackup(fromPg, join(dir, 'g.backup'), hooked(pg.db), kek, { now: NOW, version: 'test' })
  t.ok(has(pg.db), 'a row was committed in the PostgreSQL instance during the copy')
  const pgBackup = openBackupFile(join(dir, 'g.backup'), kek)
  t.teardown(() => pgBackup.db.close())
  t.notOk(has(pgBackup.db), 'PostgreSQL: it is not in the backup')
})

t.test('restoredObjectNumber: at least the restore time in ms, never lower than before', async (t) => {
  t.equal(restoredObjectNumber('41', NOW), BigInt(NOW.getTime()))
  t.equal(restoredObjectNumber('99999999999999999', NOW), 99999999999999999n, 'a higher number is kept')
})
