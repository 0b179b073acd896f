/**
 * PgDb: a PostgreSQL database behind the same synchronous SqlDb interface as SQLite's Db (sql.ts), so every store
 * class, every service and every transaction boundary stays as it is (design.md §7, issue 14).
 *
 * Why synchronous. The store interfaces are synchronous because better-sqlite3 is, and the services rely on it: a
 * command reads a CA, decides, and saves inside `stores.transaction(fn)` with a synchronous `fn`, and an RFC 8181
 * message lands through one synchronous `applyChanges`. Making the interfaces async would change every service and
 * route (and let other requests interleave inside a transaction); a write-through cache with async persistence would
 * acknowledge changes the database does not hold yet. Instead each PgDb owns a worker thread (pg-worker.ts) holding
 * one pg connection; a call posts the statement to the worker and blocks on Atomics.wait until the answer is there
 * (receiveMessageOnPort). The main thread runs nothing else meanwhile, so `transaction(fn)` is BEGIN, fn's statements
 * on that one connection, COMMIT (or ROLLBACK): atomic, and no other request's statement can slip into it. The cost
 * is one loopback round trip per statement with the event loop held, as SQLite holds it for a disk read; the SQLite
 * path does not go through here at all.
 *
 * Differences from SQLite a caller could see: after a failed statement inside a transaction PostgreSQL refuses the
 * rest of it (SQLite only undoes the statement), so the transaction must end in an error, which the stores do; and
 * `iterate` reads all rows first. Errors carry the server's message and SQLSTATE (`code`), never parameters, and
 * never the password of the storage URI. A lost connection fails the statement (and its transaction, which lands
 * nothing); the next statement outside a transaction connects again, so svcd recovers when the database returns.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { PG_MIGRATIONS } from './pg-migrations.js'
import type { Migration } from './migrations/index.js'
import type { PgAnswer, PgRequest } from './pg-worker.js'
import { StoreError, StoreUnavailableError, type SqlDb, type SqlStatement, type SqlValue } from './sql.js'

/** How long a statement may take before svcd gives up on the database (the server's statement_timeout is 30 s). */
const QUERY_TIMEOUT_MS = 60_000
const CONNECT_TIMEOUT_MS = 20_000
/** Serialises schema migrations of instances starting together (pg_advisory_xact_lock key: "svc-migr"). */
const MIGRATION_LOCK = 0x7376632d6d696772n

/** A PostgreSQL error: the server's message and SQLSTATE (e.g. 23505 unique_violation). */
export class PgError extends StoreError {
  readonly code: string | undefined
  constructor(message: string, code?: string) {
    super(message)
    this.name = 'PgError'
    this.code = code
  }
}

/** The database clock's now as ISO 8601 UTC with milliseconds (as Date.toISOString writes it). */
const NOW_ISO = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

export class PgDb implements SqlDb {
  private readonly statements = new Map<string, SqlStatement>()
  private readonly signal = new Int32Array(new SharedArrayBuffer(4))
  private readonly port: MessagePort
  private readonly worker: Worker
  private seq = 0
  private depth = 0
  private snapshot = false
  private closed = false
  /** The connection was lost; the next statement outside a transaction reconnects first. */
  private broken = false

  private constructor(uri: string, private readonly where: string) {
    const { port1, port2 } = new MessageChannel()
    this.port = port1
    const file = import.meta.url.endsWith('.ts') ? './pg-worker.ts' : './pg-worker.js'
    this.worker = new Worker(new URL(file, import.meta.url), { workerData: { uri, port: port2, flag: this.signal.buffer }, transferList: [port2] })
    this.worker.unref()
  }

  /** Connect to `uri` (postgresql://…) and run pending migrations; `where` names the database in errors (no password). */
  static open(uri: string, where: string, migrations: readonly Migration[] = PG_MIGRATIONS): PgDb {
    const db = new PgDb(uri, where)
    try {
      db.call({ op: 'connect' }, CONNECT_TIMEOUT_MS)
    } catch (e) {
      db.close()
      throw new StoreError(`cannot connect to database ${where}: ${(e as Error).message}`, { cause: e })
    }
    try {
      db.migrate(migrations)
    } catch (e) {
      db.close()
      throw e
    }
    return db
  }

  /** A second connection to an open, migrated database (the repository writers' own read transactions). */
  static openSecondary(uri: string, where: string): PgDb {
    return PgDb.open(uri, where, [])
  }

  prepare(sql: string): SqlStatement {
    let s = this.statements.get(sql)
    if (!s) {
      const text = numbered(sql)
      const name = `svc${this.statements.size + 1}`
      const q = (params: SqlValue[]) => this.query(text, params, name)
      s = {
        get: (...p) => q(p).rows?.[0],
        all: (...p) => q(p).rows ?? [],
        run: (...p) => ({ changes: q(p).rowCount ?? 0 }),
        iterate: (...p) => (q(p).rows ?? [])[Symbol.iterator](),
      }
      this.statements.set(sql, s)
    }
    return s
  }

  /** Run SQL without parameters (several statements allowed). */
  exec(sql: string): void {
    this.query(sql, [])
  }

