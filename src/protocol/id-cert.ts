/**
 * BPKI identity certificates (RFC 8183 §4 `*_bpki_ta`, RFC 6492 §3.1.1.2 / RFC 8181 §2 CMS signers' trust anchors):
 * decode real peers' certificates tolerantly (not always self-signed, any DN), show them as the JSON API's `id_cert`
 * and as PEM, and create our own self-signed identity certificate and its CRL. Used by ca/ (parents and children),
 * pubd/ (publishers), signed-message.ts and the API mapping.
 */
import { randomBytes } from 'node:crypto'
import { keyIdentifier } from '../crypto/key-id.js'
import type { SigningKey } from '../crypto/signer.js'
import { buildCert, serialFromRandom } from '../objects/cert.js'
import { buildCrl } from '../objects/crl.js'
import { toBase64 } from '../util/base64.js'
import { DecodeError, InspectionError } from '../util/errors.js'
import { toHex } from '../util/hex.js'
import { bytesEqual } from '../util/bytes.js'
import { type BpkiCert, decodeBpkiCert, isSelfSigned, publicKey, signedBy } from './id-cert-x509.js'
import { sha256Hex } from '../crypto/digest.js'

/** A decoded identity certificate. */
export interface IdCert extends BpkiCert {
  /** Subject equals issuer and the certificate verifies under its own key (APNIC's and AFRINIC's do not). */
  selfSigned: boolean
}

/** The JSON API shape `id_cert{public_key,base64,hash}` (krill-reference.md §1.1, spec §2.1). */
export interface IdCertInfo {
  /** Base64 of the SubjectPublicKeyInfo DER. */
  public_key: string
  /** Base64 of the certificate DER. */
  base64: string
  /** Hex SHA-256 of the SubjectPublicKeyInfo DER ("hash of the identity certificate key", 64 hex digits). */
  hash: string
}

/** Backdating of notBefore / thisUpdate: a peer whose clock is a little behind ours still sees them as valid. */
const BACKDATE_MS = 5 * 60 * 1000

/**
 * Our identity certificate: a self-signed BPKI CA certificate (RFC 8183 §4, RFC 6492 §3.1.1.2) for `key`, v3 with a
 * random 159-bit serial, subject = issuer = CN of the key's hex key id (as Krill does), basicConstraints cA and
 * keyUsage keyCertSign|cRLSign (both critical), SKI, and no RFC 3779, SIA, AIA, CRLDP or policy extensions.
 * The AKI is left out: RFC 5280 §4.2.1.1 lets a self-signed certificate omit it (Krill writes AKI = SKI; readers
 * accept both). Valid from 5 minutes before `now` for `years` calendar years (krill-reference.md §3: 15).
 */
export function createIdCert(key: SigningKey, now: Date, years = 15, serial?: bigint): Uint8Array {
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - BACKDATE_MS)
  const notAfter = new Date(Math.floor(now.getTime() / 1000) * 1000)
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + years)
  return buildCert({
    profile: 'bpki', kind: 'ca', serial: serial ?? serialFromRandom(randomBytes(20)), issuerName: key.keyId,
    subjectName: key.keyId, subjectSpki: key.spki, subjectKeyId: key.ski, notBefore, notAfter,
  }, key)
}

export interface IdEeCertSpec {
  idKey: SigningKey
  idCert: BpkiCert
  eeSpki: Uint8Array
  serial: bigint
  notBefore: Date
  notAfter: Date
}

/** The EE certificate of an RFC 6492 / RFC 8181 CMS message (RFC 6492 §3.1.1.4), issued by our identity
 *  certificate: issuer = the ID certificate's subject (its exact DER), subject CN = the EE key id in hex, SKI, AKI,
 *  keyUsage digitalSignature (critical); no basicConstraints, SIA or resources. */
export function issueIdEeCert(spec: IdEeCertSpec): Uint8Array {
  const eeSki = keyIdentifier(spec.eeSpki)
  return buildCert({
    profile: 'bpki', kind: 'ee', serial: spec.serial, issuerName: spec.idCert.subjectDer,
    subjectName: toHex(eeSki).toUpperCase(), subjectSpki: spec.eeSpki, subjectKeyId: eeSki,
    notBefore: spec.notBefore, notAfter: spec.notAfter,
  }, spec.idKey)
}

export interface IdCrlSpec {
  idKey: SigningKey
  idCert: BpkiCert
  crlNumber: bigint
  thisUpdate: Date
  nextUpdate: Date
  /** Serials to list (default none: our EE certificates are short-lived and never revoked). */
  revoked?: readonly { serial: bigint; revocationDate: Date }[]
}

/** The BPKI CRL of our identity certificate (RFC 6492 §3.1.1.5): v2, AKI, CRL number, nextUpdate, issuer = the ID
 *  certificate's subject; revokedCertificates absent when empty (RFC 5280 §5.1.2.6). */
