/**
 * Certificate requests (PKCS#10, RFC 2986) as RFC 6487 §6 profiles them for RFC 6492 `issue`: a CA key asks its
 * parent for a certificate, carrying the SIA it wants (caRepository, rpkiManifest, rpkiNotify) in an
 * extensionRequest. Build (child side) and decode/inspect/verify (parent side). Used by the CA service (app/ca/parent-client.ts).
 */
import { bitString, implicit, int, oid, seq, set } from '../asn1/der.js'
import { children, expectSequence, expectTag, parseDer } from '../asn1/der-reader.js'
import { readBitString, readInt, readOid } from '../asn1/der-values.js'
import * as oids from '../asn1/oids.js'
import type { SigningKey } from '../crypto/signer.js'
import { VerificationError } from '../util/errors.js'
import { ALG_SHA256_WITH_RSA, isRsaSignatureAlgorithm, readAlgorithm, readPublicKeyInfo, type AlgorithmId, type PublicKeyInfo } from './algorithm.js'
import { signatureValid } from './cert.js'
import { EXT_BASIC_CONSTRAINTS_CA, EXT_KEY_USAGE_CA, readExtensions, siaExtension, type CertExtensions } from './cert-extensions.js'
import { encodeName, readName, type DistinguishedName } from './distinguished-name.js'
import { problem, type Problem } from './problem.js'

/** PKCS#9 extensionRequest (RFC 2985 §5.4.2). */
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14'
const RULE = 'RFC 2986 §4'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface Csr {
  readonly bytes: Uint8Array
  /** The CertificationRequestInfo as received: what the signature covers. */
  readonly info: Uint8Array
  readonly version: number
  readonly subject: DistinguishedName
  readonly spki: Uint8Array
  readonly publicKey: PublicKeyInfo
  /** Extensions from the extensionRequest attribute (empty when absent). */
  readonly extensions: CertExtensions | undefined
  /** Other attribute types present (RFC 6487 §6 allows only extensionRequest). */
  readonly otherAttributes: string[]
  readonly signatureAlgorithm: AlgorithmId
  readonly signature: Uint8Array
}

/** The SIA a child asks for (RFC 6487 §6: the parent copies it into the certificate). */
export interface CsrSia {
  caRepository: string
  rpkiManifest: string
  rpkiNotify?: string
}

//------------ Decoding ------------------------------------------------------------------------------------------------

/** Decode a CSR (strict DER). */
export function decodeCsr(bytes: Uint8Array): Csr {
  const root = expectSequence(parseDer(bytes), RULE, 'CertificationRequest')
  const infoNode = root.next(RULE, 0x30, 'certificationRequestInfo')
  const signatureAlgorithm = readAlgorithm(root.next(RULE, 0x30, 'signatureAlgorithm'), RULE)
  const signature = readBitString(root.next(RULE, 0x03, 'signature'), RULE).bytes
  root.end(RULE)
  const info = expectSequence(infoNode, RULE, 'CertificationRequestInfo')
  const version = readInt(info.next(RULE, 0x02, 'version'), RULE)
  const subject = readName(info.next(RULE, 0x30, 'subject'), RULE)
  const spkiNode = info.next(RULE, 0x30, 'subjectPKInfo')
  const attrs = expectTag(info.next(RULE, 0xa0, 'attributes'), 0xa0, RULE, 'attributes')
  info.end(RULE)
  let extensions: CertExtensions | undefined
  const otherAttributes: string[] = []
  for (const a of children(attrs)) {
    const c = expectSequence(a, RULE, 'Attribute')
    const type = readOid(c.next(RULE, 0x06, 'type'), RULE)
    const values = children(expectTag(c.next(RULE, 0x31, 'values'), 0x31, RULE, 'values'))
    c.end(RULE)
    if (type === EXTENSION_REQUEST && values.length === 1 && extensions === undefined) extensions = readExtensions(values[0])
    else otherAttributes.push(type)
  }
  return { bytes, info: infoNode.raw(), version, subject, spki: spkiNode.raw(), publicKey: readPublicKeyInfo(spkiNode), extensions, otherAttributes, signatureAlgorithm, signature }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** RFC 6487 §6 profile problems of a CSR for a CA certificate (RFC 6492 §3.4.1). */
export function inspectCsr(csr: Csr): Problem[] {
  const out: Problem[] = []
  if (csr.version !== 0) out.push(problem('RFC 6487 §6.1', `version must be 0, not ${csr.version}`))
  if (!isRsaSignatureAlgorithm(csr.signatureAlgorithm)) out.push(problem('RFC 7935 §2', `signature algorithm ${csr.signatureAlgorithm.oid} is not sha256WithRSAEncryption`))
  if (csr.publicKey.algorithm.oid !== oids.rsaEncryption) out.push(problem('RFC 7935 §3', 'the public key is not an RSA key'))
  if (csr.otherAttributes.length) out.push(problem('RFC 6487 §6.1', `attributes other than extensionRequest: ${csr.otherAttributes.join(', ')}`))
  const sia = csrSia(csr)
  if (typeof sia === 'string') out.push(problem('RFC 6487 §6.1.1', sia))
  if (csr.extensions?.basicConstraints && !csr.extensions.basicConstraints.ca) out.push(problem('RFC 6487 §6.1.1', 'basicConstraints requests an EE certificate'))
  return out
}

/** The SIA the CSR asks for, or a description of what is missing (RFC 6487 §6.1.1: caRepository and rpkiManifest). */
export function csrSia(csr: Csr): CsrSia | string {
  const sia = csr.extensions?.sia ?? []
  const find = (method: string) => sia.find((a) => a.method === method)?.uri
  const caRepository = find(oids.idAdCaRepository)
  const rpkiManifest = find(oids.idAdRpkiManifest)
  const rpkiNotify = find(oids.idAdRpkiNotify)
  if (!caRepository?.startsWith('rsync://')) return 'the request has no rsync caRepository in its SIA'
  if (!rpkiManifest?.startsWith('rsync://')) return 'the request has no rsync rpkiManifest in its SIA'
  if (rpkiNotify !== undefined && !rpkiNotify.startsWith('https://')) return 'the requested rpkiNotify is not an https URI'
  return { caRepository, rpkiManifest, ...(rpkiNotify ? { rpkiNotify } : {}) }
}

//------------ Verification --------------------------------------------------------------------------------------------

/** Check the CSR's signature with its own key (proof of possession, RFC 2986 §3). */
export function verifyCsr(csr: Csr): void {
  if (!signatureValid(csr.spki, csr.info, csr.signature)) throw new VerificationError('RFC 2986 §3', 'the request is not signed by the key it contains')
}

//------------ Building ------------------------------------------------------------------------------------------------

/** Build and sign a CSR for a CA certificate with the given SIA (RFC 6487 §6), subject CN = the key id in hex. */
export function buildCsr(key: SigningKey, sia: CsrSia): Uint8Array {
  const entries = [
    { method: oids.idAdCaRepository, uri: sia.caRepository },
    { method: oids.idAdRpkiManifest, uri: sia.rpkiManifest },
    ...(sia.rpkiNotify ? [{ method: oids.idAdRpkiNotify, uri: sia.rpkiNotify }] : []),
  ]
  const extensions = seq(EXT_BASIC_CONSTRAINTS_CA, EXT_KEY_USAGE_CA, siaExtension(entries))
  const attribute = seq(oid(EXTENSION_REQUEST), set(extensions))
  const info = seq(int(0), encodeName(key.keyId), key.spki, implicit(0, attribute, true))
  return seq(info, ALG_SHA256_WITH_RSA, bitString(key.sign(info)))
}

