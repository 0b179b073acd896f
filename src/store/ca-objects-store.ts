/**
 * The current objects of each CA key (not evented, style.md §9 hybrid rule): per key the manifest/CRL revision and
 * the revocations still to list, and per published file its DER, hash and metadata. Replaced as a whole per CA in
 * one transaction (writing only the rows that changed), so a crash never leaves a manifest that disagrees with the files it lists.
 */
import type { SqlDb } from './sql.js'
import type { CaKeyObjects, CaKeySummary, KeyObjectsState, StoredCaObject, StoredObjectSummary } from '../ca/object-model.js'
import type { CaObjectsStore } from './interfaces.js'

export class SqlCaObjectsStore implements CaObjectsStore {
  constructor(private readonly db: SqlDb) {}

  load(handle: string): CaKeyObjects[] {
    const keys = this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ? ORDER BY key_id').all(handle) as { key_id: string; state: string }[]
    const rows = this.db.prepare('SELECT key_id, name, kind, der, hash, not_after, meta FROM ca_objects WHERE handle = ? ORDER BY key_id, name').all(handle) as {
      key_id: string; name: string; kind: StoredCaObject['kind']; der: Uint8Array; hash: string; not_after: string; meta: string
    }[]
    const byKey = new Map<string, StoredCaObject[]>(keys.map((k) => [k.key_id, []]))
    for (const r of rows) byKey.get(r.key_id)?.push({ name: r.name, kind: r.kind, der: new Uint8Array(r.der), hash: r.hash, notAfter: r.not_after, meta: JSON.parse(r.meta) })
    return keys.map((k) => ({ keyId: k.key_id, state: JSON.parse(k.state) as KeyObjectsState, objects: byKey.get(k.key_id)! }))
  }

  summaries(handle: string): CaKeySummary[] {
    const keys = this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ? ORDER BY key_id').all(handle) as { key_id: string; state: string }[]
    const rows = this.db.prepare('SELECT key_id, name, kind, hash, not_after, meta FROM ca_objects WHERE handle = ? ORDER BY key_id, name').all(handle) as {
      key_id: string; name: string; kind: StoredCaObject['kind']; hash: string; not_after: string; meta: string
    }[]
    const byKey = new Map<string, StoredObjectSummary[]>(keys.map((k) => [k.key_id, []]))
    for (const r of rows) byKey.get(r.key_id)?.push({ name: r.name, kind: r.kind, hash: r.hash, notAfter: r.not_after, meta: JSON.parse(r.meta) })
    return keys.map((k) => ({ keyId: k.key_id, state: JSON.parse(k.state) as KeyObjectsState, objects: byKey.get(k.key_id)! }))
  }

  /**
   * What changes whenever any of the CA's objects changes: every change re-signs the key's manifest, so the keys and
   * their manifest numbers (cheap to read: no object bytes) identify the stored objects.
   */
  revisions(handle: string): string {
    const keys = this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ? ORDER BY key_id').all(handle) as { key_id: string; state: string }[]
    return keys.map((k) => `${k.key_id}:${(JSON.parse(k.state) as KeyObjectsState).revision}`).join(',')
  }

