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
  const rsa = csr.publicKey.rsa
  if (csr.publicKey.algorithm.oid !== oids.rsaEncryption || rsa === undefined) out.push(problem('RFC 7935 §3', 'the public key is not an RSA key'))
  // RFC 7935 §3 (via RFC 6485): a CA key is RSA with a 2048-bit modulus and public exponent 65537, nothing else.
  else if (rsa.modulusBits !== 2048 || rsa.exponent !== 65537n) out.push(problem('RFC 7935 §3', `RSA key of ${rsa.modulusBits} bits, exponent ${rsa.exponent}; a CA key must be 2048 bits with exponent 65537`))
  if (csr.otherAttributes.length) out.push(problem('RFC 6487 §6.1', `attributes other than extensionRequest: ${csr.otherAttributes.join(', ')}`))
  out.push(...siaProblems(csr))
  if (csr.extensions?.basicConstraints && !csr.extensions.basicConstraints.ca) out.push(problem('RFC 6487 §6.1.1', 'basicConstraints requests an EE certificate'))
  return out
}

/**
 * The longest SIA URI we certify: rpki-client refuses longer URIs in a certificate (its MAX_URI_LENGTH, 2048), so a
 * longer one would only make us publish a certificate that relying parties reject, and cost every one of them the bytes.
 */
export const MAX_SIA_URI_LENGTH = 2048

/** The SIA the CSR asks for, or a description of its first problem (RFC 6487 §6.1.1: caRepository and rpkiManifest). */
export function csrSia(csr: Csr): CsrSia | string {
  const problems = siaProblems(csr)
  if (problems.length) return `${problems[0]!.rule}: ${problems[0]!.message}`
  const { caRepository, rpkiManifest, rpkiNotify } = requestedSia(csr)
  return { caRepository: caRepository!, rpkiManifest: rpkiManifest!, ...(rpkiNotify ? { rpkiNotify } : {}) }
}

function requestedSia(csr: Csr): { caRepository?: string; rpkiManifest?: string; rpkiNotify?: string } {
  const sia = csr.extensions?.sia ?? []
  const find = (method: string) => sia.find((a) => a.method === method)?.uri
  return { caRepository: find(oids.idAdCaRepository), rpkiManifest: find(oids.idAdRpkiManifest), rpkiNotify: find(oids.idAdRpkiNotify) }
}

/**
 * The SIA a parent copies into the child's certificate (RFC 6487 §6.1.1), checked as relying parties check it:
 * caRepository and rpkiManifest rsync URIs (RFC 6487 §4.8.8.1), the manifest inside the repository, rpkiNotify an
 * https URI (RFC 8182 §3.2), each at most MAX_SIA_URI_LENGTH characters of printable ASCII without dot segments
 * (RFC 3986 §2, §3.3; rpki-client's valid_uri).
 */
function siaProblems(csr: Csr): Problem[] {
  const { caRepository, rpkiManifest, rpkiNotify } = requestedSia(csr)
  const out: Problem[] = []
  const check = (what: string, uri: string | undefined, scheme: 'rsync' | 'https', rule: string, required: boolean) => {
    if (uri === undefined) {
      if (required) out.push(problem('RFC 6487 §6.1.1', `the request has no ${what} in its SIA`))
      return
    }
    const shown = uri.length > 100 ? `${JSON.stringify(uri.slice(0, 100))}…` : JSON.stringify(uri)
    if (uri.length > MAX_SIA_URI_LENGTH) out.push(problem(rule, `the ${what} URI is ${uri.length} characters long, more than ${MAX_SIA_URI_LENGTH}`))
    else if (!/^[\x21-\x7e]*$/.test(uri)) out.push(problem('RFC 3986 §2', `the ${what} URI ${shown} has a character that is not printable ASCII`))
    else if (!new RegExp(`^${scheme}://[^/]+/`).test(uri)) out.push(problem(rule, `the ${what} URI ${shown} is not an ${scheme} URI with a host`))
    else if (uri.includes('/.')) out.push(problem('RFC 3986 §3.3', `the ${what} URI ${shown} has a dot segment`))
  }
  check('caRepository', caRepository, 'rsync', 'RFC 6487 §4.8.8.1', true)
  check('rpkiManifest', rpkiManifest, 'rsync', 'RFC 6487 §4.8.8.1', true)
  check('rpkiNotify', rpkiNotify, 'https', 'RFC 8182 §3.2', false)
  if (out.length === 0 && !rpkiManifest!.startsWith(caRepository!.endsWith('/') ? caRepository! : `${caRepository}/`)) {
    out.push(problem('RFC 6487 §4.8.8.1', 'the rpkiManifest URI is not inside the caRepository publication point'))
  }
  return out
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

