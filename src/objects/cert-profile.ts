/**
 * The certificate profiles as inspection rules: RFC 6487 §4 for resource certificates (trust anchor, CA, EE),
 * RFC 8209 for BGPsec router certificates, RFC 5280 basics for BPKI identity certificates (RFC 8183). One function
 * per extension, as rpki-client's cert.c; each problem names its section. Used by cert.ts (inspectCert).
 */
import { idAtCommonName } from '../asn1/oids.js'
import * as oids from '../asn1/oids.js'
import { keyIdentifier } from '../crypto/key-id.js'
import { bytesEqual } from '../util/bytes.js'
import type { Cert } from './cert.js'
import { KU_CRL_SIGN, KU_DIGITAL_SIGNATURE, KU_KEY_CERT_SIGN } from './cert-extensions.js'
import { inspectRpkiName, sameName } from './distinguished-name.js'
import { note, type Problem, problem, problemFromText } from './problem.js'

/** What a certificate is used as. 'bpki-*' are RFC 8183 identity (and BPKI EE) certificates. */
export type CertRole = 'ta' | 'ca' | 'ee' | 'router' | 'bpki-ca' | 'bpki-ee'

/** id-kp-bgpsec-router (RFC 8209 §3.1.3.2). */
export const ID_KP_BGPSEC_ROUTER = '1.3.6.1.5.5.7.3.30'
const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1'
const SECP256R1 = '1.2.840.10045.3.1.7'

/** The role a certificate looks like it plays: router (BGPsec EKU), BPKI (no RPKI policy or resources), TA, CA or EE. */
export function certRole(cert: Cert): CertRole {
  const x = cert.extensions
  if (x.eku?.includes(ID_KP_BGPSEC_ROUTER)) return 'router'
  const rpki = x.ip !== undefined || x.as !== undefined || x.policies?.some((p) => p.oid === oids.idCpIpAddrAsNumber) === true
  const ca = x.basicConstraints?.ca === true
  if (!rpki) return ca ? 'bpki-ca' : 'bpki-ee'
  if (!ca) return 'ee'
  return isSelfSigned(cert) ? 'ta' : 'ca'
}

/** Issuer = subject, and no AKI or an AKI equal to the SKI. */
export function isSelfSigned(cert: Cert): boolean {
  const aki = cert.extensions.aki?.keyIdentifier
  const ski = cert.extensions.ski
  return sameName(cert.issuer, cert.subject) && (aki === undefined || (ski !== undefined && bytesEqual(aki, ski)))
}

/** All profile problems of `cert` in `role`. */
export function inspectCertProfile(cert: Cert, role: CertRole): Problem[] {
  const out: Problem[] = []
  if (role === 'bpki-ca' || role === 'bpki-ee') {
    inspectBpki(cert, role, out)
    return out
  }
  inspectBasics(cert, role, out)
  inspectExtensionList(cert, out)
  inspectBasicConstraints(cert, role, out)
  inspectKeyIds(cert, role, out)
  inspectKeyUsage(cert, role, out)
  inspectCrldpAia(cert, role, out)
  inspectSia(cert, role, out)
  inspectPolicies(cert, out)
  inspectResources(cert, role, out)
  return out
}

//------------ Fields of the TBSCertificate ----------------------------------------------------------------------------

function inspectBasics(cert: Cert, role: CertRole, out: Problem[]): void {
  if (cert.encoding !== 'der') out.push(problem('RFC 6487 §4', 'certificate is not DER encoded'))
  if (cert.version !== 3) out.push(problem('RFC 6487 §4.1', `version ${cert.version}, expected 3`))
  if (cert.serial <= 0n) out.push(problem('RFC 6487 §4.2', 'serial number is not a positive integer'))
  if (cert.serialOctets > 20) out.push(problem('RFC 5280 §4.1.2.2', `serial number of ${cert.serialOctets} octets (at most 20)`))
  inspectAlgorithms(cert, out)
  out.push(...inspectRpkiName(cert.issuer, '4.4', 'issuer'), ...inspectRpkiName(cert.subject, '4.5', 'subject'))
  inspectValidity(cert, out)
  inspectKey(cert, role, out)
  if (cert.uniqueIds) out.push(problem('RFC 6487 §4', 'issuerUniqueID or subjectUniqueID present'))
}

