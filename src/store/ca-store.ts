/**
 * SQLite storage of CAs: snapshots and history (the AggregateStore of eventsourcing.ts), with paging and time
 * filters for `svcc history`. A CA's state is its snapshot row (JSON of the state without children and routes) plus
 * a row per child and per configured ROA (migration 006), so a command writes only the rows it changed. The last
 * state loaded or saved is cached per CA, deep-frozen, and handed out as long as the stored version and tag match;
 * at most `cacheMax` CAs, the least recently used leaving first, so memory does not grow with the CA count (issue 28).
 */
import { randomUUID } from 'node:crypto'
import type { StoredCommand } from '../eventsourcing.js'
import type { CaState } from '../ca/state.js'
import type { CaStore, HistoryQuery } from './interfaces.js'
import { runSliced, runSync } from '../util/slices.js'
import { deepFreeze, diffRows, type Rows, type RowsDiff } from './ca-rows.js'
import { StoreError, type SqlDb, type SqlValue } from './sql.js'
import { StoredDataError } from '../util/stored-data.js'

/** A save worked out beforehand (prepareSave) against the cached state at `version` with `tag`. */
interface PreparedSave {
  version: number
  tag: string
  rest: string
  diffs: { children: RowsDiff; routes: RowsDiff }
  /** The history record's JSON without `seq`. */
  record: string
}

/** The cached state of one CA: what load() hands out while the snapshot row still has this version and tag. */
interface Cached {
  version: number
  tag: string
  state: CaState
  children: Rows
  routes: Rows
}

/** Row tables of the state: the state field, its table and columns. */
const ROW_TABLES = [
  { field: 'children', table: 'ca_children', key: 'child', value: 'info' },
  { field: 'routes', table: 'ca_routes', key: 'route', value: 'config' },
] as const

/** CAs whose state stays cached at most (10,000 CAs would otherwise keep every state in memory). */
export const CA_CACHE_MAX = 1000

export class SqlCaStore implements CaStore {
  /** In order of use, the least recently used first (a Map keeps insertion order). */
  private readonly cache = new Map<string, Cached>()

  constructor(private readonly db: SqlDb, private readonly cacheMax = CA_CACHE_MAX) {}

  handles(): string[] {
    return (this.db.prepare('SELECT handle FROM ca_snapshots ORDER BY handle').all() as { handle: string }[]).map((r) => r.handle)
  }

  exists(handle: string): boolean {
    return this.db.prepare('SELECT 1 FROM ca_snapshots WHERE handle = ?').get(handle) !== undefined
  }

  /** The snapshot's version (it changes with every command that changed the CA), without reading the state. */
  version(handle: string): number | undefined {
    return (this.db.prepare('SELECT version FROM ca_snapshots WHERE handle = ?').get(handle) as { version: number } | undefined)?.version
  }

  /** The CA's state, deep-frozen (read-only: copy it to change it), from the cache when the stored version is the cached one. */
  load(handle: string): { version: number; state: CaState } | undefined {
    const head = this.head(handle)
    if (!head) {
      this.cache.delete(handle)
      return undefined
    }
    const hit = this.cache.get(handle)
    if (hit && hit.version === head.version && hit.tag === head.tag) {
      this.remember(handle, hit)
      return { version: hit.version, state: hit.state }
    }
    const row = this.db.prepare('SELECT state FROM ca_snapshots WHERE handle = ?').get(handle) as { state: string }
    // A snapshot or row that is not JSON (issue 26 §5): the CA is quarantined by whoever loads it, the others go on.
    try {
      const [children, routes] = ROW_TABLES.map((t) => {
        const rows: Rows = new Map()
        for (const r of this.rowsOf(t, handle)) rows.set(r.k, { json: r.v, value: deepFreeze(JSON.parse(r.v)) })
        return rows
      })
      const entry = this.assemble(handle, head.version, head.tag, row.state, children, routes)
      return { version: entry.version, state: entry.state }
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e
      throw new StoredDataError('ca', handle, `the stored state of CA ${handle} does not decode: ${e.message}`, row.state.slice(0, 4096))
    }
  }

