/**
 * SoftSigner: the software Signer (design.md "Signer"): node:crypto RSA-2048 KeyObjects, persisted as PKCS#8 DER
 * through a KeyStore, cached in memory (no PEM/DER parsing per signature; SPKI exported once). New keys and one-off
 * EE keys come from a KeyPool. MemoryKeyStore is the in-memory KeyStore for tests and tools.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import { inspect } from 'node:util'
import { isKeyId, keyIdentifier, keyIdHex, type KeyId } from './key-id.js'
import type { KeyPool } from './key-pool.js'
import { type KeyStore, type OneOffKey, type Signer, type SigningKey, UnknownKeyError } from './signer.js'

/** A SigningKey over a KeyObject held in a private field: never shown by inspect, JSON or toString. */
class SoftKey implements SigningKey {
  readonly keyId: KeyId
  readonly ski: Uint8Array
  readonly spki: Uint8Array
  #key: KeyObject | undefined

  constructor(privateKey: KeyObject, spki: Uint8Array) {
    this.#key = privateKey
    this.spki = spki
    this.ski = keyIdentifier(spki)
    this.keyId = keyIdHex(this.ski)
  }

  sign(data: Uint8Array): Uint8Array {
    if (this.#key === undefined) throw new Error(`key ${this.keyId} was destroyed`)
    const sig = sign('sha256', data, this.#key)
    return new Uint8Array(sig.buffer, sig.byteOffset, sig.byteLength)
  }

  destroy(): void {
    this.#key = undefined
  }

  toJSON(): { keyId: KeyId } {
    return { keyId: this.keyId }
  }

  toString(): string {
    return `SigningKey(${this.keyId})`
  }

  [inspect.custom](): string {
    return this.toString()
  }
}

export class SoftSigner implements Signer {
  readonly #keys = new Map<KeyId, SoftKey>()
  readonly #store: KeyStore
  readonly #pool: KeyPool

  constructor(store: KeyStore, pool: KeyPool) {
    this.#store = store
    this.#pool = pool
  }

  async createKey(): Promise<KeyId> {
    const pair = await this.#pool.take()
    const key = new SoftKey(pair.privateKey, pair.spki)
    this.#store.put(key.keyId, new Uint8Array(pair.privateKey.export({ type: 'pkcs8', format: 'der' })))
    this.#keys.set(key.keyId, key)
    return key.keyId
  }

  signingKey(keyId: KeyId): SigningKey {
    const cached = this.#keys.get(keyId)
    if (cached !== undefined) return cached
    const der = isKeyId(keyId) ? this.#store.get(keyId) : undefined
    if (der === undefined) throw new UnknownKeyError(keyId)
    const key = loadKey(keyId, der)
    this.#keys.set(keyId, key)
    return key
  }

  hasKey(keyId: KeyId): boolean {
    return this.#keys.has(keyId) || (isKeyId(keyId) && this.#store.get(keyId) !== undefined)
  }

  destroyKey(keyId: KeyId): void {
    this.#keys.get(keyId)?.destroy()
    this.#keys.delete(keyId)
    if (isKeyId(keyId)) this.#store.delete(keyId)
  }

  async oneOffKey(): Promise<OneOffKey> {
    const pair = await this.#pool.take()
    return new SoftKey(pair.privateKey, pair.spki)
  }

  [inspect.custom](): string {
    return `SoftSigner(${this.#keys.size} keys cached)`
  }
}

/** Parse stored PKCS#8 once; the stored key must match its name. Errors name the KeyId, never the key. */
function loadKey(keyId: KeyId, pkcs8Der: Uint8Array): SoftKey {
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey({ key: Buffer.from(pkcs8Der), format: 'der', type: 'pkcs8' })
  } catch {
    throw new Error(`stored key ${keyId} is not a valid PKCS#8 private key`)
  }
  const spki = new Uint8Array(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }))
  const key = new SoftKey(privateKey, spki)
  if (key.keyId !== keyId) throw new Error(`stored key ${keyId} has the key identifier ${key.keyId}`)
  return key
}

/** A KeyStore in memory (tests and tools). Copies on the way in and out. */
export class MemoryKeyStore implements KeyStore {
  readonly #keys = new Map<KeyId, Uint8Array>()

  put(keyId: KeyId, pkcs8Der: Uint8Array): void {
    if (!isKeyId(keyId)) throw new RangeError(`key id ${JSON.stringify(keyId)} is not 40 uppercase hex digits`)
    this.#keys.set(keyId, pkcs8Der.slice())
  }

  get(keyId: KeyId): Uint8Array | undefined {
    return this.#keys.get(keyId)?.slice()
  }

  delete(keyId: KeyId): void {
    this.#keys.delete(keyId)
  }

  list(): KeyId[] {
    return [...this.#keys.keys()].sort()
  }

  [inspect.custom](): string {
    return `MemoryKeyStore(${this.#keys.size} keys)`
  }
}
