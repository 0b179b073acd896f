/**
 * OpenID Connect logins under way in SQL (design.md §9; migration 9, table `auth_logins`): the PKCE verifier and the
 * nonce of an authorization request, under the SHA-256 of its state, so that any instance of a cluster can take the
 * provider's callback. A row is taken (read and deleted in one statement) at most once.
 */
import type { LoginStore, StoredLogin } from './interfaces.js'
import type { SqlDb } from './sql.js'

interface Row {
  id: string
  verifier: string
  nonce: string
  created: number | string
  data: string
}

export class SqlLoginStore implements LoginStore {
  constructor(private readonly db: SqlDb) {}

  create(l: StoredLogin): void {
    this.db.prepare('INSERT INTO auth_logins (id, verifier, nonce, created, data) VALUES (?, ?, ?, ?, ?)').run(l.id, l.verifier, l.nonce, l.created, JSON.stringify(l.data))
  }

  take(id: string): StoredLogin | undefined {
    const r = this.db.prepare('DELETE FROM auth_logins WHERE id = ? RETURNING id, verifier, nonce, created, data').get(id) as Row | undefined
    return r && { id: r.id, verifier: r.verifier, nonce: r.nonce, created: Number(r.created), data: JSON.parse(r.data) as Record<string, string> }
  }

  purge(time: number): number {
    return this.db.prepare('DELETE FROM auth_logins WHERE created < ?').run(time).changes
  }
}
