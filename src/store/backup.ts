/**
 * `svcd backup --to FILE` and `svcd restore --from FILE` (issue 27 item 5). A backup file is a SQLite database with
 * svcd's SQLite schema holding every INSTANCE_TABLES row as of one instant (the copy of `svcd migrate`, store/migrate.ts,
 * read inside one read snapshot of the running instance: SQLite's WAL read transaction on a connection of its own, or
 * PostgreSQL's REPEATABLE READ), plus the private keys sealed under the key-encryption key exactly as PgKeyStore seals
 * them (tables signer_keys and signer_kek_check): no plain key is ever in the file. `backup_meta` says what it is.
 *
 * A restore copies it into an empty storage of either backend (rows as they are, keys unsealed and stored for the
 * target) and then, in the same transaction, makes the restored instance safe to serve content older than what the
 * world has seen:
 * - RRDP: the backup's session, serial and deltas are dropped, so the publication server starts a new session at serial
 *   1 (RFC 8182 §3.3.2; the publication-server BCP, RFC 9697: content never goes backwards within a session);
 * - manifest and CRL numbers: every CA key continues from at least the restore time in milliseconds since the epoch
 *   (`restoredObjectNumber`), higher than any number it issued before, and its manifest and CRL are re-issued at start;
 * - the 'republish' and 'sync-parent' tasks are due at once, so every CA re-publishes and asks its parents again.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import type { KeyObjectsState } from '../ca/object-model.js'
import type { KeyId } from '../crypto/key-id.js'
import type { KeyStore } from '../crypto/signer.js'
import type { KeyEncryptionKey } from './kek.js'
import { migrateInstance, type Instance, type MigrationReport } from './migrate.js'
import { seal, unseal } from './pg-key-store.js'
import { StoreError, type SqlDb } from './sql.js'

/** The format named in backup_meta; a restore refuses any other. */
export const BACKUP_FORMAT = 'svcd-backup-1'
const CHECK = 'svcd backup key-encryption key check'

/** The tables a backup file holds beside the instance's own: what it is, and the sealed keys (PgKeyStore's tables). */
export function prepareBackupFile(db: SqlDb): void {
  db.prepare('CREATE TABLE backup_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT').run()
  db.prepare('CREATE TABLE signer_keys (key_id TEXT PRIMARY KEY, sealed BLOB NOT NULL) STRICT').run()
  db.prepare('CREATE TABLE signer_kek_check (id INTEGER PRIMARY KEY CHECK (id = 1), sealed BLOB NOT NULL) STRICT').run()
}

/** The running instance as `svcd backup` reads it: a connection of its own (for the snapshot) and its key store. */
export interface BackupSource {
  db: SqlDb
  keys: KeyStore
  /** PostgreSQL: the keys are rows, read in the same snapshot; SQLite: they are files, read around the snapshot. */
  keysInDb: boolean
  display: string
}

/** A backup file being written or read: its database and its sealed key store (PgKeyStore over it). */
export interface BackupFile {
  db: SqlDb
  keys: KeyStore
  display: string
}

export interface BackupReport extends MigrationReport {
  rrdp?: { session: string; serial: number }
  bytes?: number
}

/**
 * Write a consistent backup of `source` to `path`: into a temporary file beside it (mode 0600, made by `create`),
 * fsynced and renamed over `path`, so `path` is either the previous file or the whole new one.
 */
export async function writeBackup(source: BackupSource, path: string, create: (tmp: string) => BackupFile, kek: KeyEncryptionKey, meta: { now: Date; version: string }): Promise<BackupReport> {
  const tmp = `${path}.${process.pid}.tmp`
  const remove = () => ['', '-wal', '-shm', '-journal'].forEach((s) => rmSync(tmp + s, { force: true }))
  remove()
  let file: BackupFile | undefined
  try {
    file = create(tmp)
    const report = await backupInstance(source, file, kek, meta)
    // One self-contained file: no WAL beside it.
    file.db.prepare('PRAGMA journal_mode = DELETE').get()
    file.db.close()
    file = undefined
    syncFile(tmp)
    renameSync(tmp, path)
    syncFile(dirname(path))
    return report
  } catch (e) {
    file?.db.close()
    remove()
    throw e
  }
}

/** Copy every row and key of `source` as of one instant into the empty backup file (store/migrate.ts's copy). */
export async function backupInstance(source: BackupSource, file: BackupFile, kek: KeyEncryptionKey, meta: { now: Date; version: string }): Promise<BackupReport> {
  // Key files are not in the database's snapshot: those there before it are read first, the newer ones after it.
  const before = source.keysInDb ? new Map<KeyId, Uint8Array>() : readKeys(source.keys)
  try {
    return await source.db.readSnapshot(async () => {
      // The first read fixes the snapshot (SQLite's deferred read transaction).
      const rrdp = source.db.prepare('SELECT session, serial FROM rrdp_state WHERE id = 1').get() as { session: string; serial: number } | undefined
      const keys = source.keysInDb ? source.keys : keysAround(source.keys, before)
      const afterCopy = () => {
        const put = file.db.prepare('INSERT INTO backup_meta (key, value) VALUES (?, ?)')
        put.run('format', BACKUP_FORMAT)
        put.run('created', meta.now.toISOString())
        put.run('version', meta.version)
        put.run('source', source.display)
        put.run('schema', String(file.db.version()))
        put.run('kek_check', Buffer.from(seal(kek, Buffer.from(CHECK), CHECK)).toString('base64'))
        if (rrdp) put.run('rrdp', `${rrdp.session} ${rrdp.serial}`)
      }
      const report = migrateInstance({ db: source.db, keys, display: source.display }, { db: file.db, keys: file.keys, display: file.display, afterCopy }, { what: 'backup' })
      return { ...report, rrdp: rrdp && { session: rrdp.session, serial: Number(rrdp.serial) } }
    })
  } finally {
    for (const der of before.values()) der.fill(0)
  }
}

