/**
 * Several svcd instances on one PostgreSQL database (design.md §7, issue 14): leadership and the instances' reports.
 *
 * The leader holds a session-level advisory lock on a connection of its own (not the stores' connection, which a
 * long transaction may occupy): PostgreSQL frees the lock the moment that session ends, so a leader killed with -9
 * is replaced at the next try of another instance. Taking the lock bumps the epoch in svc_cluster; every write only
 * the leader may make checks its epoch in the same transaction (`fence`, with FOR SHARE, which waits for a change of
 * leader in progress), so a deposed leader that still runs writes nothing. A leader that holds the lock but stopped
 * beating (hung, not dead) has its session ended by another instance once its heartbeat is older than the lease.
 * Heartbeats are the database clock's milliseconds, so the instances' clocks need not agree.
 */
import pg from 'pg'
import type { ClusterStore, InstanceRecord, LeaderRecord, RrdpFileStore } from './interfaces.js'
import { StoreError, StoreUnavailableError, type SqlDb } from './sql.js'

/** pg_advisory_lock keys: "svc-lead" (leadership) and "svc-init" (what the configuration creates at start). */
const LEADER_LOCK = BigInt.asIntN(64, 0x7376632d6c656164n).toString()
const INIT_LOCK = BigInt.asIntN(64, 0x7376632d696e6974n).toString()
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'
/** The database clock's now as ISO 8601 UTC with milliseconds (as Date.toISOString writes it). */
const NOW_ISO = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

export class PgClusterStore implements ClusterStore {
  private client: pg.Client | undefined
  private connecting: Promise<pg.Client> | undefined

  /** `uri`: the database; `db`: the stores' connection, on which `fence` runs inside their transactions. */
  constructor(
    private readonly uri: string,
    private readonly db: SqlDb,
    private readonly where: string,
  ) {}

  async tryLead(id: string): Promise<number | undefined> {
    const c = await this.conn()
    const got = (await c.query('SELECT pg_try_advisory_lock($1::bigint) AS ok', [LEADER_LOCK])).rows[0]?.ok === true
    if (!got) return undefined
    const r = await c.query(`UPDATE svc_cluster SET epoch = epoch + 1, leader = $1, leader_pid = pg_backend_pid(), since = ${NOW_ISO}, heartbeat = ${NOW_MS} WHERE id = 1 RETURNING epoch`, [id])
    return Number(r.rows[0]!.epoch)
  }

  async beat(epoch: number): Promise<boolean> {
    try {
      const c = await this.conn()
      const r = await c.query(`UPDATE svc_cluster SET heartbeat = ${NOW_MS} WHERE id = 1 AND epoch = $1 AND leader_pid = pg_backend_pid()`, [epoch])
      return r.rowCount === 1
    } catch {
      await this.drop()
      return false
    }
  }

  async endStaleLeader(staleMs: number): Promise<boolean> {
    const c = await this.conn()
    const r = await c.query(
      `SELECT pg_terminate_backend(leader_pid) AS ended FROM svc_cluster
       WHERE id = 1 AND leader_pid IS NOT NULL AND leader_pid <> pg_backend_pid() AND heartbeat < ${NOW_MS} - $1`,
      [staleMs],
    )
    return r.rows[0]?.ended === true
  }

  async resign(): Promise<void> {
    await this.drop()
  }

  async report(r: Omit<InstanceRecord, 'heartbeat'>): Promise<{ now: number; epoch: number }> {
    const c = await this.conn()
    const q = await c.query(
      `INSERT INTO svc_instances (id, url, role, epoch, started, heartbeat, session, serial) VALUES ($1, $2, $3, $4, $5, ${NOW_MS}, $6, $7)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, role = excluded.role, epoch = excluded.epoch, started = excluded.started,
         heartbeat = excluded.heartbeat, session = excluded.session, serial = excluded.serial
       RETURNING heartbeat, (SELECT epoch FROM svc_cluster WHERE id = 1) AS epoch`,
      [r.id, r.url, r.role, r.epoch, r.started, r.session ?? null, r.serial ?? null],
    )
    return { now: Number(q.rows[0]!.heartbeat), epoch: Number(q.rows[0]!.epoch) }
  }