  /** Create a CA: its first history entry and snapshot at version 1, in one transaction. */
  create(cmd: Omit<StoredCommand, 'seq'>, state: CaState): void {
    this.db.transaction(() => {
      this.cache.delete(cmd.handle)
      this.db.prepare('INSERT INTO ca_snapshots (handle, version, state, tag) VALUES (?, 1, ?, ?)').run(cmd.handle, restJson(state), randomUUID())
      for (const t of ROW_TABLES) {
        const insert = this.db.prepare(`INSERT INTO ${t.table} (handle, ${t.key}, ${t.value}) VALUES (?, ?, ?)`)
        for (const [k, v] of Object.entries(state[t.field] ?? {})) insert.run(cmd.handle, k, JSON.stringify(v))
      }
      this.append(cmd)
    })
  }

  /**
   * Work out beforehand, in slices awaiting `pause` between them, what save() writes: the rows that changed, the
   * cached state's objects, the history record's JSON. A command that changed 100,000 rows then holds the event loop
   * only for the writes themselves (issue 22 defect 8). Undefined when the cache does not hold `expectedVersion`.
   */
  async prepareSave(cmd: Omit<StoredCommand, 'seq'>, state: CaState, expectedVersion: number, pause: () => Promise<void>): Promise<PreparedSave | undefined> {
    const hit = this.cache.get(cmd.handle)
    if (!hit || hit.version !== expectedVersion) return undefined
    const diff = (t: (typeof ROW_TABLES)[number]) => runSliced(diffRows(state[t.field] ?? {}, hit[t.field], true), pause)
    const children = await diff(ROW_TABLES[0])
    const routes = await diff(ROW_TABLES[1])
    await pause()
    const record = JSON.stringify(cmd)
    await pause()
    return { version: hit.version, tag: hit.tag, rest: restJson(state), diffs: { children, routes }, record }
  }

  /**
   * Append the command and, with a state, write the snapshot row at version + 1 and the child and route rows that
   * differ from the stored ones (compared with the cached rows when the cache holds the stored version). `prepared`
   * (prepareSave) is used when the stored version and tag are still the ones it was worked out against.
   */
  save(cmd: Omit<StoredCommand, 'seq'>, state: CaState | undefined, expectedVersion: number, prepared?: unknown): number {
    const handle = cmd.handle
    return this.db.transaction(() => {
      if (state === undefined) return this.append(cmd)
      const head = this.head(handle)
      if (head?.version !== expectedVersion) {
        this.cache.delete(handle)
        throw new StoreError(`CA '${handle}' changed concurrently (expected version ${expectedVersion})`)
      }
      const hit = this.cache.get(handle)
      const base = hit && hit.version === head.version && hit.tag === head.tag ? hit : undefined
      const ready = base && isPrepared(prepared) && prepared.version === head.version && prepared.tag === head.tag ? prepared : undefined
      const rest = ready?.rest ?? restJson(state)
      const tag = randomUUID()
      // The snapshot row first, on the condition of the version read: with PostgreSQL a concurrent save by another
      // instance holds the row until it commits, and then this one changes nothing (and nothing else is written).
      const updated = this.db.prepare('UPDATE ca_snapshots SET version = ?, state = ?, tag = ? WHERE handle = ? AND version = ?').run(expectedVersion + 1, rest, tag, handle, expectedVersion)
      if (updated.changes !== 1) {
        this.cache.delete(handle)
        throw new StoreError(`CA '${handle}' changed concurrently (expected version ${expectedVersion})`)
      }
      const [children, routes] = ROW_TABLES.map((t) => this.writeRows(t, handle, ready?.diffs[t.field] ?? this.diff(t, handle, state[t.field] ?? {}, base?.[t.field])))
      const seq = this.append(cmd, ready?.record)
      // Cached only once every write succeeded; a rollback of an enclosing transaction leaves a tag nobody stores.
      this.assemble(handle, expectedVersion + 1, tag, rest, children, routes, ready && { children: ready.diffs.children.object!, routes: ready.diffs.routes.object! })
      return seq
    })
  }

