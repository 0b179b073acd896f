/**
 * SQLite storage of CAs: snapshots and history (the AggregateStore of eventsourcing.ts), with paging and time
 * filters for `svcc history`. Snapshots are JSON of the CA state; history records are StoredCommand JSON.
 */
import type { StoredCommand } from '../eventsourcing.js'
import type { CaState } from '../ca/state.js'
import type { CaStore, HistoryQuery } from './interfaces.js'
import { StoreError, type Db } from './db.js'

export class SqliteCaStore implements CaStore {
  constructor(private readonly db: Db) {}

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

  load(handle: string): { version: number; state: CaState } | undefined {
    const row = this.db.prepare('SELECT version, state FROM ca_snapshots WHERE handle = ?').get(handle) as { version: number; state: string } | undefined
    return row && { version: row.version, state: JSON.parse(row.state) as CaState }
  }

  /** Create a CA: its first history entry and snapshot at version 1, in one transaction. */
  create(cmd: Omit<StoredCommand, 'seq'>, state: CaState): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO ca_snapshots (handle, version, state) VALUES (?, 1, ?)').run(cmd.handle, JSON.stringify(state))
      this.append(cmd)
    })
  }

  save(cmd: Omit<StoredCommand, 'seq'>, state: CaState | undefined, expectedVersion: number): number {
    return this.db.transaction(() => {
      if (state !== undefined) {
        const r = this.db.prepare('UPDATE ca_snapshots SET version = ?, state = ? WHERE handle = ? AND version = ?').run(expectedVersion + 1, JSON.stringify(state), cmd.handle, expectedVersion)
        if (r.changes !== 1) throw new StoreError(`CA '${cmd.handle}' changed concurrently (expected version ${expectedVersion})`)
      }
      return this.append(cmd)
    })
  }

  /** Remove a CA with its history, objects and status. */
  remove(handle: string): void {
    this.db.transaction(() => {
      for (const table of ['ca_snapshots', 'ca_history', 'ca_keys', 'ca_objects', 'ca_status']) this.db.prepare(`DELETE FROM ${table} WHERE handle = ?`).run(handle)
    })
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
