/**
 * Fixed test keys (fixtures/keys/*.pem, PKCS#8, generated once with openssl genpkey) as SigningKeys, so objects built
 * in tests are byte-stable (RSASSA-PKCS1-v1_5 signatures are deterministic).
 */
import { createPrivateKey, createPublicKey, sign } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { keyIdentifier, keyIdHex } from '../../src/crypto/key-id.js'
import type { OneOffKey } from '../../src/crypto/signer.js'
import { fixture } from './paths.js'

/** The RPKI test keys: a TA, a CA and six EE keys. */
export const RPKI_KEYS = ['rpki-ta', 'rpki-ca', 'rpki-ee-1', 'rpki-ee-2', 'rpki-ee-3', 'rpki-ee-4', 'rpki-ee-5', 'rpki-ee-6'] as const

const cache = new Map<string, OneOffKey>()

/** The key fixtures/keys/<name>.pem as a SigningKey (also usable as a OneOffKey; destroy() is a no-op). */
export function testKey(name: string): OneOffKey {
  let k = cache.get(name)
  if (k === undefined) {
    const privateKey = createPrivateKey(readFileSync(fixture('keys', `${name}.pem`)))
    const spki = new Uint8Array(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }))
    const ski = keyIdentifier(spki)
    k = {
      keyId: keyIdHex(ski),
      ski,
      spki,
      sign: (data: Uint8Array) => new Uint8Array(sign('sha256', data, privateKey)),
      destroy: () => {},
    }
    cache.set(name, k)
  }
  return k
}

/** The PEM file path of a test key (for openssl). */
export function testKeyPath(name: string): string {
  return fixture('keys', `${name}.pem`)
}
