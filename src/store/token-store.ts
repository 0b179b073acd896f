/**
 * Scoped API tokens in SQL (design.md §9; migration 9 `api_tokens`): one row per token under its public id, with the
 * SHA-256 of its secret, never the secret. Read on every request that carries a token (no cache), so a revocation
 * holds at once on every instance on the database.
 */
import type { StoredToken, StoredTokenRole, TokenStore } from './interfaces.js'
import type { SqlDb } from './sql.js'

interface Row {
  id: string
  name: string
  owner: string
  owner_provider: string
  role: string
  secret_hash: string
  created: number | string
  expires: number | string | null
  last_used: number | string | null
  revoked: number | string | null
}

export class SqlTokenStore implements TokenStore {
  constructor(private readonly db: SqlDb) {}

  create(t: StoredToken, now: number): boolean {
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM api_tokens WHERE owner = ? AND name = ? AND (revoked IS NOT NULL OR expires <= ?)').run(t.owner, t.name, now)
      return this.db
        .prepare('INSERT INTO api_tokens (id, name, owner, owner_provider, role, secret_hash, created, expires, last_used, revoked) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING')
        .run(t.id, t.name, t.owner, t.ownerProvider, JSON.stringify(t.role), t.secretHash, t.created, t.expires ?? null, t.lastUsed ?? null, t.revoked ?? null).changes > 0
    })
  }

  get(id: string): StoredToken | undefined {
    const r = this.db.prepare('SELECT * FROM api_tokens WHERE id = ?').get(id) as Row | undefined
    return r && fromRow(r)
  }

  secretHash(id: string): string {
    const r = this.db.prepare("SELECT COALESCE((SELECT secret_hash FROM api_tokens WHERE id = ?), '') AS h").get(id) as { h: string }
    return r.h
  }

  list(owner?: { owner: string; provider: string }): StoredToken[] {
    const rows = owner
      ? this.db.prepare('SELECT * FROM api_tokens WHERE owner = ? AND owner_provider = ? ORDER BY created, id').all(owner.owner, owner.provider)
      : this.db.prepare('SELECT * FROM api_tokens ORDER BY created, id').all()
    return (rows as Row[]).map(fromRow)
  }

  touch(id: string, time: number): void {
    this.db.prepare('UPDATE api_tokens SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)').run(time, id, time)
  }

  revoke(id: string, time: number): boolean {
    return this.db.prepare('UPDATE api_tokens SET revoked = ? WHERE id = ? AND revoked IS NULL').run(time, id).changes > 0
  }
}

const num = (v: number | string | null): number | undefined => (v === null ? undefined : Number(v))

function fromRow(r: Row): StoredToken {
  return {
    id: r.id,
    name: r.name,
    owner: r.owner,
    ownerProvider: r.owner_provider,
    role: JSON.parse(r.role) as StoredTokenRole,
    secretHash: r.secret_hash,
    created: Number(r.created),
    expires: num(r.expires),
    lastUsed: num(r.last_used),
    revoked: num(r.revoked),
  }
}
