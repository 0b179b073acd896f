/**
 * A CA's keys with the signer of each (GET /api/v1/cas/{ca}/keys, `svcc keyroll show`; issue 25): per resource class
 * the current key, during an RFC 6489 key roll the new or the old one, each with its state, its signer and the validity
 * of the certificate the parent issued for it. Read-only mapping.
 */
import type { CaKeyJson, CaKeysJson } from '../../api/signers.js'
import { keyState, type CaKey, type CaState } from '../../ca/state.js'

/** The name of the configured signer that holds a key (SignerSet.signerOf), undefined when unknown. */
export type SignerOf = (keyId: string) => string | undefined

export function caKeysJson(s: CaState, signerOf: SignerOf): CaKeysJson {
  const resource_classes = Object.values(s.classes).map((rc) => {
    const keys: CaKeyJson[] = []
    if (rc.current) keys.push(keyJson(rc.current, rc.current.cert ? 'active' : 'pending', signerOf))
    if (rc.next) keys.push(keyJson(rc.next, 'new', signerOf))
    if (rc.old) keys.push(keyJson(rc.old, 'old', signerOf))
    return { name: rc.name, parent: rc.parent || s.handle, key_state: keyState(rc), keys }
  })
  return { handle: s.handle, resource_classes }
}

function keyJson(k: CaKey, state: CaKeyJson['state'], signerOf: SignerOf): CaKeyJson {
  const signer = signerOf(k.keyId)
  return {
    key_id: k.keyId,
    ...(signer === undefined ? {} : { signer }),
    state,
    cert: k.cert ? { uri: k.cert.uri, not_before: k.cert.notBefore, not_after: k.cert.notAfter } : null,
  }
}