/** What a backup file says of itself (backup_meta). */
export interface BackupInfo {
  created: string
  version: string
  source: string
  schema: number
  rrdp?: { session: string; serial: number }
}

/**
 * Check that `db` is a backup this svcd restores (`schema`: the SQLite schema version it knows) and that `kek` opens
 * its keys; throws a StoreError saying what is wrong, before anything is written anywhere.
 */
export function checkBackup(db: SqlDb, display: string, kek: KeyEncryptionKey, schema: number): BackupInfo {
  const hasMeta = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'backup_meta'").get() as { n: number }
  if (!hasMeta.n) throw new StoreError(`'${display}' is not an svcd backup (no backup_meta table)`)
  const meta = new Map((db.prepare('SELECT key, value FROM backup_meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]))
  if (meta.get('format') !== BACKUP_FORMAT) throw new StoreError(`'${display}' is a backup of format '${meta.get('format')}'; this svcd restores ${BACKUP_FORMAT}`)
  const version = db.version()
  if (version !== schema) {
    throw new StoreError(`'${display}' was made with database schema ${version} (svcd ${meta.get('version')}); this svcd has schema ${schema}: restore it with svcd ${meta.get('version')}, then start this version on it`)
  }
  const check = meta.get('kek_check')
  if (!check || unseal(kek, Buffer.from(check, 'base64'), CHECK) === undefined) {
    throw new StoreError(`the key-encryption key in '${kek.file}' is not the one the keys in '${display}' are sealed with; nothing was restored`)
  }
  const [session, serial] = meta.get('rrdp')?.split(' ') ?? []
  return { created: meta.get('created') ?? '', version: meta.get('version') ?? '', source: meta.get('source') ?? '', schema: version, rrdp: session ? { session, serial: Number(serial) } : undefined }
}

export interface RestoreReport extends MigrationReport {
  /** CA keys whose manifest and CRL numbers were raised, and the number they continue after. */
  caKeys: number
  objectNumber: bigint
}

/**
 * Restore the backup into the empty `target` (refused when not empty, as migrate refuses), in one transaction: rows,
 * keys, then the new RRDP session, the raised manifest numbers and the due tasks (see the file's comment).
 */
export function restoreInstance(backup: BackupFile, target: Instance, now: Date): RestoreReport {
  let adjusted = { caKeys: 0, objectNumber: 0n }
  const afterCopy = () => {
    target.afterCopy?.()
    adjusted = afterRestore(target.db, now)
  }
  const report = migrateInstance(backup, { ...target, afterCopy }, { what: 'restore' })
  return { ...report, ...adjusted }
}

/**
 * The number a restored CA key continues after: at least the restore time in ms since the epoch. A key issues far
 * fewer than one manifest per millisecond, so every number issued before (by this instance, or by an earlier restore
 * of it, which started at its own restore time) is below it; 2^159-1 (RFC 9286 §4.2.1) stays out of reach.
 */
export function restoredObjectNumber(previous: string, now: Date): bigint {
  const floor = BigInt(Math.floor(now.getTime()))
  const prev = BigInt(previous)
  return prev > floor ? prev : floor
}

/** A restored instance's first state: a new RRDP session, raised manifest numbers with re-issue due, tasks due now. */
function afterRestore(db: SqlDb, now: Date): { caKeys: number; objectNumber: bigint } {
  db.prepare('DELETE FROM rrdp_deltas').run()
  db.prepare('DELETE FROM rrdp_state').run()
  const update = db.prepare('UPDATE ca_keys SET state = ? WHERE handle = ? AND key_id = ?')
  const rows = db.prepare('SELECT handle, key_id, state FROM ca_keys').all() as { handle: string; key_id: string; state: string }[]
  const objectNumber = BigInt(Math.floor(now.getTime()))
  for (const r of rows) {
    const s = JSON.parse(r.state) as KeyObjectsState
    // thisUpdate at the epoch: the manifest is due for re-issue (ca/renewal.ts manifestDueAt) at the first publication.
    const next: KeyObjectsState = { ...s, revision: restoredObjectNumber(s.revision, now).toString(), thisUpdate: new Date(0).toISOString() }
    update.run(JSON.stringify(next), r.handle, r.key_id)
  }
  db.prepare("UPDATE tasks SET due = ?, attempts = 0 WHERE kind IN ('republish', 'sync-parent')").run(now.getTime())
  db.prepare('INSERT INTO properties (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run('restored', now.toISOString())
  return { caKeys: rows.length, objectNumber }
}

/** Every key of a store, read now (plain DER: zeroed by the caller). */
function readKeys(keys: KeyStore): Map<KeyId, Uint8Array> {
  const out = new Map<KeyId, Uint8Array>()
  for (const id of keys.list()) {
    const der = keys.get(id)
    if (der) out.set(id, der)
  }
  return out
}

/** The keys read before the snapshot and those in the store now, read only (the copy fills and zeroes what it gets). */
function keysAround(live: KeyStore, before: ReadonlyMap<KeyId, Uint8Array>): KeyStore {
  return {
    list: () => [...new Set([...before.keys(), ...live.list()])].sort(),
    get: (id) => {
      const der = before.get(id)
      return der ? Uint8Array.from(der) : live.get(id)
    },
    put: () => {
      throw new StoreError('a backup does not write to the instance')
    },
    delete: () => {
      throw new StoreError('a backup does not write to the instance')
    },
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

