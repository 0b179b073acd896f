/**
 * The embedded trust anchor and testbed (design.md "Embedded trust anchor"): with `[testbed] enabled = true`,
 * svcd creates CA `ta` with a self-signed TA certificate holding all resources, and CA `testbed` as its child, both
 * publishing in the embedded repository; the TAL (RFC 8630: https URI, then rsync URI) is served at /ta/ta.tal.
 */
import { keyIdentifier } from '../crypto/key-id.js'
import type { Signer } from '../crypto/signer.js'
import { buildCert, serialFromRandom } from '../objects/cert.js'
import { encodeTal } from '../objects/tal.js'
import { classDir, mftUri } from '../ca/locations.js'
import type { CaState, TaInfo } from '../ca/state.js'
import { ResourceSet } from '../resources/resource-set.js'
import { toBase64 } from '../util/base64.js'

export const TA_HANDLE = 'ta'
export const TESTBED_HANDLE = 'testbed'
const TA_VALIDITY_YEARS = 10

/** The TA's identity as a CA: its certificate and its one resource class "0" holding all resources. */
export async function createTrustAnchor(state: CaState, signer: Signer, serviceUri: string, now: Date, random: (n: number) => Uint8Array): Promise<{ ta: TaInfo; classes: CaState['classes']; nextClass: number }> {
  const keyId = await signer.createKey()
  const key = signer.signingKey(keyId)
  const all = ResourceSet.all()
  const withRepo = { ...state, classes: {} }
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 5 * 60_000)
  const notAfter = new Date(notBefore.getTime() + TA_VALIDITY_YEARS * 365 * 86400_000)
  const der = buildCert(
    {
      profile: 'rpki', kind: 'ca', serial: serialFromRandom(random(20)), issuerName: keyId, subjectName: keyId, subjectSpki: key.spki, subjectKeyId: keyIdentifier(key.spki), notBefore, notAfter,
      sia: { caRepository: classDir(withRepo, '0'), rpkiManifest: mftUri(withRepo, '0', keyId), rpkiNotify: state.repo!.rrdpNotificationUri },
      resources: { ipv4: all.ipv4, ipv6: all.ipv6, asn: all.asn },
    },
    key,
  )
  const rsyncUri = `${state.repo!.siaBase}ta.cer`
  const ta: TaInfo = { certDer: toBase64(der), rsyncUri, httpsUri: `${serviceUri}ta/ta.cer` }
  const cert = { der: ta.certDer, uri: rsyncUri, resources: all.toJSON(), notBefore: notBefore.toISOString(), notAfter: notAfter.toISOString() }
  return { ta, classes: { '0': { name: '0', parent: '', parentClass: '', entitled: all.toJSON(), notAfter: notAfter.toISOString(), current: { keyId, cert } } }, nextClass: 1 }
}

/** RFC 8630 §2.2: the URIs (https first, then rsync), an empty line, the base64 SubjectPublicKeyInfo. */
export function talText(ta: TaInfo, spki: Uint8Array): string {
  return encodeTal({ uris: [ta.httpsUri, ta.rsyncUri], spki })
}
