/**
 * The key-encryption key (issue 14 item 3): 32 random bytes in the file named by `key_encryption_key_file`, as 64
 * hex digits or base64 (`openssl rand -hex 32`). The file must be a regular file readable by its owner only (mode
 * 0600 or 0400): anything else is refused at start, before the database is touched. The key is held as a secret
 * KeyObject; it shows only as `KeyEncryptionKey(<file>)` in logs, errors and inspect output.
 */
import { createSecretKey, type KeyObject } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { inspect } from 'node:util'
import { StoreError } from './sql.js'

export class KeyEncryptionKey {
  readonly #key: KeyObject
  readonly file: string

  private constructor(file: string, key: KeyObject) {
    this.file = file
    this.#key = key
  }

  /** Read and check the file; throws a StoreError naming the file and the problem (never its content). */
  static read(file: string): KeyEncryptionKey {
    let st
    try {
      st = statSync(file)
    } catch (e) {
      throw new StoreError(`cannot read the key-encryption key file '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
    }
    if (!st.isFile()) throw new StoreError(`the key-encryption key file '${file}' is not a regular file`)
    const mode = st.mode & 0o777
    if ((mode & 0o077) !== 0) {
      throw new StoreError(`the key-encryption key file '${file}' has mode 0${mode.toString(8)}; it must be 0600 (readable by the svcd user only): chmod 600 '${file}'`)
    }
    const text = readFileSync(file, 'latin1').trim()
    const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/]{43}=$/.test(text) ? Buffer.from(text, 'base64') : undefined
    if (bytes?.length !== 32) throw new StoreError(`the key-encryption key file '${file}' must hold 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)`)
    const key = new KeyEncryptionKey(file, createSecretKey(bytes))
    bytes.fill(0)
    return key
  }

  /** The AES-256 key, for the key store's cipher only. */
  secret(): KeyObject {
    return this.#key
  }

  toJSON(): string {
    return this.toString()
  }

  toString(): string {
    return `KeyEncryptionKey(${this.file})`
  }

  [inspect.custom](): string {
    return this.toString()
  }
}