  /** Remove a CA with its history, rows, objects and status. */
  remove(handle: string): void {
    this.db.transaction(() => {
      this.cache.delete(handle)
      for (const table of ['ca_snapshots', 'ca_children', 'ca_routes', 'ca_history', 'ca_keys', 'ca_objects', 'ca_status', 'ca_child_replay']) this.db.prepare(`DELETE FROM ${table} WHERE handle = ?`).run(handle)
    })
  }

  private head(handle: string): { version: number; tag: string } | undefined {
    return this.db.prepare('SELECT version, tag FROM ca_snapshots WHERE handle = ?').get(handle) as { version: number; tag: string } | undefined
  }

  private rowsOf(t: (typeof ROW_TABLES)[number], handle: string): { k: string; v: string }[] {
    return this.db.prepare(`SELECT ${t.key} AS k, ${t.value} AS v FROM ${t.table} WHERE handle = ? ORDER BY ${t.key}`).all(handle) as { k: string; v: string }[]
  }

  /** The rows of `values` that differ from `base` (the cached rows) or, without a base, from the stored rows. */
  private diff(t: (typeof ROW_TABLES)[number], handle: string, values: Record<string, unknown>, base: Rows | undefined): RowsDiff {
    const stored: Map<string, { json: string; value?: unknown }> = base ?? new Map(this.rowsOf(t, handle).map((r) => [r.k, { json: r.v }]))
    return runSync(diffRows(values, stored, false))
  }

  /** Write a diff: the changed rows, and delete the rows no longer there. Returns the rows now stored. */
  private writeRows(t: (typeof ROW_TABLES)[number], handle: string, d: RowsDiff): Rows {
    // Many rows per statement (a 100,000-ROA delta is 100,000 rows): with PostgreSQL each statement is a round trip
    // with the event loop held (pg-db.ts).
    this.batched(d.gone.map((k) => [handle, k]), (n) => `DELETE FROM ${t.table} WHERE (handle, ${t.key}) IN (VALUES ${rowsSql(n, 2)})`)
    this.batched(d.changed.map(([k, json]) => [handle, k, json]), (n) => `INSERT INTO ${t.table} (handle, ${t.key}, ${t.value}) VALUES ${rowsSql(n, 3)} ON CONFLICT (handle, ${t.key}) DO UPDATE SET ${t.value} = excluded.${t.value}`)
    return d.out
  }

  /** Run `sql(n)` over `rows` in statements of BATCH_SIZES rows (few distinct statements to prepare and cache). */
  private batched(rows: SqlValue[][], sql: (n: number) => string): void {
    let i = 0
    for (const size of BATCH_SIZES) {
      for (; rows.length - i >= size; i += size) this.db.prepare(sql(size)).run(...rows.slice(i, i + size).flat())
    }
  }

  /** Build the frozen state from the snapshot JSON and the rows (sorted by key, or the objects prepared so), and cache it. */
  private assemble(handle: string, version: number, tag: string, rest: string, children: Rows, routes: Rows, objects?: { children: Record<string, unknown>; routes: Record<string, unknown> }): Cached {
    const state = JSON.parse(rest) as CaState
    const rows = { children, routes }
    for (const t of ROW_TABLES) {
      let obj = objects?.[t.field]
      if (!obj) {
        obj = {}
        for (const k of [...rows[t.field].keys()].sort()) {
          const r = rows[t.field].get(k)!
          if (r.value === undefined) r.value = deepFreeze(JSON.parse(r.json))
          obj[k] = r.value
        }
      }
      ;(state as unknown as Record<string, unknown>)[t.field] = obj
    }
    const entry: Cached = { version, tag, state: deepFreeze(state), children, routes }
    this.remember(handle, entry)
    return entry
  }

  /** Cache `entry` as the most recently used; the least recently used goes beyond `cacheMax`. */
  private remember(handle: string, entry: Cached): void {
    this.cache.delete(handle)
    this.cache.set(handle, entry)
    if (this.cache.size > this.cacheMax) this.cache.delete(this.cache.keys().next().value!)
  }

