/**
 * The current objects of each CA key (not evented, style.md §9 hybrid rule): per key the manifest/CRL revision and
 * the revocations still to list, and per published file its DER, hash and metadata. Replaced as a whole per CA in
 * one transaction, so a crash never leaves a manifest that disagrees with the files it lists.
 */
import type { Db } from './db.js'

/** Stored in ca_keys.state: changing this shape needs a migration. */
export interface KeyObjectsState {
  className: string
  /** The directory the objects were made for (the class dir in the CA's jail): all objects change when it moves. */
  dir: string
  /** The shared manifest number and CRL number (krill-reference.md §3), as a decimal string. */
  revision: string
  thisUpdate: string
  nextUpdate: string
  /** Serials to list on the CRL until the revoked certificate expires. */
  revocations: { serial: string; date: string; expires: string }[]
  roaMode: 'simple' | 'aggregate'
}

/** A published file of a key. `meta` is kind-specific (ROA payload keys, child handle, EE serial). */
export interface StoredCaObject {
  name: string
  kind: 'mft' | 'crl' | 'roa' | 'cer'
  der: Uint8Array
  hash: string
  notAfter: string
  /** Stored in ca_objects.meta: changing this shape needs a migration. */
  meta: { serial: string; payloads?: string[]; child?: string }
}

export interface CaKeyObjects {
  keyId: string
  state: KeyObjectsState
  objects: StoredCaObject[]
}

export class CaObjectsStore {
  constructor(private readonly db: Db) {}

  load(handle: string): CaKeyObjects[] {
    const keys = this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ? ORDER BY key_id').all(handle) as { key_id: string; state: string }[]
    const rows = this.db.prepare('SELECT key_id, name, kind, der, hash, not_after, meta FROM ca_objects WHERE handle = ? ORDER BY key_id, name').all(handle) as {
      key_id: string; name: string; kind: StoredCaObject['kind']; der: Uint8Array; hash: string; not_after: string; meta: string
    }[]
    return keys.map((k) => ({
      keyId: k.key_id,
      state: JSON.parse(k.state) as KeyObjectsState,
      objects: rows.filter((r) => r.key_id === k.key_id).map((r) => ({ name: r.name, kind: r.kind, der: new Uint8Array(r.der), hash: r.hash, notAfter: r.not_after, meta: JSON.parse(r.meta) })),
    }))
  }

  /** Replace everything stored for a CA's keys with `keys`, atomically. */
  save(handle: string, keys: readonly CaKeyObjects[]): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM ca_keys WHERE handle = ?').run(handle)
      this.db.prepare('DELETE FROM ca_objects WHERE handle = ?').run(handle)
      const key = this.db.prepare('INSERT INTO ca_keys (handle, key_id, state) VALUES (?, ?, ?)')
      const obj = this.db.prepare('INSERT INTO ca_objects (handle, key_id, name, kind, der, hash, not_after, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      for (const k of keys) {
        key.run(handle, k.keyId, JSON.stringify(k.state))
        for (const o of k.objects) obj.run(handle, k.keyId, o.name, o.kind, o.der, o.hash, o.notAfter, JSON.stringify(o.meta))
      }
    })
  }
}
