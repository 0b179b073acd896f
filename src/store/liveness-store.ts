/**
 * The liveness service's state in SQL (design.md §11; SQLite migration 12, PostgreSQL 9): one row per CA, the JSON of
 * StoredLiveness. Written by the leader after each check, read by every instance (GET /api/v1/health/cas).
 */
import type { LivenessStore, StoredLiveness } from './liveness-interfaces.js'
import type { SqlDb } from './sql.js'

export class SqlLivenessStore implements LivenessStore {
  constructor(private readonly db: SqlDb) {}

  all(): StoredLiveness[] {
    const rows = this.db.prepare('SELECT state FROM liveness_state ORDER BY ca').all() as { state: string }[]
    return rows.map((r) => JSON.parse(r.state) as StoredLiveness)
  }

  save(rows: readonly StoredLiveness[], keep: readonly string[]): void {
    this.db.transaction(() => {
      const upsert = this.db.prepare(`INSERT INTO liveness_state (ca, checked_at, state) VALUES (?, ?, ?)
        ON CONFLICT (ca) DO UPDATE SET checked_at = excluded.checked_at, state = excluded.state`)
      for (const r of rows) upsert.run(r.liveness.ca, r.liveness.checkedAt ?? 0, JSON.stringify(r))
      const known = new Set(keep)
      const held = this.db.prepare('SELECT ca FROM liveness_state').all() as { ca: string }[]
      const remove = this.db.prepare('DELETE FROM liveness_state WHERE ca = ?')
      for (const h of held) if (!known.has(h.ca)) remove.run(h.ca)
    })
  }
}
