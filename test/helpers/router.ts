/** BGPsec router keys for tests: an ECDSA P-256 key and its PKCS#10 request (RFC 2986), built with our DER writer. */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { bitString, implicit, int, oid, seq } from '../../src/asn1/der.js'
import { keyIdentifier } from '../../src/crypto/key-id.js'
import { encodeName } from '../../src/objects/distinguished-name.js'
import { toHex } from '../../src/util/hex.js'
import { fixture } from './paths.js'

export interface RouterKey {
  privateKey: KeyObject
  spki: Uint8Array
  /** Upper-case hex, as the API shows it. */
  keyId: string
}

/** A new router key, on P-256 unless `curve` says otherwise (to test refusals). */
export function routerKey(curve = 'P-256'): RouterKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve })
  const spki = new Uint8Array(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }))
  return { privateKey, spki, keyId: toHex(keyIdentifier(spki)).toUpperCase() }
}

/** The fixed P-256 key of fixtures/keys/router-p256.pem (byte-stable router certificates). */
export function fixedRouterKey(): RouterKey {
  const privateKey = createPrivateKey(readFileSync(fixture('keys', 'router-p256.pem')))
  const spki = new Uint8Array(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }))
  return { privateKey, spki, keyId: toHex(keyIdentifier(spki)).toUpperCase() }
}

/** A PKCS#10 request for `key`, signed by `signer` (the key itself unless a test wants a bad signature). */
export function routerCsr(key: RouterKey, opts: { signer?: KeyObject; cn?: string } = {}): Uint8Array {
  const info = seq(int(0), encodeName(opts.cn ?? 'ROUTER-0000FDE8'), key.spki, implicit(0, new Uint8Array(0), true))
  const signature = new Uint8Array(sign('sha256', info, opts.signer ?? key.privateKey))
  return seq(info, seq(oid('1.2.840.10045.4.3.2')), bitString(signature))
}

/** The same request as PEM. */
export function pem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n')
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE REQUEST-----\n`
}