function inspectAlgorithms(cert: Cert, out: Problem[]): void {
  // RFC 7935 §2: certificates are signed with sha256WithRSAEncryption; RFC 5280 §4.1.1.2: both fields equal.
  if (cert.signatureAlgorithm.oid !== oids.sha256WithRsaEncryption) {
    out.push(problem('RFC 6487 §4.3', `signature algorithm ${oids.oidName(cert.signatureAlgorithm.oid)}, expected sha256WithRSAEncryption`))
  }
  if (cert.tbsSignature.oid !== cert.signatureAlgorithm.oid || cert.tbsSignature.params !== cert.signatureAlgorithm.params) {
    out.push(problem('RFC 5280 §4.1.1.2', 'signature field differs from signatureAlgorithm'))
  }
  if (cert.signatureAlgorithm.params === 'absent') out.push(note('RFC 4055 §5', 'sha256WithRSAEncryption parameters absent (NULL expected)'))
  if (cert.signatureAlgorithm.params === 'other') out.push(problem('RFC 4055 §5', 'signature algorithm parameters are not NULL'))
}

function inspectValidity(cert: Cert, out: Problem[]): void {
  const rule = 'RFC 5280 §4.1.2.5'
  const check = (d: Date, tag: number, what: string): void => {
    const utc = d.getUTCFullYear() < 2050
    if (utc && tag !== 0x17) out.push(problem(rule, `${what} before 2050 is not a UTCTime`))
    if (!utc && tag !== 0x18) out.push(problem(rule, `${what} from 2050 is not a GeneralizedTime`))
  }
  check(cert.notBefore, cert.validityTags[0], 'notBefore')
  check(cert.notAfter, cert.validityTags[1], 'notAfter')
  if (cert.notBefore > cert.notAfter) out.push(problem('RFC 6487 §4.6', 'notBefore is after notAfter'))
}

function inspectKey(cert: Cert, role: CertRole, out: Problem[]): void {
  const k = cert.publicKey
  if (role === 'router') {
    // RFC 8608 §3.1: router keys are ECDSA on P-256.
    if (k.algorithm.oid !== ID_EC_PUBLIC_KEY || k.curve !== SECP256R1) out.push(problem('RFC 8608 §3.1', 'router key is not ECDSA P-256'))
    return
  }
  // RFC 7935 §3: RSA, a 2048-bit modulus, public exponent 65537.
  if (k.rsa === undefined) out.push(problem('RFC 7935 §3', `public key algorithm ${oids.oidName(k.algorithm.oid)}, expected rsaEncryption`))
  else if (k.rsa.modulusBits !== 2048) out.push(problem('RFC 7935 §3', `RSA modulus of ${k.rsa.modulusBits} bits, expected 2048`))
  else if (k.rsa.exponent !== 65537n) out.push(problem('RFC 7935 §3', `RSA public exponent ${k.rsa.exponent}, expected 65537`))
  if (k.rsa !== undefined && k.algorithm.params !== 'null') out.push(problem('RFC 7935 §3', 'rsaEncryption parameters are not NULL'))
}

//------------ Extensions ----------------------------------------------------------------------------------------------

