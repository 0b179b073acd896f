/**
 * FileKeyStore: the soft signer's private keys on disk (design.md "Signer"), one file per key named by its KeyId,
 * holding base64 PKCS#8 DER, mode 0600 in a directory created 0700. Writes are atomic (temp file, fsync, rename,
 * fsync of the directory). Wired by main.ts into SoftSigner; errors name the KeyId or path, never key material.
 */
import {
  closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { isKeyId, type KeyId } from '../crypto/key-id.js'
import type { KeyStore } from '../crypto/signer.js'
import { fromBase64, toBase64 } from '../util/base64.js'

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code
}

export class FileKeyStore implements KeyStore {
  readonly dir: string

  /** Opens (and creates, mode 0700) the key directory. */
  constructor(dir: string) {
    this.dir = dir
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  }

  put(keyId: KeyId, pkcs8Der: Uint8Array): void {
    const path = this.path(keyId)
    const tmp = join(this.dir, `.${keyId}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
    const fd = openSync(tmp, 'wx', 0o600)
    try {
      try {
        writeFileSync(fd, toBase64(pkcs8Der) + '\n')
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, path)
    } catch (e) {
      rmSync(tmp, { force: true })
      throw e
    }
    this.syncDir()
  }

  get(keyId: KeyId): Uint8Array | undefined {
    let text: string
    try {
      text = readFileSync(this.path(keyId), 'latin1')
    } catch (e) {
      if (errno(e) === 'ENOENT') return undefined
      throw e
    }
    try {
      return fromBase64(text)
    } catch {
      throw new Error(`key file for ${keyId} in ${this.dir} is not base64`)
    }
  }

  delete(keyId: KeyId): void {
    try {
      unlinkSync(this.path(keyId))
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e
      return
    }
    this.syncDir()
  }

  list(): KeyId[] {
    return readdirSync(this.dir).filter(isKeyId).sort()
  }

  [inspect.custom](): string {
    return `FileKeyStore(${this.dir})`
  }

  /** The file of a key; refuses anything but 40 uppercase hex digits (no path tricks). */
  private path(keyId: KeyId): string {
    if (!isKeyId(keyId)) throw new RangeError(`key id ${JSON.stringify(keyId)} is not 40 uppercase hex digits`)
    return join(this.dir, keyId)
  }

  private syncDir(): void {
    const fd = openSync(this.dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}
