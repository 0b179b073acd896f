/**
 * The embedded trust anchor and testbed (design.md "Embedded trust anchor"): with `[testbed] enabled = true`,
 * svcd creates CA `ta` with a self-signed TA certificate holding all resources, and CA `testbed` as its child, both
 * publishing in the embedded repository; the TAL (RFC 8630: https URI, then rsync URI) is served at /ta/ta.tal.
 */
import type { Signer } from '../crypto/signer.js'
import { encodeTal } from '../objects/tal.js'
import type { CaState, TaCertInfo, TaInfo } from '../ca/state.js'
import { buildTaCert } from '../ca/ta-keyroll.js'

export const TA_HANDLE = 'ta'
export const TESTBED_HANDLE = 'testbed'

/** The TA's identity as a CA: its certificate and its one resource class "0" holding all resources. */
export async function createTrustAnchor(state: CaState, signer: Signer, serviceUri: string, now: Date, random: (n: number) => Uint8Array): Promise<{ ta: TaInfo; classes: CaState['classes']; nextClass: number }> {
  const keyId = await signer.createKey()
  const withRepo = { ...state, classes: {} }
  const built = buildTaCert(withRepo, '0', signer.signingKey(keyId), keyId, random(20), now)
  const rsyncUri = `${state.repo!.siaBase}ta.cer`
  const ta: TaInfo = { certDer: built.der, rsyncUri, httpsUri: `${serviceUri}ta/ta.cer` }
  const cert = { ...built, uri: rsyncUri }
  return { ta, classes: { '0': { name: '0', parent: '', parentClass: '', entitled: cert.resources, notAfter: cert.notAfter, current: { keyId, cert } } }, nextClass: 1 }
}

/** RFC 8630 §2.2: the URIs (https first, then rsync), an empty line, the base64 SubjectPublicKeyInfo. */
export function talText(ta: TaCertInfo, spki: Uint8Array): string {
  return encodeTal({ uris: [ta.httpsUri, ta.rsyncUri], spki })
}
