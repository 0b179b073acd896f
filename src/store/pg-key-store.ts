/**
 * PgKeyStore: the software signer's private keys in the PostgreSQL database (issue 14 item 3), shared by every svcd
 * on it, each PKCS#8 key sealed with AES-256-GCM under the key-encryption key (kek.ts): a fresh 96-bit nonce per key,
 * the key id as additional data (a sealed key moved to another id does not open), stored as nonce ‖ ciphertext ‖ tag.
 * Plain key material is never written to the database, logs or errors. The database remembers a sealed check value:
 * a key-encryption key that does not open it is refused before anything is written.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { isKeyId, type KeyId } from '../crypto/key-id.js'
import type { KeyStore } from '../crypto/signer.js'
import type { KeyEncryptionKey } from './kek.js'
import { StoreError, type SqlDb } from './sql.js'

const NONCE = 12
const TAG = 16
const CHECK = 'svc key-encryption key check'

/** Seal `plain` under the KEK with `aad` bound to it: nonce ‖ ciphertext ‖ tag. */
export function seal(kek: KeyEncryptionKey, plain: Uint8Array, aad: string): Uint8Array {
  const nonce = randomBytes(NONCE)
  const cipher = createCipheriv('aes-256-gcm', kek.secret(), nonce)
  cipher.setAAD(Buffer.from(aad))
  const body = Buffer.concat([cipher.update(plain), cipher.final()])
  return new Uint8Array(Buffer.concat([nonce, body, cipher.getAuthTag()]))
}

/** Open what `seal` made; undefined when the KEK, the additional data or the bytes do not match. */
export function unseal(kek: KeyEncryptionKey, sealed: Uint8Array, aad: string): Uint8Array | undefined {
  if (sealed.length < NONCE + TAG) return undefined
  const b = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek.secret(), b.subarray(0, NONCE))
    decipher.setAAD(Buffer.from(aad))
    decipher.setAuthTag(b.subarray(b.length - TAG))
    return new Uint8Array(Buffer.concat([decipher.update(b.subarray(NONCE, b.length - TAG)), decipher.final()]))
  } catch {
    return undefined
  }
}

export class PgKeyStore implements KeyStore {
  readonly #kek: KeyEncryptionKey

  /** Checks the KEK against the database's check value (written on first use); throws a StoreError if it does not match. */
  constructor(private readonly db: SqlDb, kek: KeyEncryptionKey) {
    this.#kek = kek
    db.transaction(() => {
      const row = db.prepare('SELECT sealed FROM signer_kek_check WHERE id = 1').get() as { sealed: Uint8Array } | undefined
      if (row) {
        if (unseal(kek, row.sealed, CHECK) === undefined) throw wrongKek(kek)
        return
      }
      // No check value yet: a database whose keys another KEK sealed is refused all the same.
      const any = db.prepare('SELECT key_id, sealed FROM signer_keys ORDER BY key_id LIMIT 1').get() as { key_id: string; sealed: Uint8Array } | undefined
      if (any && unseal(kek, any.sealed, any.key_id) === undefined) throw wrongKek(kek)
      // Instances starting together on an empty database all get here: the first value committed counts (the others'
      // inserts wait for it and do nothing), and each checks its KEK against that one.
      db.prepare('INSERT INTO signer_kek_check (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run(seal(kek, new TextEncoder().encode(CHECK), CHECK))
      const written = db.prepare('SELECT sealed FROM signer_kek_check WHERE id = 1').get() as { sealed: Uint8Array }
      if (unseal(kek, written.sealed, CHECK) === undefined) throw wrongKek(kek)
    })
  }

  put(keyId: KeyId, pkcs8Der: Uint8Array): void {
    this.check(keyId)
    this.db.prepare('INSERT INTO signer_keys (key_id, sealed) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET sealed = excluded.sealed').run(keyId, seal(this.#kek, pkcs8Der, keyId))
  }

  get(keyId: KeyId): Uint8Array | undefined {
    this.check(keyId)
    const row = this.db.prepare('SELECT sealed FROM signer_keys WHERE key_id = ?').get(keyId) as { sealed: Uint8Array } | undefined
    if (!row) return undefined
    const plain = unseal(this.#kek, row.sealed, keyId)
    if (!plain) throw new StoreError(`stored key ${keyId} does not open with the key-encryption key (damaged, or sealed under another key)`)
    return plain
  }

  delete(keyId: KeyId): void {
    this.check(keyId)
    this.db.prepare('DELETE FROM signer_keys WHERE key_id = ?').run(keyId)
  }

  list(): KeyId[] {
    return (this.db.prepare('SELECT key_id FROM signer_keys ORDER BY key_id').all() as { key_id: string }[]).map((r) => r.key_id)
  }

  [inspect.custom](): string {
    return 'PgKeyStore'
  }

  private check(keyId: KeyId): void {
    if (!isKeyId(keyId)) throw new RangeError(`key id ${JSON.stringify(keyId)} is not 40 uppercase hex digits`)
  }
}

function wrongKek(kek: KeyEncryptionKey): StoreError {
  return new StoreError(`the key-encryption key in '${kek.file}' is not the one this database's private keys are sealed with; refusing to start (nothing was written)`)
}
