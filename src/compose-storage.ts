/**
 * Where svcd's state is (the composition root, design.md §2, §6): the database named by `storage_uri`, its stores, a
 * second connection, and where private keys are kept. compose.ts, `svcd migrate` and the contract tests open storage
 * through `openStorage`.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { Config } from './config.js'
import { checkBackup, prepareBackupFile, type BackupFile, type BackupInfo, type BackupSource } from './store/backup.js'
import { Db } from './store/db.js'
import type { ClusterStore, KeyStore, RrdpFileStore, SharedLocks, Stores } from './store/interfaces.js'
import { KeyEncryptionKey } from './store/kek.js'
import { MIGRATIONS } from './store/migrations/index.js'
import { PG_MIGRATIONS } from './store/pg-migrations.js'
import { FileKeyStore } from './store/key-store.js'
import { PgClusterStore, PgRrdpFiles } from './store/pg-cluster.js'
import { PgSharedLocks } from './store/pg-locks.js'
import { PgDb } from './store/pg-db.js'
import { PgKeyStore } from './store/pg-key-store.js'
import { createPostgresStores } from './store/postgres.js'
import { StoreError, type SqlDb } from './store/sql.js'
import { createSqlStores } from './store/sql-stores.js'
import type { Clock } from './util/clock.js'
import { parseStorageUri } from './util/storage-uri.js'

/** What `openStorage` opens: the database, its stores, a second connection, and where private keys are kept. */
export interface Storage {
  db: SqlDb
  stores: Stores
  openReader: () => SqlDb
  keys: () => KeyStore
  /** Where the state is, for messages: the SQLite file, or the PostgreSQL URI without its password. */
  where: string
  /** Run after rows were copied in with their own ids (svcd migrate). */
  afterCopy?: () => void
  /** PostgreSQL: leadership among the instances on the database, and the RRDP files kept in it. */
  cluster?: { store: () => ClusterStore; files: (db: SqlDb) => RrdpFileStore; locks: (clock: Clock) => SharedLocks }
}

/**
 * The database named by `storage_uri` (util/storage-uri.ts). With PostgreSQL, private keys are sealed in the database
 * under the key-encryption key, which is read (mode checked) before the database is opened and checked against the
 * database before anything is written; with SQLite they are files in keys/ beside the database file (<data_dir>/keys
 * for the default <data_dir>/svcd.db).
 */
export function openStorage(config: Pick<Config, 'storage_uri' | 'key_encryption_key_file'>, dataDir: string): Storage {
  const target = parseStorageUri(config.storage_uri)
  if (target.kind === 'postgres') {
    if (!config.key_encryption_key_file) throw new StoreError('key_encryption_key_file must be set when storage_uri is a PostgreSQL database')
    const kek = KeyEncryptionKey.read(resolve(config.key_encryption_key_file))
    const db = PgDb.open(target.uri, target.display)
    let keys: KeyStore
    try {
      keys = new PgKeyStore(db, kek)
    } catch (e) {
      db.close()
      throw e
    }
    const cluster = { store: () => new PgClusterStore(target.uri, db, target.display), files: (on: SqlDb) => new PgRrdpFiles(on), locks: (clock: Clock) => new PgSharedLocks(target.uri, target.display, clock) }
    return { db, stores: createPostgresStores(db), openReader: () => PgDb.openSecondary(target.uri, target.display), keys: () => keys, where: target.display, afterCopy: () => db.syncSequences(), cluster }
  }
  const path = target.path === undefined ? join(dataDir, 'svcd.db') : isAbsolute(target.path) ? target.path : join(dataDir, target.path)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const db = Db.open(path)
  return { db, stores: createSqlStores(db), openReader: () => Db.openSecondary(path), keys: () => new FileKeyStore(join(dirname(path), 'keys')), where: path }
}

/**
 * svcd backup: the running instance's database through a connection of its own (nothing migrated, nothing written)
 * and its keys (PostgreSQL: opened with the config's key-encryption key, which may differ from the backup's). Its schema must be the one this svcd writes into the backup file (the svcd that runs on it).
 */
export function openBackupSource(config: Pick<Config, 'storage_uri' | 'key_encryption_key_file'>, dataDir: string): BackupSource {
  const target = parseStorageUri(config.storage_uri)
  const known = (target.kind === 'postgres' ? PG_MIGRATIONS : MIGRATIONS).at(-1)!.version
  let db: SqlDb | undefined
  try {
    if (target.kind === 'postgres') {
      if (!config.key_encryption_key_file) throw new StoreError('key_encryption_key_file must be set when storage_uri is a PostgreSQL database')
      const kek = KeyEncryptionKey.read(resolve(config.key_encryption_key_file))
      db = PgDb.openSecondary(target.uri, target.display)
      checkSchema(db, target.display, known)
      return { db, keys: new PgKeyStore(db, kek), keysInDb: true, display: target.display }
    }
    const path = target.path === undefined ? join(dataDir, 'svcd.db') : isAbsolute(target.path) ? target.path : join(dataDir, target.path)
    if (!existsSync(path)) throw new StoreError(`there is no database at '${path}'`)
    db = Db.openSecondary(path)
    checkSchema(db, path, known)
    return { db, keys: new FileKeyStore(join(dirname(path), 'keys')), keysInDb: false, display: path }
  } catch (e) {
    db?.close()
    throw e
  }
}

function checkSchema(db: SqlDb, where: string, known: number): void {
  const v = db.version()
  if (v !== known) throw new StoreError(`the database ${where} has schema version ${v}, this svcd writes ${known}: back it up with the svcd that runs on it`)
}

/** A new backup file at `path` (mode 0600): svcd's SQLite schema, backup_meta, and keys sealed under `kek`. */
export function createBackupFile(path: string, kek: KeyEncryptionKey): BackupFile {
  const db = Db.open(path)
  try {
    prepareBackupFile(db)
    return { db, keys: new PgKeyStore(db, kek), display: path }
  } catch (e) {
    db.close()
    throw e
  }
}

/** svcd restore: the backup file at `path`, checked (format, schema, the KEK opens its keys) before anything is written. */
export function openBackupFile(path: string, kek: KeyEncryptionKey): BackupFile & { info: BackupInfo } {
  if (!existsSync(path)) throw new StoreError(`there is no backup file '${path}'`)
  const db = Db.openSecondary(path)
  try {
    const info = checkBackup(db, path, kek, MIGRATIONS.at(-1)!.version)
    return { db, keys: new PgKeyStore(db, kek), display: path, info }
  } catch (e) {
    db.close()
    throw e
  }
}
