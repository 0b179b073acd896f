/**
 * The SQLite database of svcd (better-sqlite3, WAL) and its forward-only migrations. The only home of
 * better-sqlite3 (style.md §5): other store modules get a `Db` and expose narrow interfaces (EventStore, …).
 */
import { closeSync, existsSync, openSync } from 'node:fs'
import Database from 'better-sqlite3'
import { MIGRATIONS, type Migration } from './migrations/index.js'
import { StoreError, type SqlDb } from './sql.js'

export { StoreError } from './sql.js'

/** A statement prepared once and reused; the store modules use these, nothing outside store/ sees them. */
export type Statement = Database.Statement

export class Db implements SqlDb {
  readonly raw: Database.Database
  private readonly statements = new Map<string, Statement>()

  private constructor(raw: Database.Database) {
    this.raw = raw
  }

  /** Open (creating if needed) the database file, set pragmas and run pending migrations. */
  static open(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
    let raw: Database.Database
    try {
      // The database holds the whole state: readable by the svcd user only (WAL and SHM files inherit the mode).
      if (path !== ':memory:' && !existsSync(path)) closeSync(openSync(path, 'w', 0o600))
      raw = new Database(path)
      // Issue 22: pages freed by deleting large objects go back to the file system (reclaim()); this takes effect on a
      // new database only (an existing one keeps its mode: converting it needs a VACUUM, a full rewrite).
      raw.pragma('auto_vacuum = INCREMENTAL')
      raw.pragma('journal_mode = WAL')
      raw.pragma('synchronous = FULL')
      raw.pragma('foreign_keys = ON')
      raw.pragma('busy_timeout = 5000')
    } catch (e) {
      throw new StoreError(`cannot open database '${path}': ${(e as Error).message}`, { cause: e })
    }
    const db = new Db(raw)
    db.migrate(migrations)
    return db
  }

  /** A second connection to an open, migrated database (for readers that need their own read transactions). */
  static openSecondary(path: string): Db {
    try {
      const raw = new Database(path, { fileMustExist: true })
      raw.pragma('busy_timeout = 5000')
      return new Db(raw)
    } catch (e) {
      throw new StoreError(`cannot open database '${path}': ${(e as Error).message}`, { cause: e })
    }
  }

  /** Run `fn` in one transaction: all its writes land, or none do. Nested calls use savepoints. */
  transaction<T>(fn: () => T): T {
    return this.raw.transaction(fn)()
  }

  /** Run `fn` in one read transaction (WAL: a snapshot from the first read on), even across awaits. */
  async readSnapshot<T>(fn: () => Promise<T>): Promise<T> {
    this.raw.exec('BEGIN')
    try {
      return await fn()
    } finally {
      this.raw.exec('COMMIT')
    }
  }

  /** A cached prepared statement. */
  prepare(sql: string): Statement {
    let s = this.statements.get(sql)
    if (!s) {
      s = this.raw.prepare(sql)
      this.statements.set(sql, s)
    }
    return s
  }

  /** The schema version (the highest migration applied). */
  version(): number {
    return (this.raw.pragma('user_version', { simple: true }) as number) ?? 0
  }

  close(): void {
    if (this.raw.open) this.raw.close()
  }

  /**
   * Give the pages freed by deletions back to the file system once at least `minPages` are free (auto_vacuum =
   * INCREMENTAL, a database created by this version on); the number of pages given back. Outside a transaction only.
   */
  reclaim(minPages = 256): number {
    if (this.raw.inTransaction || this.raw.pragma('auto_vacuum', { simple: true }) !== 2) return 0
    const free = this.raw.pragma('freelist_count', { simple: true }) as number
    if (free < minPages) return 0
    this.raw.pragma('incremental_vacuum')
    // The file shrinks when the WAL is checkpointed: now, as far as readers allow (else at a later auto-checkpoint).
    this.raw.pragma('wal_checkpoint(PASSIVE)')
    return free
  }

  private migrate(migrations: readonly Migration[]): void {
    const current = this.version()
    const known = migrations.length ? migrations[migrations.length - 1].version : 0
    if (current > known) {
      throw new StoreError(`database schema version ${current} is newer than this svcd knows (${known}); refusing to downgrade`)
    }
    for (const m of migrations) {
      if (m.version <= current) continue
      try {
        this.transaction(() => {
          this.raw.exec(m.sql)
          this.raw.pragma(`user_version = ${m.version}`)
        })
      } catch (e) {
        throw new StoreError(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`, { cause: e })
      }
    }
  }
}
