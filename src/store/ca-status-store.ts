/**
 * Exchange status of CAs (krill-reference.md §1.1 "issues", "parents statuses", "repo status"): the last exchange
 * with each parent and with the repository, success or failure with a labelled reason. A failure is a CA issue
 * until the next success clears it.
 */
import type { SqlDb } from './sql.js'
import type { CaStatusStore, ExchangeStatus, StatusKind } from './interfaces.js'

export class SqlCaStatusStore implements CaStatusStore {
  constructor(private readonly db: SqlDb) {}

  get(handle: string, kind: StatusKind, name: string): ExchangeStatus | undefined {
    const r = this.db.prepare('SELECT status FROM ca_status WHERE handle = ? AND kind = ? AND name = ?').get(handle, kind, name) as { status: string } | undefined
    return r && (JSON.parse(r.status) as ExchangeStatus)
  }

  all(handle: string, kind?: StatusKind): { kind: StatusKind; name: string; status: ExchangeStatus }[] {
    const rows = (kind
      ? this.db.prepare('SELECT kind, name, status FROM ca_status WHERE handle = ? AND kind = ? ORDER BY kind, name').all(handle, kind)
      : this.db.prepare('SELECT kind, name, status FROM ca_status WHERE handle = ? ORDER BY kind, name').all(handle)) as { kind: StatusKind; name: string; status: string }[]
    return rows.map((r) => ({ kind: r.kind, name: r.name, status: JSON.parse(r.status) as ExchangeStatus }))
  }

  /** Record an exchange; a success keeps nothing of an earlier failure (the issue is cleared). */
  record(handle: string, kind: StatusKind, name: string, s: Omit<ExchangeStatus, 'lastSuccess'>): void {
    const prev = this.get(handle, kind, name)
    const status: ExchangeStatus = { ...s, ...(s.result === 'success' ? { lastSuccess: s.time } : prev?.lastSuccess ? { lastSuccess: prev.lastSuccess } : {}) }
    this.db.prepare('INSERT INTO ca_status (handle, kind, name, status) VALUES (?, ?, ?, ?) ON CONFLICT(handle, kind, name) DO UPDATE SET status = excluded.status').run(handle, kind, name, JSON.stringify(status))
  }

  remove(handle: string, kind: StatusKind, name: string): void {
    this.db.prepare('DELETE FROM ca_status WHERE handle = ? AND kind = ? AND name = ?').run(handle, kind, name)
  }
}
