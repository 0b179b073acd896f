/**
 * Names of published files, as Krill chooses them (krill-reference.md §5): `<KEYID>.cer`, `.crl` and `.mft` with
 * the key identifier in UPPERCASE hex; a simple-mode ROA is hex(utf8("<prefix>-<maxlen> => <asn>")) + ".roa", an
 * aggregated ROA `AS<asn>.roa`, an ASPA `AS<customer>.asa`, a TAK `<KEYID>.tak`. All match RFC 9286 §4.2.2's file-name rule.
 * Used by the CA when it publishes and lists objects on its manifest.
 */
import { keyIdHex, type KeyId } from '../crypto/key-id.js'
import { roaPayloadKey, type RoaPayload } from '../resources/roa-payload.js'
import { toHex } from '../util/hex.js'

/** A key identifier (20 octets, or its KeyId text) in the UPPERCASE hex Krill uses for file names. */
function keyName(key: Uint8Array | KeyId): string {
  return typeof key === 'string' ? key.toUpperCase() : keyIdHex(key)
}

/** `<KEYID>.cer`: the certificate of the key (a child CA's certificate is named after the child's key). */
export function certFileName(key: Uint8Array | KeyId): string {
  return `${keyName(key)}.cer`
}

/** `<KEYID>.crl`: the CRL of the CA key. */
export function crlFileName(key: Uint8Array | KeyId): string {
  return `${keyName(key)}.crl`
}

/** `<KEYID>.mft`: the manifest of the CA key. */
export function manifestFileName(key: Uint8Array | KeyId): string {
  return `${keyName(key)}.mft`
}

/** Simple mode, one ROA per authorisation: hex of "<prefix>-<maxlen> => <asn>" plus ".roa". */
export function roaFileName(payload: RoaPayload): string {
  return `${toHex(new TextEncoder().encode(roaPayloadKey(payload)))}.roa`
}

/** Aggregate mode, one ROA per AS: `AS<asn>.roa`. */
export function aggregateRoaFileName(asn: number): string {
  return `AS${asn}.roa`
}

/** One ASPA per customer AS: `AS<customer>.asa`. */
export function aspaFileName(customer: number): string {
  return `AS${customer}.asa`
}

/** `<KEYID>.tak`: the Trust Anchor Key object of a TA key (RFC 9691), beside that key's manifest. */
export function takFileName(key: Uint8Array | KeyId): string {
  return `${keyName(key)}.tak`
}