  async view(): Promise<{ now: number; leader: LeaderRecord; instances: InstanceRecord[] }> {
    const c = await this.conn()
    const now = Number((await c.query(`SELECT ${NOW_MS} AS now`)).rows[0]!.now)
    const l = (await c.query('SELECT epoch, leader, since, heartbeat FROM svc_cluster WHERE id = 1')).rows[0]!
    const rows = (await c.query('SELECT * FROM svc_instances ORDER BY id')).rows
    const leader: LeaderRecord = { epoch: Number(l.epoch), ...(l.leader ? { leader: l.leader, since: l.since, heartbeat: Number(l.heartbeat) } : {}) }
    const instances = rows.map((r): InstanceRecord => ({
      id: r.id, url: r.url, role: r.role, epoch: Number(r.epoch), started: r.started, heartbeat: Number(r.heartbeat),
      ...(r.session ? { session: r.session as string, serial: Number(r.serial) } : {}),
    }))
    return { now, leader, instances }
  }

  async startupLock(): Promise<() => Promise<void>> {
    // A connection of its own, ended by the release: ending the session frees the lock even if unlocking fails.
    const c = await this.newClient(0) // no statement timeout: another instance may take minutes to create the testbed
    try {
      await c.query('SELECT pg_advisory_lock($1::bigint)', [INIT_LOCK])
    } catch (e) {
      await c.end().catch(() => undefined)
      throw new StoreError(`database ${this.where}: could not take the start-up lock: ${(e as Error).message}`, { cause: e })
    }
    return () => c.end().catch(() => undefined)
  }

  fence(epoch: number): void {
    const r = this.db.prepare('SELECT epoch FROM svc_cluster WHERE id = 1 FOR SHARE').get() as { epoch: number } | undefined
    if (Number(r?.epoch) !== epoch) throw new StoreError(`this instance is no longer the leader (epoch ${epoch}; the database is at ${r?.epoch})`)
  }

  async close(): Promise<void> {
    await this.drop()
  }

  private async conn(): Promise<pg.Client> {
    if (this.client) return this.client
    this.connecting ??= this.newClient().then(
      (c) => {
        this.client = c
        this.connecting = undefined
        // A lost connection has lost the lock with it: the next call starts on a new one, as a follower.
        const lost = () => c === this.client && (this.client = undefined)
        c.on('error', lost)
        c.on('end', lost)
        return c
      },
      (e: unknown) => {
        this.connecting = undefined
        throw new StoreUnavailableError(`cannot connect to database ${this.where}: ${(e as Error).message}`, { cause: e })
      },
    )
    return this.connecting
  }

  private async newClient(statementTimeoutMs = 10_000): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: this.uri, connectionTimeoutMillis: 10_000, keepAlive: true, statement_timeout: statementTimeoutMs })
    c.on('error', () => undefined) // reported through the next query's failure
    await c.connect()
    return c
  }

  private async drop(): Promise<void> {
    const c = this.client
    this.client = undefined
    await c?.end().catch(() => undefined)
  }
}

/** RRDP files in the database (rrdp_files): written by the leader, read by the others through their own connection. */
export class PgRrdpFiles implements RrdpFileStore {
  constructor(private readonly db: SqlDb) {}

  put(files: readonly { path: string; content: Uint8Array }[]): void {
    const insert = this.db.prepare('INSERT INTO rrdp_files (path, content) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET content = excluded.content')
    for (const f of files) insert.run(f.path, f.content)
  }

  get(path: string): Uint8Array | undefined {
    const r = this.db.prepare('SELECT content FROM rrdp_files WHERE path = ?').get(path) as { content: Uint8Array } | undefined
    return r?.content
  }

  keepOnly(keep: readonly string[]): void {
    const known = (this.db.prepare('SELECT path FROM rrdp_files').all() as { path: string }[]).map((r) => r.path)
    const wanted = new Set(keep)
    const drop = this.db.prepare('DELETE FROM rrdp_files WHERE path = ?')
    for (const p of known) if (!wanted.has(p)) drop.run(p)
  }
}