  /** The CA's ROAs without their bytes (name, hash, metadata) with the class of the key that signed them. */
  roas(handle: string): { keyId: string; className: string; name: string; hash: string; meta: StoredCaObject['meta'] }[] {
    const classes = new Map((this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ?').all(handle) as { key_id: string; state: string }[]).map((k) => [k.key_id, (JSON.parse(k.state) as KeyObjectsState).className]))
    const rows = this.db.prepare("SELECT key_id, name, hash, meta FROM ca_objects WHERE handle = ? AND kind = 'roa' ORDER BY key_id, name").all(handle) as { key_id: string; name: string; hash: string; meta: string }[]
    return rows.filter((r) => classes.has(r.key_id)).map((r) => ({ keyId: r.key_id, className: classes.get(r.key_id)!, name: r.name, hash: r.hash, meta: JSON.parse(r.meta) as StoredCaObject['meta'] }))
  }

  /** The bytes of one object, or undefined when it is gone. */
  der(handle: string, keyId: string, name: string): Uint8Array | undefined {
    const row = this.db.prepare('SELECT der FROM ca_objects WHERE handle = ? AND key_id = ? AND name = ?').get(handle, keyId, name) as { der: Uint8Array } | undefined
    return row && new Uint8Array(row.der)
  }

  /** How many objects of each kind every CA has: one aggregate query over the index, no bytes or JSON read. */
  counts(): { handle: string; kind: StoredCaObject['kind']; count: number }[] {
    const rows = this.db.prepare('SELECT handle, kind, count(*) AS n FROM ca_objects GROUP BY handle, kind ORDER BY handle, kind').all() as { handle: string; kind: StoredCaObject['kind']; n: number | string }[]
    return rows.map((r) => ({ handle: r.handle, kind: r.kind, count: Number(r.n) }))
  }

  /**
   * Replace everything stored for a CA's keys with `keys`, atomically, writing only what changed: key rows whose
   * state JSON differs, objects new or differing (hash, kind, validity or metadata), and deletes for the rest.
   */
  save(handle: string, keys: readonly CaKeyObjects[]): void {
    this.db.transaction(() => {
      const storedKeys = new Map((this.db.prepare('SELECT key_id, state FROM ca_keys WHERE handle = ?').all(handle) as { key_id: string; state: string }[]).map((k) => [k.key_id, k.state]))
      const storedObjects = new Map(
        (this.db.prepare('SELECT key_id, name, kind, hash, not_after, meta FROM ca_objects WHERE handle = ?').all(handle) as { key_id: string; name: string; kind: string; hash: string; not_after: string; meta: string }[]).map((o) => [
          objectKey(o.key_id, o.name),
          `${o.kind}\n${o.hash}\n${o.not_after}\n${o.meta}`,
        ]),
      )
      const putKey = this.db.prepare('INSERT INTO ca_keys (handle, key_id, state) VALUES (?, ?, ?) ON CONFLICT (handle, key_id) DO UPDATE SET state = excluded.state')
      const putObject = this.db.prepare(
        'INSERT INTO ca_objects (handle, key_id, name, kind, der, hash, not_after, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (handle, key_id, name) DO UPDATE SET kind = excluded.kind, der = excluded.der, hash = excluded.hash, not_after = excluded.not_after, meta = excluded.meta',
      )
      const keep = new Set<string>()
      for (const k of keys) {
        const state = JSON.stringify(k.state)
        if (storedKeys.get(k.keyId) !== state) putKey.run(handle, k.keyId, state)
        storedKeys.delete(k.keyId)
        for (const o of k.objects) {
          const id = objectKey(k.keyId, o.name)
          const meta = JSON.stringify(o.meta)
          if (storedObjects.get(id) !== `${o.kind}\n${o.hash}\n${o.notAfter}\n${meta}`) putObject.run(handle, k.keyId, o.name, o.kind, o.der, o.hash, o.notAfter, meta)
          keep.add(id)
        }
      }
      const delKey = this.db.prepare('DELETE FROM ca_keys WHERE handle = ? AND key_id = ?')
      for (const keyId of storedKeys.keys()) delKey.run(handle, keyId)
      const delObject = this.db.prepare('DELETE FROM ca_objects WHERE handle = ? AND key_id = ? AND name = ?')
      for (const id of storedObjects.keys()) {
        if (keep.has(id)) continue
        const [keyId, name] = id.split('\0')
        delObject.run(handle, keyId, name)
      }
    })
  }
}

/** The identity of an object in a CA: its key and file name (neither holds a NUL). */
function objectKey(keyId: string, name: string): string {
  return `${keyId}\0${name}`
}
