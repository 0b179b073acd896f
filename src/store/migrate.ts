/**
 * `svcd migrate --from <storage_uri> --to <storage_uri>` (issue 14 item 2): copy a whole instance between backends
 * (SQLite ⇄ PostgreSQL, or between two of either): every table row as stored, and every private key (decrypted from
 * the source's key store, sealed again by the target's). The target must be empty: no row and no key. The copy is one
 * target transaction, so a failure leaves the target as empty as it was (key files a SQLite target got are removed).
 * Both schemas have the same tables and columns (pg-migrations.ts mirrors migrations/), so rows copy as they are.
 */
import type { KeyId } from '../crypto/key-id.js'
import type { KeyStore } from '../crypto/signer.js'
import { StoreError, type SqlDb, type SqlValue } from './sql.js'

/** Every table of an instance, parents before the rows that refer to them. */
export const INSTANCE_TABLES = [
  'properties',
  'pubd_publishers', 'pubd_objects', 'pubd_changes', 'pubd_replay', 'rrdp_state', 'rrdp_deltas',
  'ca_snapshots', 'ca_children', 'ca_routes', 'ca_history', 'ca_keys', 'ca_objects', 'ca_status', 'ca_child_replay',
  'tasks',
  // Kept with the instance: who holds tokens, what was done, the plans (login sessions are not: they are short-lived).
  'api_tokens', 'audit_log', 'ca_plans',
  // Which signer holds which key (the keys in a PKCS#11 token stay there: a copy needs the same token).
  'signers', 'key_signers',
  // What was set aside as undecodable (issue 26): a copy keeps it, so an operator can still see and drop it.
  'quarantine',
] as const

/** One side of a migration: the database and where its private keys are. */
export interface Instance {
  db: SqlDb
  keys: KeyStore
  /** Where it is, for messages (no password). */
  display: string
  /** Run in the copy's transaction after the rows are in (PostgreSQL: identity sequences continue after them). */
  afterCopy?: () => void
}

/** What was copied: rows per table, and keys. */
export interface MigrationReport {
  rows: Record<string, number>
  keys: number
}

/** Rows per table and keys of an instance (all zero: empty). */
export function contents(i: Instance): MigrationReport {
  const rows: Record<string, number> = {}
  for (const table of INSTANCE_TABLES) rows[table] = (i.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
  return { rows, keys: i.keys.list().length }
}

/**
 * Copy everything of `from` into the empty `to`; refuses a non-empty target before writing anything. `what` names the
 * command in the refusal (svcd backup and restore copy with it too, store/backup.ts).
 */
export function migrateInstance(from: Instance, to: Instance, o: { what?: string } = {}): MigrationReport {
  const target = contents(to)
  const held = Object.entries(target.rows).filter(([, n]) => n > 0).map(([t, n]) => `${t}: ${n}`)
  if (target.keys > 0) held.push(`keys: ${target.keys}`)
  if (held.length) throw new StoreError(`the target ${to.display} is not empty (${held.join(', ')}); ${o.what ?? 'migrate'} copies into an empty database only`)
  const written: KeyId[] = []
  try {
    return to.db.transaction(() => {
      const rows: Record<string, number> = {}
      for (const table of INSTANCE_TABLES) rows[table] = copyTable(from.db, to.db, table)
      for (const keyId of from.keys.list()) {
        const der = from.keys.get(keyId)
        if (!der) continue
        to.keys.put(keyId, der)
        der.fill(0)
        written.push(keyId)
      }
      to.afterCopy?.()
      return { rows, keys: written.length }
    })
  } catch (e) {
    // A PostgreSQL target rolled the keys back with the rows; a key file is not in the transaction.
    for (const keyId of written) {
      try {
        to.keys.delete(keyId)
      } catch {
        // Reported with the error below.
      }
    }
    throw e
  }
}

function copyTable(from: SqlDb, to: SqlDb, table: string): number {
  let insert: ReturnType<SqlDb['prepare']> | undefined
  let columns: string[] = []
  let n = 0
  for (const row of from.prepare(`SELECT * FROM ${table}`).iterate() as Iterable<Record<string, SqlValue>>) {
    if (!insert) {
      columns = Object.keys(row)
      insert = to.prepare(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    }
    insert.run(...columns.map((c) => row[c] ?? null))
    n++
  }
  return n
}
