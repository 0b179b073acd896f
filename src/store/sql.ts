/**
 * What the store classes (store/*-store.ts, properties.ts) need of a database: prepared statements with `?`
 * placeholders, transactions that nest, and a consistent read snapshot for the repository writers. Two
 * implementations: `Db` (SQLite through better-sqlite3, db.ts) and `PgDb` (PostgreSQL through pg, pg-db.ts). The SQL
 * the stores write is the common subset of both dialects (INSERT … ON CONFLICT, LIMIT/OFFSET, no dialect functions),
 * so one class per store serves both; the schemas differ and live in migrations/ (SQLite) and pg-migrations.ts.
 */

/** A value bound to a placeholder or read from a column. */
export type SqlValue = string | number | bigint | Uint8Array | null

/** A statement prepared once and reused (better-sqlite3's Statement has this shape). */
export interface SqlStatement {
  /** The first row, or undefined. */
  get(...params: SqlValue[]): unknown
  all(...params: SqlValue[]): unknown[]
  /** Run a write; `changes` is the number of rows it inserted, updated or deleted. */
  run(...params: SqlValue[]): { changes: number }
  iterate(...params: SqlValue[]): IterableIterator<unknown>
}

export interface SqlDb {
  /** A cached prepared statement. */
  prepare(sql: string): SqlStatement
  /** Run `fn` in one transaction: all its writes land, or none do. Nested calls use savepoints. */
  transaction<T>(fn: () => T): T
  /**
   * Run `fn` in one read transaction on this connection: everything read through it, even across awaits, is one
   * consistent state. The connection must be used by nothing else meanwhile (the writers each have their own).
   */
  readSnapshot<T>(fn: () => Promise<T>): Promise<T>
  /** The schema version (the highest migration applied). */
  version(): number
  close(): void
  /** SQLite: give freed pages back to the file system when many are free (db.ts); PostgreSQL's autovacuum needs none. */
  reclaim?(): number
}

/** Thrown when the database cannot be opened or migrated, or a write fails. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreError'
  }
}

/**
 * The database cannot be reached (connection refused or lost, no answer in time): nothing was changed. errors.ts
 * storageFault knows it by its code, so a request answers the labelled 503 `sys-storage-unavailable` (issue 22 defect 9).
 */
export class StoreUnavailableError extends StoreError {
  readonly code = 'SVC_STORAGE_UNAVAILABLE'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}