  transaction<T>(fn: () => T): T {
    const savepoint = this.depth > 0 ? `svc_sp${this.depth}` : undefined
    this.exec(savepoint ? `SAVEPOINT ${savepoint}` : 'BEGIN')
    this.depth++
    let result: T
    try {
      result = fn()
    } catch (e) {
      this.depth--
      this.rollback(savepoint)
      throw e
    }
    this.depth--
    try {
      this.exec(savepoint ? `RELEASE SAVEPOINT ${savepoint}` : 'COMMIT')
    } catch (e) {
      this.rollback(savepoint)
      throw e
    }
    return result
  }

  /** After rows were inserted with their own ids (svcd migrate): identity columns continue after the highest. */
  syncSequences(): void {
    for (const [table, column] of [['pubd_changes', 'seq'], ['audit_log', 'seq'], ['ca_plans', 'id'], ['quarantine', 'id']]) {
      this.exec(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`)
    }
  }

  async readSnapshot<T>(fn: () => Promise<T>): Promise<T> {
    this.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    this.snapshot = true
    try {
      return await fn()
    } finally {
      this.snapshot = false
      this.exec('COMMIT')
    }
  }

  version(): number {
    const exists = this.query("SELECT to_regclass('svc_schema') IS NOT NULL AS yes", []).rows?.[0]?.yes === true
    if (!exists) return 0
    return (this.query('SELECT max(version) AS v FROM svc_schema', []).rows?.[0]?.v as number | null) ?? 0
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.call({ op: 'close' }, 5_000)
    } catch {
      // The worker is terminated anyway.
    }
    void this.worker.terminate()
  }

  private rollback(savepoint: string | undefined): void {
    try {
      this.exec(savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK')
    } catch {
      // The connection is gone: the server rolled back (or will) on its own.
    }
  }

  private migrate(migrations: readonly Migration[]): void {
    if (!migrations.length) return
    const known = migrations[migrations.length - 1]!.version
    this.transaction(() => {
      this.exec(`SELECT pg_advisory_xact_lock(${BigInt.asIntN(64, MIGRATION_LOCK)}); CREATE TABLE IF NOT EXISTS svc_schema (version integer PRIMARY KEY, name text NOT NULL, applied text NOT NULL)`)
      const current = this.version()
      if (current > known) throw new StoreError(`database schema version ${current} is newer than this svcd knows (${known}); refusing to downgrade`)
      for (const m of migrations) {
        if (m.version <= current) continue
        try {
          this.transaction(() => {
            this.exec(m.sql)
            this.prepare(`INSERT INTO svc_schema (version, name, applied) VALUES (?, ?, ${NOW_ISO})`).run(m.version, m.name) // the database clock's now
          })
        } catch (e) {
          throw new StoreError(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`, { cause: e })
        }
      }
    })
  }

  /**
   * One statement. After a lost connection, a statement that starts a transaction or runs outside one reconnects
   * first; inside a transaction it fails (its earlier statements died with the connection: it must not half-land).
   */
  private query(sql: string, params: SqlValue[], name?: string): PgAnswer {
    if (this.closed) throw new StoreError(`database ${this.where} is closed`)
    if (this.broken) {
      if (this.depth > 0 || this.snapshot) throw new StoreUnavailableError(`database ${this.where}: connection lost inside a transaction`)
      try {
        this.call({ op: 'reconnect' }, CONNECT_TIMEOUT_MS)
      } catch (e) {
        throw new StoreUnavailableError(`database ${this.where} is unreachable: ${(e as Error).message}`, { cause: e })
      }
      this.broken = false
    }
    return this.call({ op: 'query', sql, params, ...(name ? { name } : {}) }, QUERY_TIMEOUT_MS)
  }

  /** Send one request to the worker and block until its answer (or the timeout). */
  private call(req: { op: 'connect' | 'reconnect' | 'close' } | { op: 'query'; sql: string; params: SqlValue[]; name?: string }, timeoutMs: number): PgAnswer {
    const id = ++this.seq
    const deadline = performance.now() + timeoutMs // a timeout on a blocked thread: monotonic, whatever the wall clock does
    Atomics.store(this.signal, 0, 0)
    this.port.postMessage({ ...req, id } as PgRequest)
    for (;;) {
      // An answer is posted before the flag is raised: lower it, then look, then wait (no wake-up is lost).
      let m: { message: PgAnswer } | undefined
      while ((m = receiveMessageOnPort(this.port) as { message: PgAnswer } | undefined)) {
        if (m.message.id !== id) continue // the late answer to a request that timed out
        if (m.message.broken) this.broken = true
        if (m.message.error && m.message.broken) {
          const cause = new PgError(m.message.error.message, m.message.error.code)
          throw new StoreUnavailableError(`database ${this.where}: connection lost: ${cause.message}`, { cause })
        }
        if (m.message.error) throw new PgError(m.message.error.message, m.message.error.code)
        return m.message
      }
      const left = deadline - performance.now()
      if (left <= 0) {
        this.broken = true // whatever the worker is stuck on, the next statement starts on a new connection
        throw new StoreUnavailableError(`database ${this.where} did not answer within ${timeoutMs / 1000} s`)
      }
      Atomics.wait(this.signal, 0, 0, left)
      Atomics.store(this.signal, 0, 0)
    }
  }
}

/** `?` placeholders to PostgreSQL's `$1, $2, …` (outside quoted strings and identifiers). */
export function numbered(sql: string): string {
  let n = 0
  let quote: string | undefined
  let out = ''
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined
    } else if (ch === "'" || ch === '"') quote = ch
    else if (ch === '?') {
      out += `$${++n}`
      continue
    }
    out += ch
  }
  return out
}
