/** Test keys: a SigningKey over a freshly generated RSA-2048 key (tests only; real code uses the Signer); other sizes for hostile cases. */
import { generateKeyPairSync, sign as rsaSign } from 'node:crypto'
import { keyIdentifier, keyIdHex } from '../../src/crypto/key-id.js'
import type { SigningKey } from '../../src/crypto/signer.js'

export function testKey(modulusLength = 2048, publicExponent = 65537): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength, publicExponent })
  const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))
  const ski = keyIdentifier(spki)
  return { keyId: keyIdHex(ski), ski, spki, sign: (data) => new Uint8Array(rsaSign('sha256', data, privateKey)) }
}