/** RFC 6487 §4.8: the extension each OID is and whether it must be critical. */
const KNOWN: ReadonlyMap<string, { name: string; critical: boolean; section: string }> = new Map([
  [oids.basicConstraints, { name: 'basicConstraints', critical: true, section: '4.8.1' }],
  [oids.subjectKeyIdentifier, { name: 'subjectKeyIdentifier', critical: false, section: '4.8.2' }],
  [oids.authorityKeyIdentifier, { name: 'authorityKeyIdentifier', critical: false, section: '4.8.3' }],
  [oids.keyUsage, { name: 'keyUsage', critical: true, section: '4.8.4' }],
  [oids.extKeyUsage, { name: 'extKeyUsage', critical: false, section: '4.8.5' }],
  [oids.cRLDistributionPoints, { name: 'cRLDistributionPoints', critical: false, section: '4.8.6' }],
  [oids.idPeAuthorityInfoAccess, { name: 'authorityInfoAccess', critical: false, section: '4.8.7' }],
  [oids.idPeSubjectInfoAccess, { name: 'subjectInfoAccess', critical: false, section: '4.8.8' }],
  [oids.certificatePolicies, { name: 'certificatePolicies', critical: true, section: '4.8.9' }],
  [oids.idPeIpAddrBlocks, { name: 'IP resources', critical: true, section: '4.8.10' }],
  [oids.idPeAutonomousSysIds, { name: 'AS resources', critical: true, section: '4.8.11' }],
])

function inspectExtensionList(cert: Cert, out: Problem[]): void {
  for (const id of cert.extensions.duplicates) out.push(problem('RFC 5280 §4.2', `extension ${oids.oidName(id)} appears more than once`))
  for (const e of cert.extensions.list) {
    const known = KNOWN.get(e.oid)
    if (e.explicitFalse) out.push(problem('X.690 §11.5', `extension ${oids.oidName(e.oid)} encodes the DEFAULT critical FALSE`))
    if (known === undefined) {
      if (e.critical) out.push(problem('RFC 6487 §4.8', `unknown critical extension ${oids.oidName(e.oid)}`))
      else out.push(note('RFC 6487 §4.8', `unexpected extension ${oids.oidName(e.oid)}`))
    } else if (known.critical !== e.critical) {
      out.push(problem(`RFC 6487 §${known.section}`, `${known.name} must ${known.critical ? '' : 'not '}be critical`))
    }
  }
}

function inspectBasicConstraints(cert: Cert, role: CertRole, out: Problem[]): void {
  const rule = 'RFC 6487 §4.8.1'
  const bc = cert.extensions.basicConstraints
  if (role === 'ta' || role === 'ca') {
    if (bc === undefined || !bc.ca) out.push(problem(rule, 'a CA certificate needs basicConstraints with cA TRUE'))
    else if (bc.pathLen !== undefined) out.push(problem(rule, 'pathLenConstraint must not be present'))
  } else if (bc !== undefined) {
    out.push(problem(rule, 'basicConstraints must not be present in an EE certificate'))
  }
  if (bc?.explicitFalse) out.push(problem('X.690 §11.5', 'basicConstraints encodes the DEFAULT cA FALSE'))
}

function inspectKeyIds(cert: Cert, role: CertRole, out: Problem[]): void {
  const x = cert.extensions
  if (x.ski === undefined) out.push(problem('RFC 6487 §4.8.2', 'subjectKeyIdentifier is missing'))
  else if (!bytesEqual(x.ski, keyIdentifier(cert.spki))) out.push(problem('RFC 6487 §4.8.2', 'subjectKeyIdentifier is not the SHA-1 of the public key'))
  const rule = 'RFC 6487 §4.8.3'
  if (x.aki === undefined) {
    if (role !== 'ta') out.push(problem(rule, 'authorityKeyIdentifier is missing'))
    return
  }
  if (x.aki.keyIdentifier === undefined) out.push(problem(rule, 'authorityKeyIdentifier has no keyIdentifier'))
  if (x.aki.issuerAndSerial) out.push(problem(rule, 'authorityKeyIdentifier has authorityCertIssuer or authorityCertSerialNumber'))
  if (role === 'ta' && x.ski !== undefined && x.aki.keyIdentifier !== undefined && !bytesEqual(x.aki.keyIdentifier, x.ski)) {
    out.push(problem(rule, 'a self-signed certificate has an AKI other than its SKI'))
  }
}

