/**
 * BPKI identities kept by svcd itself (RFC 8183 §4): the publication server's identity key and self-signed
 * identity certificate, created at first start (key through the Signer, so in the key store with mode 0600) and
 * remembered in the server properties. CAs keep their own identities in their state.
 */
import type { Signer, SigningKey } from '../../crypto/signer.js'
import { createIdCert } from '../../protocol/id-cert.js'
import { fromBase64, toBase64 } from '../../util/base64.js'
import type { PropertyStore } from '../../store/interfaces.js'

export interface Identity {
  key: SigningKey
  cert: Uint8Array
}

/** The identity stored under `name` in the properties, created now if there is none. */
export async function loadOrCreateIdentity(name: string, props: PropertyStore, signer: Signer, now: Date): Promise<Identity> {
  const keyId = props.get(`${name}.id_key`)
  const cert = props.get(`${name}.id_cert`)
  if (keyId && cert && signer.hasKey(keyId)) return { key: signer.signingKey(keyId), cert: fromBase64(cert) }
  // A key recorded in a signer that cannot be reached now (a token away at a restart): never a new identity, but the
  // signer's error (sys-signer-unavailable); the caller tries again later.
  if (keyId && cert && signer.signerOf?.(keyId) !== undefined) signer.signingKey(keyId)
  const newKey = await signer.createKey()
  const key = signer.signingKey(newKey)
  const der = createIdCert(key, now)
  props.set(`${name}.id_key`, newKey)
  props.set(`${name}.id_cert`, toBase64(der))
  return { key, cert: der }
}
