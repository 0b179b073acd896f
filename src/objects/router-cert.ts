/**
 * BGPsec router certificates (RFC 8209; algorithms RFC 8608): the router's PKCS#10 request checked for its key and
 * signature, the subject name, and the certificate a CA issues for it. A router certificate is an EE certificate
 * with an ECDSA P-256 key, keyUsage digitalSignature, extKeyUsage id-kp-bgpsec-router, no SIA and AS resources only.
 * Decoding and the profile check are cert.ts's (role 'router'). Verbs: inspectRouterCsr, buildRouterCert. Used by
 * the CA (ca/bgpsec.ts plans, app/ca/router-objects.ts signs).
 */
import { bitString, EncodeError, explicit, int, oid, seq, x509Time } from '../asn1/der.js'
import * as oids from '../asn1/oids.js'
import { keyIdentifier } from '../crypto/key-id.js'
import type { SigningKey } from '../crypto/signer.js'
import { AsBlocks, ASN_MAX } from '../resources/asn.js'
import { toHex } from '../util/hex.js'
import { rsyncUri } from '../util/uri.js'
import { ALG_SHA256_WITH_RSA } from './algorithm.js'
import { akiExtension, aiaExtension, asResourcesExtension, crldpExtension, EXT_KEY_USAGE_EE, EXT_RPKI_POLICY, extension, skiExtension } from './cert-extensions.js'
import { ID_KP_BGPSEC_ROUTER } from './cert-profile.js'
import type { Csr } from './csr.js'
import { encodeName, type NameSpec } from './distinguished-name.js'
import { type Problem, problem } from './problem.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface RouterCertSpec {
  /** Positive, at most 20 octets with the sign octet. */
  serial: bigint
  /** The issuing CA's subject name. */
  issuerName: NameSpec
  asn: number
  /** The router's SubjectPublicKeyInfo (from its request). */
  subjectSpki: Uint8Array
  notBefore: Date
  notAfter: Date
  /** rsync URIs of the issuer's CRL and certificate (RFC 6487 §4.8.6, §4.8.7). */
  crldp: string
  aia: string
}

const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1'
const SECP256R1 = '1.2.840.10045.3.1.7'
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2'

//------------ Naming --------------------------------------------------------------------------------------------------

/** RFC 8209 §3.1.1: the subject CommonName is "ROUTER-" and the AS number as 8 upper-case hex digits. */
export function routerCommonName(asn: number): string {
  if (!Number.isInteger(asn) || asn < 0 || asn > ASN_MAX) throw new EncodeError('RFC 8209 §3.1.1', `${asn} is not an AS number`)
  return `ROUTER-${asn.toString(16).toUpperCase().padStart(8, '0')}`
}

/** The router key's identifier (RFC 8209 §3.1.2, RFC 6487 §4.8.2: SHA-1 of the public key), upper-case hex. */
export function routerKeyId(spki: Uint8Array): string {
  return toHex(keyIdentifier(spki)).toUpperCase()
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** A router's request: an ECDSA P-256 key (RFC 8608 §3.1) and an ecdsa-with-SHA256 signature (RFC 8608 §3.2). */
export function inspectRouterCsr(csr: Csr): Problem[] {
  const out: Problem[] = []
  if (csr.publicKey.algorithm.oid !== ID_EC_PUBLIC_KEY || csr.publicKey.curve !== SECP256R1) out.push(problem('RFC 8608 §3.1', 'the router key is not an ECDSA P-256 key'))
  if (csr.signatureAlgorithm.oid !== ECDSA_WITH_SHA256) out.push(problem('RFC 8608 §3.2', `signature algorithm ${oids.oidName(csr.signatureAlgorithm.oid)}, expected ecdsa-with-SHA256`))
  return out
}

//------------ Building ------------------------------------------------------------------------------------------------

/** extKeyUsage id-kp-bgpsec-router, not critical (RFC 8209 §3.1.3.2). */
const EXT_EKU_BGPSEC_ROUTER = extension(oids.extKeyUsage, false, seq(oid(ID_KP_BGPSEC_ROUTER)))

/**
 * Build and sign a router certificate (RFC 8209 §3.1): subject CN ROUTER-<asn> with the key id as serialNumber;
 * SKI, AKI, keyUsage digitalSignature, extKeyUsage, CRLDP, AIA, the RPKI policy, exactly the one AS; no SIA, no IP.
 */
export function buildRouterCert(spec: RouterCertSpec, issuer: SigningKey): Uint8Array {
  if (spec.serial <= 0n || spec.serial >= 1n << 159n) throw new EncodeError('RFC 6487 §4.2', 'serial number out of range')
  if (!(spec.notBefore.getTime() <= spec.notAfter.getTime())) throw new EncodeError('RFC 5280 §4.1.2.5', 'notBefore is after notAfter')
  const subject = encodeName({ commonName: routerCommonName(spec.asn), serialNumber: routerKeyId(spec.subjectSpki) })
  const extensions = [
    skiExtension(keyIdentifier(spec.subjectSpki)), akiExtension(issuer.ski), EXT_KEY_USAGE_EE, EXT_EKU_BGPSEC_ROUTER,
    crldpExtension(rsyncUri(spec.crldp)), aiaExtension(rsyncUri(spec.aia)), EXT_RPKI_POLICY,
    asResourcesExtension(AsBlocks.fromRanges([{ min: spec.asn, max: spec.asn }])),
  ]
  const tbs = seq(
    explicit(0, int(2)), int(spec.serial), ALG_SHA256_WITH_RSA, encodeName(spec.issuerName),
    seq(x509Time(spec.notBefore), x509Time(spec.notAfter)), subject, spec.subjectSpki, explicit(3, seq(...extensions)),
  )
  return seq(tbs, ALG_SHA256_WITH_RSA, bitString(issuer.sign(tbs)))
}
