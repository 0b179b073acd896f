/**
 * Named OBJECT IDENTIFIERs used by RPKI (RFC 5280, 5652, 6487, 6488, 7935, 3779, 9582, 9286, ASPA, 6492/8181)
 * as dotted strings, plus `oidName()` for diagnostics. Encode with der.ts `oid()`, compare with der-reader `oidIs()`.
 */

// Algorithms (RFC 7935 §2, RFC 4055, RFC 5754)
export const sha256 = '2.16.840.1.101.3.4.2.1'
export const rsaEncryption = '1.2.840.113549.1.1.1'
export const sha256WithRsaEncryption = '1.2.840.113549.1.1.11'

// CMS (RFC 5652) and RPKI content types (RFC 6488, 9582, 9286, ASPA, RFC 6492 §3.1)
export const idData = '1.2.840.113549.1.7.1'
export const idSignedData = '1.2.840.113549.1.7.2'
export const idCtRouteOriginAuthz = '1.2.840.113549.1.9.16.1.24'
export const idCtRpkiManifest = '1.2.840.113549.1.9.16.1.26'
export const idCtXml = '1.2.840.113549.1.9.16.1.28'
export const idCtRpkiGhostbusters = '1.2.840.113549.1.9.16.1.35'
export const idCtSignedChecklist = '1.2.840.113549.1.9.16.1.48'
export const idCtAspa = '1.2.840.113549.1.9.16.1.49'
/** RFC 9691 §3: Trust Anchor Key objects. */
export const idCtSignedTal = '1.2.840.113549.1.9.16.1.50'

// CMS signed attributes (RFC 5652 §11, RFC 6019)
export const contentType = '1.2.840.113549.1.9.3'
export const messageDigest = '1.2.840.113549.1.9.4'
export const signingTime = '1.2.840.113549.1.9.5'
export const binarySigningTime = '1.2.840.113549.1.9.16.2.46'

// Private extensions and access methods (RFC 5280 §4.2.2, RFC 3779, RFC 6487, RFC 8182)
export const idPeAuthorityInfoAccess = '1.3.6.1.5.5.7.1.1'
export const idPeIpAddrBlocks = '1.3.6.1.5.5.7.1.7'
export const idPeAutonomousSysIds = '1.3.6.1.5.5.7.1.8'
export const idPeSubjectInfoAccess = '1.3.6.1.5.5.7.1.11'
export const idAdCaIssuers = '1.3.6.1.5.5.7.48.2'
export const idAdCaRepository = '1.3.6.1.5.5.7.48.5'
export const idAdRpkiManifest = '1.3.6.1.5.5.7.48.10'
export const idAdSignedObject = '1.3.6.1.5.5.7.48.11'
export const idAdRpkiNotify = '1.3.6.1.5.5.7.48.13'

// Policy (RFC 6484 §1.2) and the CPS qualifier (RFC 5280 §4.2.1.4)
export const idCpIpAddrAsNumber = '1.3.6.1.5.5.7.14.2'
export const idQtCps = '1.3.6.1.5.5.7.2.1'

// X.509 extensions (RFC 5280 §4.2.1, §5.2)
export const subjectKeyIdentifier = '2.5.29.14'
export const keyUsage = '2.5.29.15'
export const basicConstraints = '2.5.29.19'
export const cRLNumber = '2.5.29.20'
export const cRLDistributionPoints = '2.5.29.31'
export const certificatePolicies = '2.5.29.32'
export const authorityKeyIdentifier = '2.5.29.35'
export const extKeyUsage = '2.5.29.37'

// Name attributes (RFC 5280 Appendix A, RFC 6487 §4.4)
export const idAtCommonName = '2.5.4.3'
export const idAtSerialNumber = '2.5.4.5'
export const idAtCountryName = '2.5.4.6'
export const idAtOrganizationName = '2.5.4.10'

const NAMES: ReadonlyMap<string, string> = new Map([
  [sha256, 'sha256'], [rsaEncryption, 'rsaEncryption'], [sha256WithRsaEncryption, 'sha256WithRSAEncryption'],
  [idData, 'id-data'], [idSignedData, 'id-signedData'], [idCtRouteOriginAuthz, 'id-ct-routeOriginAuthz'],
  [idCtRpkiManifest, 'id-ct-rpkiManifest'], [idCtXml, 'id-ct-xml'], [idCtRpkiGhostbusters, 'id-ct-rpkiGhostbusters'],
  [idCtAspa, 'id-ct-ASPA'], [idCtSignedTal, 'id-ct-SignedTAL'], [contentType, 'contentType'], [messageDigest, 'messageDigest'],
  [signingTime, 'signingTime'], [binarySigningTime, 'binarySigningTime'],
  [idPeAuthorityInfoAccess, 'id-pe-authorityInfoAccess'], [idPeIpAddrBlocks, 'id-pe-ipAddrBlocks'],
  [idPeAutonomousSysIds, 'id-pe-autonomousSysIds'], [idPeSubjectInfoAccess, 'id-pe-subjectInfoAccess'],
  [idAdCaIssuers, 'id-ad-caIssuers'], [idAdCaRepository, 'id-ad-caRepository'],
  [idAdRpkiManifest, 'id-ad-rpkiManifest'], [idAdSignedObject, 'id-ad-signedObject'],
  [idAdRpkiNotify, 'id-ad-rpkiNotify'], [idCpIpAddrAsNumber, 'id-cp-ipAddr-asNumber'], [idQtCps, 'id-qt-cps'],
  [subjectKeyIdentifier, 'subjectKeyIdentifier'], [keyUsage, 'keyUsage'], [basicConstraints, 'basicConstraints'],
  [cRLNumber, 'cRLNumber'], [cRLDistributionPoints, 'cRLDistributionPoints'],
  [certificatePolicies, 'certificatePolicies'], [authorityKeyIdentifier, 'authorityKeyIdentifier'],
  [extKeyUsage, 'extKeyUsage'], [idAtCommonName, 'commonName'], [idAtSerialNumber, 'serialNumber'],
  [idAtCountryName, 'countryName'], [idAtOrganizationName, 'organizationName'],
  [idCtSignedChecklist, 'id-ct-signedChecklist'],
])

/** 'name (dotted)' for a known OID, the dotted form otherwise; for error messages and inspection output. */
export function oidName(dotted: string): string {
  const name = NAMES.get(dotted)
  return name === undefined ? dotted : `${name} (${dotted})`
}
