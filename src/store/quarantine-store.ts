/** The quarantine in SQL (migration 14, PostgreSQL m011): one row per item set aside, by (what, subject). */
import type { QuarantineStore, QuarantinedItem } from './quarantine-interfaces.js'
import type { SqlDb } from './sql.js'

export class SqlQuarantineStore implements QuarantineStore {
  constructor(private readonly db: SqlDb) {}

  put(item: Omit<QuarantinedItem, 'id'>): void {
    this.db
      .prepare('INSERT INTO quarantine (what, subject, reason, raw, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(what, subject) DO UPDATE SET reason = excluded.reason, raw = excluded.raw')
      .run(item.what, item.subject, item.reason, item.raw, Math.round(item.at))
  }

  list(): QuarantinedItem[] {
    return (this.db.prepare('SELECT * FROM quarantine ORDER BY id').all() as QuarantinedItem[]).map(row)
  }

  get(id: number): QuarantinedItem | undefined {
    const r = this.db.prepare('SELECT * FROM quarantine WHERE id = ?').get(id) as QuarantinedItem | undefined
    return r && row(r)
  }

  drop(id: number): boolean {
    return this.db.prepare('DELETE FROM quarantine WHERE id = ?').run(id).changes > 0
  }
}

/** PostgreSQL answers bigint columns as strings. */
function row(r: QuarantinedItem): QuarantinedItem {
  return { ...r, id: Number(r.id), at: Number(r.at) }
}
