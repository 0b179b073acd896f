/**
 * The Signer interface (rpki-rs Signer; design.md "Signer"): persistent keys by KeyId, RSASSA-PKCS1-v1_5 with
 * SHA-256 signatures, and one-time-use keys for EE certificates. Implemented by soft-signer.ts (and an HSM signer
 * later); the objects and protocol builders take a SigningKey, so the library never holds private key material.
 */
import type { KeyId } from './key-id.js'

export type { KeyId } from './key-id.js'

/** A key that can sign. `ski` is the RFC 6487 §4.8.2 key identifier, `spki` the SubjectPublicKeyInfo DER. */
export interface SigningKey {
  readonly keyId: KeyId
  readonly ski: Uint8Array
  readonly spki: Uint8Array
  /** RSASSA-PKCS1-v1_5 with SHA-256 over `data` (RFC 7935 §2: 256-octet signature for RSA-2048). */
  sign(data: Uint8Array): Uint8Array
}

/** A one-time-use key (RFC 6487 §4: one EE key per signed object); never persisted. */
export interface OneOffKey extends SigningKey {
  /** Forget the private key; `sign` throws afterwards. */
  destroy(): void
}

/** Where a new persistent key is made: the signer named in the config (`[[signers]] name`), else `default_signer`. */
export interface CreateKeyOptions {
  signer?: string
}

export interface Signer {
  /** A new persistent RSA-2048 key (e = 65537), made in the default signer or the one named in `opts`. */
  createKey(opts?: CreateKeyOptions): Promise<KeyId>
  /** The key `keyId`; throws UnknownKeyError when the signer does not hold it. */
  signingKey(keyId: KeyId): SigningKey
  hasKey(keyId: KeyId): boolean
  /** Remove the key for good (a no-op when it is unknown). */
  destroyKey(keyId: KeyId): void
  /** A one-time-use key from the key pool; never persisted. */
  oneOffKey(): Promise<OneOffKey>
  /** The name of the configured signer that holds `keyId` (signer-set.ts; undefined when unknown or not recorded). */
  signerOf?(keyId: KeyId): string | undefined
}

/** Where a software signer keeps private keys: PKCS#8 DER by KeyId. Implementations never log key material. */
export interface KeyStore {
  put(keyId: KeyId, pkcs8Der: Uint8Array): void
  get(keyId: KeyId): Uint8Array | undefined
  delete(keyId: KeyId): void
  list(): KeyId[]
}

/** The signer does not hold this key. The message names the KeyId only. */
export class UnknownKeyError extends Error {
  readonly keyId: KeyId
  constructor(keyId: KeyId) {
    super(`unknown key ${keyId}`)
    this.name = 'UnknownKeyError'
    this.keyId = keyId
  }
}
