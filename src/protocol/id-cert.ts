/**
 * BPKI identity certificates (RFC 8183 §4 `*_bpki_ta`, RFC 6492 §3.1.1.2 / RFC 8181 §2 CMS signers' trust anchors):
 * decode real peers' certificates tolerantly (not always self-signed, any DN), show them as the JSON API's `id_cert`
 * and as PEM, and create our own self-signed identity certificate and its CRL. Used by ca/ (parents and children),
 * pubd/ (publishers), signed-message.ts and the API mapping.
 */
import { createHash } from 'node:crypto'
import { toBase64 } from '../util/base64.js'
import { DecodeError } from '../util/errors.js'
import { toHex } from '../util/hex.js'
import { type BpkiCert, decodeBpkiCert, isSelfSigned } from './id-cert-x509.js'

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

/** The JSON API view of an identity certificate. */
export function idCertInfo(cert: IdCert | BpkiCert | Uint8Array): IdCertInfo {
  const c = cert instanceof Uint8Array ? decodeBpkiCert(cert) : cert
  return { public_key: toBase64(c.spki), base64: toBase64(c.der), hash: toHex(createHash('sha256').update(c.spki).digest()) }
}

/** PEM text (RFC 7468 §5: 'CERTIFICATE', 64-column base64), ending in a newline. */
export function idCertPem(der: Uint8Array): string {
  const lines = toBase64(der).match(/.{1,64}/g) ?? []
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`
}
