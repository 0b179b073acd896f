/**
 * Hand-made signed objects for negative tests: any eContent (even one the builders refuse) in a correct RFC 6488
 * envelope, under an EE certificate of the sample CA with the given resources.
 */
import { buildCert, type CertResources } from '../../src/objects/cert.js'
import { encodeSignedData } from '../../src/objects/signed-object.js'
import { testKey } from './fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_UNTIL } from './golden-objects.js'

/** A signed object of type `eContentType` around `eContent`, its EE issued by the sample CA (rpki-ca). */
export function handMadeObject(eContentType: string, eContent: Uint8Array, resources: CertResources, eeKey = 'rpki-ee-6'): Uint8Array {
  const ca = testKey('rpki-ca'), ee = testKey(eeKey)
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 1234n, issuerName: ca.keyId, subjectName: ee.keyId, subjectSpki: ee.spki,
    notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, crldp: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`,
    aia: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer`, sia: { signedObject: `${GOLDEN_BASE}repo/ca/hand-made.obj` }, resources,
  }, ca)
  return encodeSignedData(eContentType, eContent, eeCert, ee, GOLDEN_FROM)
}
