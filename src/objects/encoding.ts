/**
 * DER first, BER as the fallback: RFC 6488 §3 and RFC 5280 want DER, but real repositories hold BER (RIPE NCC objects
 * up to about 2019, the ARIN and LACNIC TA manifests: fixtures/README.md §3). Decoders read strictly with the DER
 * reader and, only when the input is valid BER that is not DER, re-read it through asn1/ber.ts. Used by cert.ts,
 * crl.ts and signed-object.ts.
 */
import { type BerNode, isStrictDer, parseBer, toDer } from '../asn1/ber.js'
import { type DerNode, expectSequence, parseDer, readBitString } from '../asn1/der-reader.js'
import { type AlgorithmId, readAlgorithm } from './algorithm.js'
import { asBytes } from '../util/bytes.js'
import { DecodeError } from '../util/errors.js'

const BER_ONLY = /^X\.690 §(8\.1\.5|10|11)/

/**
 * The BER tree of `bytes` when the strict DER decode failed with `derError` because the input is BER but not DER;
 * otherwise `derError` is rethrown (the input is broken, and the DER reader's message says where).
 */
export function berFallback(bytes: Uint8Array, derError: unknown): BerNode {
  // Only an encoding the DER rules forbid but BER allows (indefinite or non-minimal lengths, constructed strings,
  // end-of-contents octets: X.690 §8.1.5, §10, §11) is worth a BER parse; structural errors are final (and cheap).
  if (!(derError instanceof DecodeError) || !BER_ONLY.test(derError.rule)) throw derError
  let tree: BerNode
  try {
    tree = parseBer(bytes)
  } catch {
    throw derError
  }
  if (isStrictDer(bytes)) throw derError
  return tree
}

/**
 * A signed X.509 structure (certificate, CRL) read with `read`: from strict DER, or from BER re-encoded as DER, keeping
 * the received TBS (its first element), which is what the signature covers.
 */
export function decodeDerOrBer<T extends { tbs: Uint8Array }>(input: Uint8Array, read: (node: DerNode, encoding: 'der' | 'ber') => T): T {
  const bytes = asBytes(input)
  try {
    return read(parseDer(bytes), 'der')
  } catch (e) {
    const tree = berFallback(bytes, e)
    const value = read(parseDer(toDer(tree)), 'ber')
    return { ...value, tbs: tree.children[0]?.raw ?? value.tbs }
  }
}

/**
 * The outer SEQUENCE of a signed X.509 structure (`names`: its type and its TBS part): the TBS node, the signature
 * algorithm (`section`.2) and the signature value, without unused bits (`section`.3; RFC 5280 §4.1.1 or §5.1.1).
 */
export function readSignedParts(node: DerNode, rule: string, names: [string, string], section: string): { tbsNode: DerNode; signatureAlgorithm: AlgorithmId; signature: Uint8Array } {
  const c = expectSequence(node, rule, names[0])
  const tbsNode = c.next(rule, 0x30, names[1])
  const signatureAlgorithm = readAlgorithm(c.next(rule, 0x30, 'signatureAlgorithm'), `${section}.2`)
  const sig = readBitString(c.next(rule, 0x03, 'signatureValue'), `${section}.3`)
  c.end(rule)
  if (sig.unusedBits !== 0) throw new DecodeError(`${section}.3`, 'signatureValue has unused bits')
  return { tbsNode, signatureAlgorithm, signature: sig.bytes }
}
