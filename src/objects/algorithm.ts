/**
 * AlgorithmIdentifiers of the RPKI algorithm suite (RFC 7935 §2: RSA-2048, SHA-256, RSASSA-PKCS1-v1_5) as
 * precomputed DER, a reader that keeps the parameters form (absent, NULL or other), and RSA public-key facts.
 * Used by cert.ts, crl.ts and signed-object.ts.
 */
import { int, nul, oid, seq } from '../asn1/der.js'
import {
  children, type DerNode, expectSequence, expectTag, firstChild, nextSibling, parseDer, readBigInt, readBitString, readInt, readOid,
} from '../asn1/der-reader.js'
import { rsaEncryption, sha256, sha256WithRsaEncryption } from '../asn1/oids.js'
import { DecodeError } from '../util/errors.js'
import { OidTable } from './oid-table.js'

export interface AlgorithmId {
  readonly oid: string
  /** RFC 4055 §5 / RFC 5754 §2: RPKI generators write NULL (RSA) or nothing (SHA-256); readers accept both. */
  readonly params: 'absent' | 'null' | 'other'
}

/** sha256WithRSAEncryption with NULL parameters: certificates and CRLs (RFC 7935 §2, RFC 4055 §5). */
export const ALG_SHA256_WITH_RSA: Uint8Array = seq(oid(sha256WithRsaEncryption), nul())
/** rsaEncryption with NULL parameters: the SignerInfo signatureAlgorithm generators use (RFC 7935 §2). */
export const ALG_RSA: Uint8Array = seq(oid(rsaEncryption), nul())
/** sha256 without parameters (RFC 5754 §2: generators omit them). */
export const ALG_SHA256: Uint8Array = seq(oid(sha256))
/** INTEGER 3: SignedData and SignerInfo version (RFC 6488 §2.1.1, §2.1.6.1). */
export const INT_3: Uint8Array = int(3)

const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1'
const ALGORITHMS = new OidTable([sha256WithRsaEncryption, rsaEncryption, sha256, ID_EC_PUBLIC_KEY])

/** Read an AlgorithmIdentifier (RFC 5280 §4.1.1.2). */
export function readAlgorithm(node: DerNode | undefined, rule: string, what = 'AlgorithmIdentifier'): AlgorithmId {
  const seqNode = expectTag(node, 0x30, rule, what)
  const idNode = expectTag(firstChild(seqNode), 0x06, rule, `${what} algorithm`)
  const id = ALGORITHMS.read(idNode, rule)
  const p = nextSibling(idNode)
  if (p === undefined) return { oid: id, params: 'absent' }
  if (nextSibling(p) !== undefined) throw new DecodeError(rule, `${what} has more than two elements`)
  return { oid: id, params: p.tag === 0x05 && p.length === 0 ? 'null' : 'other' }
}

/** Facts about a SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) needed by the profile checks. */
export interface PublicKeyInfo {
  algorithm: AlgorithmId
  /** For rsaEncryption keys: modulus size in bits and the public exponent. */
  rsa?: { modulusBits: number; exponent: bigint }
  /** The OID of the named curve for id-ecPublicKey keys (BGPsec router certificates, RFC 8208). */
  curve?: string
}

/** Decode the algorithm and, for RSA, the modulus size and exponent (RFC 3279 §2.3.1). */
export function readPublicKeyInfo(node: DerNode): PublicKeyInfo {
  const rule = 'RFC 5280 §4.1.2.7'
  const c = expectSequence(node, rule, 'SubjectPublicKeyInfo')
  const algNode = c.next(rule, 0x30, 'algorithm')
  const algorithm = readAlgorithm(algNode, rule)
  const key = readBitString(c.next(rule, 0x03, 'subjectPublicKey'), rule)
  c.end(rule)
  if (algorithm.oid === rsaEncryption) return { algorithm, rsa: rsaKey(key.bytes) }
  if (algorithm.oid === ID_EC_PUBLIC_KEY) {
    const params = children(algNode)[1]
    return { algorithm, curve: params?.tag === 0x06 ? readOid(params, rule) : undefined }
  }
  return { algorithm }
}

function rsaKey(bytes: Uint8Array): { modulusBits: number; exponent: bigint } {
  const rule = 'RFC 3279 §2.3.1'
  const c = expectSequence(parseDer(bytes, { maxNodes: 8 }), rule, 'RSAPublicKey')
  const modulus = c.next(rule, 0x02, 'modulus')
  const e = c.next(rule, 0x02, 'publicExponent')
  const exponent = e.length <= 6 ? BigInt(readInt(e, rule)) : readBigInt(e, rule)
  c.end(rule)
  const n = modulus.content()
  if (n.length === 0 || n[0] & 0x80) throw new DecodeError(rule, 'RSA modulus is not a positive INTEGER')
  let i = 0
  while (i < n.length - 1 && n[i] === 0) i++
  const top = n[i]
  const modulusBits = (n.length - i - 1) * 8 + (top === 0 ? 0 : 32 - Math.clz32(top))
  return { modulusBits, exponent }
}

/** Whether a SignerInfo signatureAlgorithm is one RFC 7935 §2 lets RPs accept (rsaEncryption or sha256WithRSA). */
export function isRsaSignatureAlgorithm(a: AlgorithmId): boolean {
  return a.oid === rsaEncryption || a.oid === sha256WithRsaEncryption
}