  /** Record a publication (not a command: it changes no CA state) for `history --full`. */
  appendPublication(handle: string, time: string, summary: StoredCommand['summary']): number {
    return this.append({ handle, time, actor: 'svc', kind: 'publish', summary, details: { type: 'publish' }, effect: { result: 'success', events: [] } })
  }

  history(handle: string, q: HistoryQuery): { total: number; records: StoredCommand[] } {
    const where = ['handle = ?']
    const args: (string | number)[] = [handle]
    if (!q.full) where.push("kind <> 'publish'")
    if (q.after) where.push('time > ?'), args.push(q.after)
    if (q.before) where.push('time < ?'), args.push(q.before)
    const needle = q.q?.toLowerCase() ?? ''
    // A search: the database keeps the records that hold the text anywhere (plain LIKE, both dialects; for printable
    // ASCII, which lower() folds alike in both and JSON writes as it is), then the label, message and actor decide.
    if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(needle)) where.push("lower(record) LIKE ? ESCAPE '\\'"), args.push(`%${needle.replace(/[%_]/g, '\\$&')}%`)
    const clause = where.join(' AND ')
    const order = q.order === 'desc' ? 'DESC' : 'ASC'
    if (needle) {
      const found = (this.db.prepare(`SELECT record FROM ca_history WHERE ${clause} ORDER BY seq ${order}`).all(...args) as { record: string }[])
        .map((r) => JSON.parse(r.record) as StoredCommand)
        .filter((r) => `${r.summary.label}\n${r.summary.msg}\n${r.actor}`.toLowerCase().includes(needle))
      return { total: found.length, records: found.slice(q.offset, q.offset + q.rows) }
    }
    const total = (this.db.prepare(`SELECT count(*) AS n FROM ca_history WHERE ${clause}`).get(...args) as { n: number }).n
    const rows = this.db.prepare(`SELECT record FROM ca_history WHERE ${clause} ORDER BY seq ${order} LIMIT ? OFFSET ?`).all(...args, q.rows, q.offset) as { record: string }[]
    return { total, records: rows.map((r) => JSON.parse(r.record) as StoredCommand) }
  }

  command(handle: string, seq: number): StoredCommand | undefined {
    const row = this.db.prepare('SELECT record FROM ca_history WHERE handle = ? AND seq = ?').get(handle, seq) as { record: string } | undefined
    return row && (JSON.parse(row.record) as StoredCommand)
  }

  /** Append a history record; `json` is the record's JSON without `seq` when it is made already (prepareSave). */
  private append(cmd: Omit<StoredCommand, 'seq'>, json?: string): number {
    const last = this.db.prepare('SELECT max(seq) AS seq FROM ca_history WHERE handle = ?').get(cmd.handle) as { seq: number | null }
    const seq = (last.seq ?? 0) + 1
    // `{ ...cmd, seq }` as JSON: seq is the last field.
    const record = json ? `${json.slice(0, -1)},"seq":${seq}}` : JSON.stringify({ ...cmd, seq } satisfies StoredCommand)
    this.db.prepare('INSERT INTO ca_history (handle, seq, time, actor, kind, success, record) VALUES (?, ?, ?, ?, ?, ?, ?)').run(cmd.handle, seq, cmd.time, cmd.actor, cmd.kind, cmd.effect.result === 'success' ? 1 : 0, record)
    return seq
  }
}

/** Rows per statement in writeRows, largest first (1 last: every count is covered); 256 × 3 parameters is within both databases' limits. */
const BATCH_SIZES = [256, 16, 1]

/** `(?, ?), (?, ?), …`: n rows of `width` placeholders. */
function rowsSql(n: number, width: number): string {
  const row = `(${Array(width).fill('?').join(', ')})`
  return Array(n).fill(row).join(', ')
}

/** The snapshot JSON: the state with empty children and routes in their places (the rows hold them). */
function restJson(state: CaState): string {
  return JSON.stringify({ ...state, children: {}, routes: {} })
}

function isPrepared(p: unknown): p is PreparedSave {
  return typeof p === 'object' && p !== null && 'diffs' in p && 'record' in p
}
