/**
 * BGPsec router certificates (RFC 8209, RFC 8608): the subject name, the request check, and the certificate svc
 * builds: exact bytes for fixed keys and times, the router profile of cert-profile.ts without a problem, the chain
 * to the issuing CA, and the RFC 8209 §3.1.3 extensions (EKU, no SIA, AS only).
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import * as oids from '../../../src/asn1/oids.js'
import { certRole, decodeCert, inspectCert, trustedCert, verifyCert } from '../../../src/objects/cert.js'
import { decodeCsr, verifyCsr } from '../../../src/objects/csr.js'
import { buildRouterCert, inspectRouterCsr, routerCommonName, routerKeyId } from '../../../src/objects/router-cert.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { toHex } from '../../../src/util/hex.js'
import { buildCert } from '../../../src/objects/cert.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { throwsRule } from '../../helpers/throws-rule.js'
import { fixedRouterKey, routerCsr, routerKey } from '../../helpers/router.js'

const ta = testKey('rpki-ta')
const ca = testKey('rpki-ca')
const DIR = 'rsync://localhost/repo/ca1/0/'
const caDer = buildCert({
  profile: 'rpki', kind: 'ca', serial: 7n, issuerName: ta.keyId, subjectName: ca.keyId, subjectSpki: ca.spki,
  notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'),
  crldp: 'rsync://localhost/repo/ta/ta.crl', aia: 'rsync://localhost/repo/ta/ta.cer',
  sia: { caRepository: DIR, rpkiManifest: `${DIR}x.mft` }, resources: { ipv4: IpBlocks.parse('10.0.0.0/8', 4), asn: AsBlocks.parse('AS65000-65010') },
}, ta)
const caCert = trustedCert(decodeCert(caDer), ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '' }))

function build(key = fixedRouterKey().spki): Uint8Array {
  return buildRouterCert({
    serial: 0x1234n, issuerName: ca.keyId, asn: 65000, subjectSpki: key,
    notBefore: new Date('2026-03-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'), crldp: `${DIR}${ca.keyId}.crl`, aia: 'rsync://localhost/repo/ta/ca.cer',
  }, ca)
}

t.test('RFC 8209 §3.1.1: ROUTER- and the AS as 8 upper-case hex digits', async (t) => {
  t.equal(routerCommonName(65000), 'ROUTER-0000FDE8')
  t.equal(routerCommonName(0), 'ROUTER-00000000')
  t.equal(routerCommonName(4294967295), 'ROUTER-FFFFFFFF')
  t.throws(() => routerCommonName(4294967296))
})

t.test('the router certificate: exact bytes, the router profile, the chain, the extensions', async (t) => {
  const der = build()
  // Golden: the fixed CA key (RSA PKCS#1 v1.5 is deterministic), the fixed router key, serial and times.
  t.equal(createHash('sha256').update(der).digest('hex'), GOLDEN_SHA256, 'byte-stable')
  const c = decodeCert(der)
  t.equal(certRole(c), 'router')
  t.same(inspectCert(c, 'router').filter((p) => p.severity === 'error'), [], 'no problem in the RFC 8209 profile')
  const verified = verifyCert(c, caCert, new Date('2026-06-01T00:00:00Z'))
  t.equal(verified.resources.asn.toString(), 'AS65000', 'exactly the one AS')
  t.equal(c.extensions.ip, undefined, 'RFC 8209 §3.1.3.4: no IP resources')
  t.equal(c.extensions.sia, undefined, 'RFC 8209 §3.1.3.3: no SIA')
  t.same(c.extensions.eku, ['1.3.6.1.5.5.7.3.30'], 'RFC 8209 §3.1.3.2: id-kp-bgpsec-router')
  t.match(toHex(der), '30130603551d25040c300a06082b0601050507031e', 'the EKU extension, not critical')
  t.equal(c.subject.attributes.find((a) => a.type === oids.idAtCommonName)?.value, 'ROUTER-0000FDE8')
  t.equal(c.subject.attributes.find((a) => a.type === oids.idAtSerialNumber)?.value, fixedRouterKey().keyId, 'serialNumber: the key id')
  t.equal(routerKeyId(c.spki), fixedRouterKey().keyId)
})

t.test('RFC 8608 §3: the request must hold a P-256 key and be signed with ecdsa-with-SHA256 by it', async (t) => {
  const key = routerKey()
  const good = decodeCsr(routerCsr(key))
  t.same(inspectRouterCsr(good), [])
  t.doesNotThrow(() => verifyCsr(good))
  const p384 = routerKey('P-384')
  t.match(inspectRouterCsr(decodeCsr(routerCsr(p384))).map((p) => p.rule), ['RFC 8608 §3.1'])
  throwsRule(t, () => verifyCsr(decodeCsr(routerCsr(key, { signer: routerKey().privateKey }))), 'RFC 2986 §3', {}, 'signed by another key')
})

const GOLDEN_SHA256 = '4167ec3b305c235b7deeb362d73953e82ea99d11a72aaac2b9159280786fb987'