function inspectKeyUsage(cert: Cert, role: CertRole, out: Problem[]): void {
  const rule = 'RFC 6487 §4.8.4'
  const ku = cert.extensions.keyUsage
  const ca = role === 'ta' || role === 'ca'
  const want = ca ? KU_KEY_CERT_SIGN | KU_CRL_SIGN : KU_DIGITAL_SIGNATURE
  if (ku === undefined) out.push(problem(rule, 'keyUsage is missing'))
  else if (ku.bits !== want) out.push(problem(rule, `key usage violation: expected ${ca ? 'keyCertSign and cRLSign' : 'digitalSignature'} only`))
  const eku = cert.extensions.eku
  if (ca && eku !== undefined) out.push(problem('RFC 6487 §4.8.5', 'extKeyUsage must not be present in a CA certificate'))
  if (role === 'router' && !eku?.includes(ID_KP_BGPSEC_ROUTER)) out.push(problem('RFC 8209 §3.1.3.2', 'extKeyUsage lacks id-kp-bgpsec-router'))
}

function inspectCrldpAia(cert: Cert, role: CertRole, out: Problem[]): void {
  const { crldp, aia } = cert.extensions
  if (role === 'ta') {
    if (crldp !== undefined) out.push(problem('RFC 6487 §4.8.6', 'a self-signed certificate has cRLDistributionPoints'))
    if (aia !== undefined) out.push(problem('RFC 6487 §4.8.7', 'a self-signed certificate has authorityInfoAccess'))
    return
  }
  if (crldp === undefined) out.push(problem('RFC 6487 §4.8.6', 'cRLDistributionPoints is missing'))
  else {
    if (crldp.count !== 1) out.push(problem('RFC 6487 §4.8.6', `${crldp.count} DistributionPoints, expected 1`))
    for (const x of crldp.extras) out.push(problem('RFC 6487 §4.8.6', `CRL distribution point has ${x}`))
    if (!crldp.uris.some(isRsync)) out.push(problem('RFC 6487 §4.8.6', 'no rsync URI for the CRL'))
  }
  if (aia === undefined) out.push(problem('RFC 6487 §4.8.7', 'authorityInfoAccess is missing'))
  else if (!aia.some((a) => a.method === oids.idAdCaIssuers && isRsync(a.uri))) out.push(problem('RFC 6487 §4.8.7', 'no caIssuers rsync URI'))
  else if (aia.some((a) => a.method !== oids.idAdCaIssuers)) out.push(problem('RFC 6487 §4.8.7', 'an access method other than caIssuers'))
}

function isRsync(uri: string | undefined): boolean {
  return uri !== undefined && uri.startsWith('rsync://')
}

function inspectSia(cert: Cert, role: CertRole, out: Problem[]): void {
  const sia = cert.extensions.sia
  const has = (m: string): boolean => sia?.some((a) => a.method === m) === true
  const rsync = (m: string): boolean => sia?.some((a) => a.method === m && isRsync(a.uri)) === true
  if (role === 'router') {
    if (sia !== undefined) out.push(problem('RFC 8209 §3.1.3.3', 'a router certificate has subjectInfoAccess'))
    return
  }
  if (sia === undefined) {
    out.push(problem(role === 'ee' ? 'RFC 6487 §4.8.8.2' : 'RFC 6487 §4.8.8.1', 'subjectInfoAccess is missing'))
    return
  }
  if (role === 'ee') {
    if (!rsync(oids.idAdSignedObject)) out.push(problem('RFC 6487 §4.8.8.2', 'SIA has no signedObject rsync URI'))
    if (has(oids.idAdCaRepository) || has(oids.idAdRpkiManifest)) out.push(problem('RFC 6487 §4.8.8.2', 'an EE certificate has caRepository or rpkiManifest'))
    return
  }
  if (!rsync(oids.idAdCaRepository)) out.push(problem('RFC 6487 §4.8.8.1', 'SIA has no caRepository rsync URI'))
  if (!rsync(oids.idAdRpkiManifest)) out.push(problem('RFC 6487 §4.8.8.1', 'SIA has no rpkiManifest rsync URI'))
  if (has(oids.idAdSignedObject)) out.push(problem('RFC 6487 §4.8.8.1', 'a CA certificate has signedObject'))
  // RFC 8182 §3.2: rpkiNotify is an https URI.
  for (const a of sia) if (a.method === oids.idAdRpkiNotify && !a.uri?.startsWith('https://')) out.push(problem('RFC 8182 §3.2', 'SIA: rpkiNotify bad location'))
}

