/**
 * Which signer holds which key, in SQL (design.md §10; SQLite migration 11, PostgreSQL 8). Read by
 * crypto/signer-set.ts to send each key's signatures to its signer; written when a key is made or destroyed, and at
 * start when a configured signer is seen under its handle (its name may have changed).
 */
import type { SignerRecord, SignerRegistryStore } from './signer-interfaces.js'
import type { SqlDb } from './sql.js'

interface Row {
  handle: string
  name: string
  type: string
  info: string
  seen: number | string
}

export class SqlSignerStore implements SignerRegistryStore {
  constructor(private readonly db: SqlDb) {}

  saveSigner(r: SignerRecord): void {
    this.db.prepare(`INSERT INTO signers (handle, name, type, info, seen) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (handle) DO UPDATE SET name = excluded.name, type = excluded.type, info = excluded.info, seen = excluded.seen`)
      .run(r.handle, r.name, r.type, JSON.stringify(r.info), r.seen)
  }

  signers(): SignerRecord[] {
    const rows = this.db.prepare('SELECT handle, name, type, info, seen FROM signers ORDER BY name').all() as Row[]
    return rows.map((r) => ({ handle: r.handle, name: r.name, type: r.type, info: JSON.parse(r.info) as Record<string, string>, seen: Number(r.seen) }))
  }

  keyHandle(keyId: string): string | undefined {
    const r = this.db.prepare('SELECT handle FROM key_signers WHERE key_id = ?').get(keyId) as { handle: string } | undefined
    return r?.handle
  }

  recordKey(keyId: string, handle: string, created: number): void {
    this.db.prepare('INSERT INTO key_signers (key_id, handle, created) VALUES (?, ?, ?) ON CONFLICT (key_id) DO UPDATE SET handle = excluded.handle').run(keyId, handle, created)
  }

  forgetKey(keyId: string): void {
    this.db.prepare('DELETE FROM key_signers WHERE key_id = ?').run(keyId)
  }

  countKeys(): Record<string, number> {
    const rows = this.db.prepare('SELECT handle, COUNT(*) AS n FROM key_signers GROUP BY handle').all() as { handle: string; n: number | string }[]
    return Object.fromEntries(rows.map((r) => [r.handle, Number(r.n)]))
  }
}
