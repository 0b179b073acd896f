/**
 * Key identifiers (RFC 6487 §4.8.2, RFC 5280 §4.2.1.2 method 1): SHA-1 of the subjectPublicKey BIT STRING contents.
 * KeyId is its UPPERCASE hex form, used as the key's name in key stores and in published file names (as Krill does).
 * Used by the signers, the key store and the objects layer (SKI/AKI extensions, CMS sid).
 */
import { createHash } from 'node:crypto'
import { expectSequence, parseDer, readBitString } from '../asn1/der-reader.js'
import { DecodeError } from '../util/errors.js'
import { toHex } from '../util/hex.js'

/** UPPERCASE hex of a 20-byte key identifier. */
export type KeyId = string

const KEY_ID = /^[0-9A-F]{40}$/

/** RFC 6487 §4.8.2: SHA-1 over the subjectPublicKey bits (not the whole SPKI, not the unused-bits octet). */
export function keyIdentifier(spki: Uint8Array): Uint8Array {
  const c = expectSequence(parseDer(spki, { maxNodes: 64 }), 'RFC 5280 §4.1.2.7', 'SubjectPublicKeyInfo')
  c.next('RFC 5280 §4.1.2.7', 0x30, 'algorithm')
  const key = readBitString(c.next('RFC 5280 §4.1.2.7', 0x03, 'subjectPublicKey'))
  c.end('RFC 5280 §4.1.2.7')
  if (key.unusedBits !== 0) throw new DecodeError('RFC 3279 §2.3.1', 'subjectPublicKey has unused bits')
  return new Uint8Array(createHash('sha1').update(key.bytes).digest())
}

/** The KeyId (uppercase hex) of a 20-byte key identifier. */
export function keyIdHex(ki: Uint8Array): KeyId {
  if (ki.length !== 20) throw new DecodeError('RFC 6487 §4.8.2', `key identifier of ${ki.length} octets, not 20`)
  return toHex(ki).toUpperCase()
}

/** True for a well-formed KeyId: 40 uppercase hex digits. */
export function isKeyId(s: string): s is KeyId {
  return KEY_ID.test(s)
}
