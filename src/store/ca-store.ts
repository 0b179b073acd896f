/**
 * SQLite storage of CAs: snapshots and history (the AggregateStore of eventsourcing.ts), with paging and time
 * filters for `svcc history`. A CA's state is its snapshot row (JSON of the state without children and routes) plus
 * a row per child and per configured ROA (migration 006), so a command writes only the rows it changed. The last
 * state loaded or saved is cached per CA, deep-frozen, and handed out as long as the stored version and tag match.
 */
import { randomUUID } from 'node:crypto'
import type { StoredCommand } from '../eventsourcing.js'
import type { CaState } from '../ca/state.js'
import type { CaStore, HistoryQuery } from './interfaces.js'
import { StoreError, type SqlDb } from './sql.js'

/** The rows of one kind (children or routes): key → JSON text as stored, and the frozen value it parses to. */
type Rows = Map<string, { json: string; value: unknown }>

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

export class SqliteCaStore implements CaStore {
  private readonly cache = new Map<string, Cached>()

  constructor(private readonly db: SqlDb) {}

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
    if (hit && hit.version === head.version && hit.tag === head.tag) return { version: hit.version, state: hit.state }
    const row = this.db.prepare('SELECT state FROM ca_snapshots WHERE handle = ?').get(handle) as { state: string }
    const [children, routes] = ROW_TABLES.map((t) => {
      const rows: Rows = new Map()
      for (const r of this.rowsOf(t, handle)) rows.set(r.k, { json: r.v, value: deepFreeze(JSON.parse(r.v)) })
      return rows
    })
    const entry = this.assemble(handle, head.version, head.tag, row.state, children, routes)
    return { version: entry.version, state: entry.state }
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
   * Append the command and, with a state, write the snapshot row at version + 1 and the child and route rows that
   * differ from the stored ones (compared with the cached rows when the cache holds the stored version).
   */
  save(cmd: Omit<StoredCommand, 'seq'>, state: CaState | undefined, expectedVersion: number): number {
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
      const rest = restJson(state)
      const tag = randomUUID()
      // The snapshot row first, on the condition of the version read: with PostgreSQL a concurrent save by another
      // instance holds the row until it commits, and then this one changes nothing (and nothing else is written).
      const updated = this.db.prepare('UPDATE ca_snapshots SET version = ?, state = ?, tag = ? WHERE handle = ? AND version = ?').run(expectedVersion + 1, rest, tag, handle, expectedVersion)
      if (updated.changes !== 1) {
        this.cache.delete(handle)
        throw new StoreError(`CA '${handle}' changed concurrently (expected version ${expectedVersion})`)
      }
      const [children, routes] = ROW_TABLES.map((t) => this.writeRows(t, handle, state[t.field] ?? {}, base?.[t.field]))
      const seq = this.append(cmd)
      // Cached only once every write succeeded; a rollback of an enclosing transaction leaves a tag nobody stores.
      this.assemble(handle, expectedVersion + 1, tag, rest, children, routes)
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

  /**
   * Write the rows of `values` that differ from `base` (the cached rows) or, without a base, from the stored rows;
   * delete the rows no longer there. Returns the rows now stored, reusing the frozen values of unchanged ones.
   */
  private writeRows(t: (typeof ROW_TABLES)[number], handle: string, values: Record<string, unknown>, base: Rows | undefined): Rows {
    const stored: Map<string, { json: string; value?: unknown }> = base ?? new Map(this.rowsOf(t, handle).map((r) => [r.k, { json: r.v }]))
    const upsert = this.db.prepare(`INSERT INTO ${t.table} (handle, ${t.key}, ${t.value}) VALUES (?, ?, ?) ON CONFLICT (handle, ${t.key}) DO UPDATE SET ${t.value} = excluded.${t.value}`)
    const out: Rows = new Map()
    for (const [k, v] of Object.entries(values)) {
      const old = stored.get(k)
      // Unchanged rows are recognised without serialising them when the cache holds their value.
      if (old?.value !== undefined && jsonEqual(old.value, v)) {
        out.set(k, { json: old.json, value: old.value })
        continue
      }
      const json = JSON.stringify(v)
      if (old?.json !== json) upsert.run(handle, k, json)
      out.set(k, { json, value: undefined })
    }
    const del = this.db.prepare(`DELETE FROM ${t.table} WHERE handle = ? AND ${t.key} = ?`)
    for (const k of stored.keys()) if (!out.has(k)) del.run(handle, k)
    return out
  }

  /** Build the frozen state from the snapshot JSON and the rows (sorted by key), and cache it. */
  private assemble(handle: string, version: number, tag: string, rest: string, children: Rows, routes: Rows): Cached {
    const state = JSON.parse(rest) as CaState
    const rows = { children, routes }
    for (const t of ROW_TABLES) {
      const obj: Record<string, unknown> = {}
      for (const k of [...rows[t.field].keys()].sort()) {
        const r = rows[t.field].get(k)!
        if (r.value === undefined) r.value = deepFreeze(JSON.parse(r.json))
        obj[k] = r.value
      }
      ;(state as unknown as Record<string, unknown>)[t.field] = obj
    }
    const entry: Cached = { version, tag, state: deepFreeze(state), children, routes }
    this.cache.set(handle, entry)
    return entry
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
    const clause = where.join(' AND ')
    const total = (this.db.prepare(`SELECT count(*) AS n FROM ca_history WHERE ${clause}`).get(...args) as { n: number }).n
    const rows = this.db.prepare(`SELECT record FROM ca_history WHERE ${clause} ORDER BY seq LIMIT ? OFFSET ?`).all(...args, q.rows, q.offset) as { record: string }[]
    return { total, records: rows.map((r) => JSON.parse(r.record) as StoredCommand) }
  }

  command(handle: string, seq: number): StoredCommand | undefined {
    const row = this.db.prepare('SELECT record FROM ca_history WHERE handle = ? AND seq = ?').get(handle, seq) as { record: string } | undefined
    return row && (JSON.parse(row.record) as StoredCommand)
  }

  private append(cmd: Omit<StoredCommand, 'seq'>): number {
    const last = this.db.prepare('SELECT max(seq) AS seq FROM ca_history WHERE handle = ?').get(cmd.handle) as { seq: number | null }
    const seq = (last.seq ?? 0) + 1
    const record: StoredCommand = { ...cmd, seq }
    this.db.prepare('INSERT INTO ca_history (handle, seq, time, actor, kind, success, record) VALUES (?, ?, ?, ?, ?, ?, ?)').run(cmd.handle, seq, cmd.time, cmd.actor, cmd.kind, cmd.effect.result === 'success' ? 1 : 0, JSON.stringify(record))
    return seq
  }
}

/** The snapshot JSON: the state with empty children and routes in their places (the rows hold them). */
function restJson(state: CaState): string {
  return JSON.stringify({ ...state, children: {}, routes: {} })
}

/** Freeze `v` and everything reachable from it. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v as object)) deepFreeze(x)
  }
  return v
}

/** Equality as JSON sees it (a field holding undefined is no field): `a` is parsed JSON, `b` any JSON-able value. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i] === undefined ? null : bb[i]))
  }
  if (typeof (b as { toJSON?: unknown }).toJSON === 'function') return false
  const ao = a as Record<string, unknown>
  const bo = b as Record<string, unknown>
  let n = 0
  for (const k in bo) {
    const bv = bo[k]
    if (bv === undefined || typeof bv === 'function') continue
    n++
    if (!(k in ao) || !jsonEqual(ao[k], bv)) return false
  }
  return n === Object.keys(ao).length
}