export function buildIdCrl(spec: IdCrlSpec): Uint8Array {
  return buildCrl({
    issuerName: spec.idCert.subjectDer, thisUpdate: spec.thisUpdate, nextUpdate: spec.nextUpdate,
    crlNumber: spec.crlNumber, revoked: spec.revoked ?? [],
  }, spec.idKey)
}

/** Decode an identity certificate as received in RFC 8183 XML or the JSON API. Never requires self-signature, an
 *  RPKI-style CN or any extension: only X.509 syntax (DecodeError otherwise). */
export function decodeIdCert(der: Uint8Array): IdCert {
  let cert: BpkiCert
  try {
    cert = decodeBpkiCert(der)
  } catch (e) {
    throw new DecodeError('RFC 8183 §4', `identity certificate: ${(e as Error).message}`, { cause: e })
  }
  return { ...cert, selfSigned: isSelfSigned(cert) }
}

/**
 * Check an identity certificate a peer gives us before we register it (children, publishers, parents,
 * repositories: RFC 8183 §5.2 `*_bpki_ta`, the trust anchor of RFC 6492 §3.1 / RFC 8181 §2 CMS messages). Required:
 * an X.509 v3 certificate (RFC 5280 §4.1.2.1), valid at `now` (§4.1.2.5), a CA certificate (basicConstraints cA,
 * §4.2.1.9: it issues the EE certificates of the CMS messages), an RSA key of 2048 to 4096 bits with exponent 65537
 * (RFC 7935 §3 as the floor; not EC, not RSA-1024), and, when it is self-issued (subject = issuer, as Krill, rpkid,
 * RIPE NCC, LACNIC and svc make them), a self-signature that verifies under its own key (§6.1, §3.2). A trust anchor
 * issued by another BPKI CA (APNIC's "APNIC Server CA", AFRINIC's "RPKI Intermediate CA") is a trust anchor by
 * configuration (RFC 5280 §6.1.1 (d): a name and a key), so its issuer's signature cannot be and is not checked.
 * notBefore is allowed BACKDATE_MS of clock skew. Pure: throws DecodeError or InspectionError naming the rule.
 */
export function inspectIdCert(der: Uint8Array, now: Date): IdCert {
  const c = decodeIdCert(der)
  const fail = (rule: string, msg: string) => new InspectionError(rule, `identity certificate: ${msg}`)
  if (c.version !== 3) throw fail('RFC 5280 §4.1.2.1', `version ${c.version}, not 3`)
  // A peer that made its certificate just now, with a clock a little ahead of ours, is not refused for that.
  if (now.getTime() + BACKDATE_MS < c.notBefore.getTime()) throw fail('RFC 5280 §4.1.2.5', `not valid before ${c.notBefore.toISOString()}`)
  if (now > c.notAfter) throw fail('RFC 5280 §4.1.2.5', `expired at ${c.notAfter.toISOString()}`)
  if (c.ca !== true) throw fail('RFC 5280 §4.2.1.9', 'not a CA certificate (basicConstraints cA is not set), so it cannot be a BPKI trust anchor (RFC 8183 §5.2)')
  checkIdKey(c.spki, fail)
  if (bytesEqual(c.subjectDer, c.issuerDer) && !signedBy(c, c.spki)) throw fail('RFC 5280 §6.1', 'self-issued, but its signature does not verify under its own key')
  return c
}

/** RFC 7935 §3 (as the floor for BPKI keys): RSA, 2048 to 4096 bits, public exponent 65537. */
function checkIdKey(spki: Uint8Array, fail: (rule: string, msg: string) => Error): void {
  const key = publicKey(spki)
  if (key.asymmetricKeyType !== 'rsa') throw fail('RFC 7935 §3', `the key is ${key.asymmetricKeyType?.toUpperCase() ?? 'of an unknown type'}, not RSA`)
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
  if (bits < 2048 || bits > 4096) throw fail('RFC 7935 §3', `the RSA key has ${bits} bits, not 2048 (to 4096)`)
  if (key.asymmetricKeyDetails?.publicExponent !== 65537n) throw fail('RFC 7935 §3', `the RSA public exponent is ${key.asymmetricKeyDetails?.publicExponent}, not 65537`)
}

/** The JSON API view of an identity certificate. */
export function idCertInfo(cert: IdCert | BpkiCert | Uint8Array): IdCertInfo {
  const c = cert instanceof Uint8Array ? decodeBpkiCert(cert) : cert
  return { public_key: toBase64(c.spki), base64: toBase64(c.der), hash: sha256Hex(c.spki) }
}

/** PEM text (RFC 7468 §5: 'CERTIFICATE', 64-column base64), ending in a newline. */
export function idCertPem(der: Uint8Array): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? []
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`
}
