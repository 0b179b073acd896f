/**
 * Locks shared by the instances on one PostgreSQL database (interfaces.ts SharedLocks; issue 14): a session-level
 * advisory lock per key, on a connection of its own (the stores' connection is synchronous, so waiting on it would
 * stop the process; the leadership connection is closed when leadership is given up). Taking a lock is tried
 * without waiting, and tried again after a short pause, so one CA held elsewhere never delays another; a lock is
 * re-entrant within the session, which the in-process keyed mutex in front of it relies on. An instance that dies
 * loses its session and with it every lock it held.
 */
import pg from 'pg'
import type { Clock } from '../util/clock.js'
import type { SharedLocks } from './interfaces.js'
import { StoreError, StoreUnavailableError } from './sql.js'

/**
 * The first key of the two-key advisory locks: "svca" (a CA, and since issue 22 also `pub:<publisher>` and
 * `rfc6492:<ca>/<child>`: handles hold no ':', so the keys never meet), apart from the one-key locks of pg-cluster.ts.
 */
const CA_SPACE = 0x73766361
const RETRY_MS = 25
/** Longer than a CA's slowest publication (a remote repository's timeouts), shorter than a client gives up. */
const MAX_WAIT_MS = 120_000

export class PgSharedLocks implements SharedLocks {
  private client: pg.Client | undefined
  private connecting: Promise<pg.Client> | undefined
  /** The queries on the connection, one at a time: CA, publisher and child locks share it (pg's client queues, but
   * warns that overlapping queries on one client go away in pg 9). */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly uri: string,
    private readonly where: string,
    private readonly clock: Pick<Clock, 'now' | 'sleep'>,
  ) {}

  /** Waits at most `maxWaitMs` (then a StoreError): a lock held that long elsewhere is a fault, not a queue. */
  async acquire(key: string, maxWaitMs = MAX_WAIT_MS): Promise<void> {
    const until = this.clock.now() + maxWaitMs
    let reconnected = false
    for (let tries = 0; ; tries++) {
      let r
      try {
        r = await this.query(await this.conn(), 'SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [CA_SPACE, key])
      } catch (e) {
        // A connection lost since the last use (the database restarted): once more on a new one.
        if (reconnected) throw e
        reconnected = true
        continue
      }
      if (r.rows[0]?.ok === true) return
      if (this.clock.now() >= until) throw new StoreError(`database ${this.where}: ${key} has been held by another instance for more than ${Math.round(maxWaitMs / 1000)} s`)
      await this.clock.sleep(RETRY_MS + Math.min(tries, 20) * 5)
    }
  }

  async release(key: string): Promise<void> {
    const c = this.client
    // Without the connection the session and its locks are gone already.
    if (c) await this.query(c, 'SELECT pg_advisory_unlock($1, hashtext($2))', [CA_SPACE, key]).catch(() => undefined)
  }

  async close(): Promise<void> {
    const c = this.client
    this.client = undefined
    await c?.end().catch(() => undefined)
  }

  private async query(c: pg.Client, sql: string, args: unknown[]) {
    const run = this.queue.then(() => c.query(sql, args))
    this.queue = run.catch(() => undefined)
    try {
      return await run
    } catch (e) {
      if (c === this.client) this.client = undefined
      await c.end().catch(() => undefined)
      throw new StoreError(`database ${this.where}: a lock among the instances failed: ${(e as Error).message}`, { cause: e })
    }
  }

  private conn(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client)
    this.connecting ??= (async () => {
      const c = new pg.Client({ connectionString: this.uri, connectionTimeoutMillis: 10_000, keepAlive: true, statement_timeout: 10_000 })
      c.on('error', () => undefined) // reported through the next query's failure
      try {
        await c.connect()
      } catch (e) {
        throw new StoreUnavailableError(`cannot connect to database ${this.where}: ${(e as Error).message}`, { cause: e })
      } finally {
        this.connecting = undefined
      }
      const lost = () => c === this.client && (this.client = undefined)
      c.on('end', lost)
      this.client = c
      return c
    })()
    return this.connecting
  }
}
