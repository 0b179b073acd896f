/** Login sessions in SQL (design.md §9; migration 9): one row per session, under the SHA-256 of its secret. */
import type { SessionStore, StoredSession } from './interfaces.js'
import type { SqlDb } from './sql.js'

interface Row {
  id: string
  user_id: string
  provider: string
  role: string
  created: number | string
  last_seen: number | string
  expires: number | string
  revoked: number | string | null
  data: string
}

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: SqlDb) {}

  create(s: StoredSession): void {
    this.db
      .prepare('INSERT INTO auth_sessions (id, user_id, provider, role, created, last_seen, expires, revoked, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(s.id, s.userId, s.provider, s.role, s.created, s.lastSeen, s.expires, s.revoked ?? null, JSON.stringify(s.data))
  }

  get(id: string): StoredSession | undefined {
    const r = this.db.prepare('SELECT * FROM auth_sessions WHERE id = ?').get(id) as Row | undefined
    return r && fromRow(r)
  }

  touch(id: string, time: number): void {
    this.db.prepare('UPDATE auth_sessions SET last_seen = ? WHERE id = ? AND last_seen < ?').run(time, id, time)
  }

  revoke(id: string, time: number): boolean {
    return this.db.prepare('UPDATE auth_sessions SET revoked = ? WHERE id = ? AND revoked IS NULL').run(time, id).changes > 0
  }

  revokeUser(userId: string, provider: string, time: number): number {
    return this.db.prepare('UPDATE auth_sessions SET revoked = ? WHERE user_id = ? AND provider = ? AND revoked IS NULL AND expires > ?').run(time, userId, provider, time).changes
  }

  purge(time: number): number {
    return this.db.prepare('DELETE FROM auth_sessions WHERE expires < ? OR revoked < ?').run(time, time).changes
  }
}

function fromRow(r: Row): StoredSession {
  return {
    id: r.id,
    userId: r.user_id,
    provider: r.provider,
    role: r.role,
    created: Number(r.created),
    lastSeen: Number(r.last_seen),
    expires: Number(r.expires),
    revoked: r.revoked === null ? undefined : Number(r.revoked),
    data: JSON.parse(r.data) as Record<string, string>,
  }
}