function inspectPolicies(cert: Cert, out: Problem[]): void {
  const rule = 'RFC 6487 §4.8.9'
  const p = cert.extensions.policies
  if (p === undefined) out.push(problem(rule, 'certificatePolicies is missing'))
  else if (p.length !== 1 || p[0].oid !== oids.idCpIpAddrAsNumber) out.push(problem(rule, 'the only policy must be id-cp-ipAddr-asNumber'))
  // RFC 7318 §2: the only policy qualifier allowed is a CPS pointer.
  else if (p[0].qualifiers.some((q) => q !== oids.idQtCps)) out.push(problem('RFC 7318 §2', 'policy qualifier other than id-qt-cps'))
}

function inspectResources(cert: Cert, role: CertRole, out: Problem[]): void {
  const { ip, as } = cert.extensions
  // RFC 6487 §4.8.10: either the IP or the AS resources extension, or both.
  if (ip === undefined && as === undefined) out.push(problem('RFC 6487 §4.8.10', 'neither IP nor AS resources are present'))
  for (const p of [...(ip?.problems ?? []), ...(as?.problems ?? [])]) out.push(problemFromText(p))
  if (role === 'ta' && (ip?.ipv4 === 'inherit' || ip?.ipv6 === 'inherit' || as?.asn === 'inherit')) {
    out.push(problem('RFC 8630 §2.3', 'a trust anchor certificate must not use inherit'))
  }
  if (role === 'router') {
    if (ip !== undefined) out.push(problem('RFC 8209 §3.1.3.4', 'a router certificate has IP resources'))
    if (as === undefined) out.push(problem('RFC 8209 §3.1.3.5', 'a router certificate needs AS resources'))
  }
}

//------------ BPKI identity certificates ------------------------------------------------------------------------------

/** RFC 8183 §2 names a self-signed BPKI CA; RFC 5280 gives the basics. Foreign BPKI names are not restricted. */
function inspectBpki(cert: Cert, role: 'bpki-ca' | 'bpki-ee', out: Problem[]): void {
  if (cert.version !== 3) out.push(problem('RFC 5280 §4.1.2.1', `version ${cert.version}, expected 3`))
  if (cert.serial <= 0n) out.push(problem('RFC 5280 §4.1.2.2', 'serial number is not a positive integer'))
  if (cert.extensions.ski === undefined && role === 'bpki-ca') out.push(problem('RFC 5280 §4.2.1.2', 'subjectKeyIdentifier is missing'))
  if (!cert.subject.attributes.some((a) => a.type === idAtCommonName) && cert.subject.rdnCount === 0) {
    out.push(problem('RFC 5280 §4.1.2.6', 'subject is empty'))
  }
  for (const id of cert.extensions.duplicates) out.push(problem('RFC 5280 §4.2', `extension ${oids.oidName(id)} appears more than once`))
  if (role === 'bpki-ca') {
    const bc = cert.extensions.basicConstraints
    if (bc?.ca !== true) out.push(problem('RFC 5280 §4.2.1.9', 'an identity CA certificate needs basicConstraints cA TRUE'))
  } else if (!isSelfSigned(cert) && cert.extensions.aki?.keyIdentifier === undefined) {
    out.push(problem('RFC 5280 §4.2.1.1', 'authorityKeyIdentifier is missing'))
  }
}
