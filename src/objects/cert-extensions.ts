/**
 * X.509 v3 extensions of resource certificates (RFC 6487 §4.8, RFC 5280 §4.2) and BPKI identity certificates
 * (RFC 8183): one builder and one reader per extension, as rpki-client's cert_* functions. Builders return the whole
 * Extension (constant ones precomputed); readers fill CertExtensions and leave profile judgement to cert-profile.ts.
 * Used by cert.ts (build, decode) and crl.ts (AKI).
 */
import { bitString, bool, EncodeError, explicit, octetString, oid, seq, seqOf, tlv } from '../asn1/der.js'
import {
  children, cursor, type DerNode, expectSequence, expectTag, firstChild, nextSibling, parseEmbedded, readBigInt, readBool, readInt, readNamedBitString,
  readOctetString, readOid, tagName,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import {
  type AsChoice, decodeAsIdentifiers, decodeIpAddrBlocks, type DecodedAsIdentifiers, type DecodedIpAddrBlocks,
  encodeAsIdentifiers, encodeIpAddrBlocks, type IpAddrBlocksValue,
} from '../asn1/rfc3779.js'
import { DecodeError } from '../util/errors.js'
import { OidTable } from './oid-table.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface Extension {
  readonly oid: string
  readonly critical: boolean
  /** The extnValue contents (the DER of the extension's value; a view). */
  readonly value: Uint8Array
  /** DER forbids writing the DEFAULT `critical FALSE` (X.690 §11.5). */
  readonly explicitFalse: boolean
}

export interface AccessDescription {
  readonly method: string
  /** The uniformResourceIdentifier; undefined when the GeneralName is of another kind. */
  readonly uri?: string
}

export interface KeyUsageBits {
  /** Named bits set: bit n of RFC 5280 §4.2.1.3 is (1 << n); digitalSignature = 1, keyCertSign = 32, cRLSign = 64. */
  readonly bits: number
}

export const KU_DIGITAL_SIGNATURE = 1
export const KU_KEY_CERT_SIGN = 1 << 5
export const KU_CRL_SIGN = 1 << 6

export interface DistributionPoints {
  readonly uris: readonly string[]
  /** Number of DistributionPoints. */
  readonly count: number
  /** reasons, cRLIssuer, nameRelativeToCRLIssuer or a non-URI name appeared (RFC 6487 §4.8.6 forbids them). */
  readonly extras: readonly string[]
}

export interface PolicyInformation {
  readonly oid: string
  /** policyQualifierIds present (id-qt-cps is the only one RFC 7318 allows). */
  readonly qualifiers: readonly string[]
}

export interface AuthorityKeyId {
  readonly keyIdentifier?: Uint8Array
  /** authorityCertIssuer or authorityCertSerialNumber present (RFC 6487 §4.8.3 forbids them). */
  readonly issuerAndSerial: boolean
}

/** What the extensions of a certificate say. Each field is the first instance (duplicates are in `duplicates`). */
export interface CertExtensions {
  readonly list: readonly Extension[]
  readonly duplicates: readonly string[]
  basicConstraints?: { ca: boolean; pathLen?: number; explicitFalse: boolean }
  ski?: Uint8Array
  aki?: AuthorityKeyId
  keyUsage?: KeyUsageBits
  eku?: readonly string[]
  crldp?: DistributionPoints
  aia?: readonly AccessDescription[]
  sia?: readonly AccessDescription[]
  policies?: readonly PolicyInformation[]
  ip?: DecodedIpAddrBlocks
  as?: DecodedAsIdentifiers
  /** CRLs only (RFC 5280 §5.2.3): the CRL number and its contents octets. */
  crlNumber?: { value: bigint; octets: number }
}

//------------ Building ------------------------------------------------------------------------------------------------

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE (omitted when false), extnValue OCTET STRING }. */
export function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return critical ? seq(oid(id), bool(true), octetString(value)) : seq(oid(id), octetString(value))
}

/** RFC 6487 §4.8.1: basicConstraints, critical, cA TRUE, no pathLenConstraint. */
export const EXT_BASIC_CONSTRAINTS_CA: Uint8Array = extension(oids.basicConstraints, true, seq(bool(true)))
/** RFC 6487 §4.8.4: keyUsage keyCertSign | cRLSign, critical (03 02 01 06). */
export const EXT_KEY_USAGE_CA: Uint8Array = extension(oids.keyUsage, true, bitString(Uint8Array.of(0x06), 1))
/** RFC 6487 §4.8.4: keyUsage digitalSignature, critical (03 02 07 80). */
export const EXT_KEY_USAGE_EE: Uint8Array = extension(oids.keyUsage, true, bitString(Uint8Array.of(0x80), 7))
/** RFC 6487 §4.8.9: certificatePolicies, critical, exactly the RPKI policy id-cp-ipAddr-asNumber. */
export const EXT_RPKI_POLICY: Uint8Array = extension(oids.certificatePolicies, true, seq(seq(oid(oids.idCpIpAddrAsNumber))))

/** RFC 6487 §4.8.2: subjectKeyIdentifier, non-critical. */
export function skiExtension(ski: Uint8Array): Uint8Array {
  return extension(oids.subjectKeyIdentifier, false, octetString(ski))
}

/** RFC 6487 §4.8.3: authorityKeyIdentifier with keyIdentifier [0] only, non-critical. */
export function akiExtension(keyId: Uint8Array): Uint8Array {
  return extension(oids.authorityKeyIdentifier, false, seq(tlv(0x80, keyId)))
}

/** GeneralName uniformResourceIdentifier [6] IMPLICIT IA5String; URIs are printable ASCII (RFC 3986 §2). */
function uriName(uri: string): Uint8Array {
  if (!/^[\x21-\x7e]+$/.test(uri)) throw new EncodeError('RFC 3986 §2', `${JSON.stringify(uri)} is not a URI of printable ASCII`)
  return tlv(0x86, Buffer.from(uri, 'latin1'))
}

/** RFC 6487 §4.8.6: one DistributionPoint with a fullName URI, non-critical. */
export function crldpExtension(uri: string): Uint8Array {
  return extension(oids.cRLDistributionPoints, false, seq(seq(explicit(0, explicit(0, uriName(uri))))))
}

/** RFC 6487 §4.8.7: authorityInfoAccess with one caIssuers URI, non-critical. */
export function aiaExtension(uri: string): Uint8Array {
  return extension(oids.idPeAuthorityInfoAccess, false, seq(seq(oid(oids.idAdCaIssuers), uriName(uri))))
}

/** RFC 6487 §4.8.8: subjectInfoAccess with the access descriptions in the given order, non-critical. */
export function siaExtension(entries: readonly { method: string; uri: string }[]): Uint8Array {
  return extension(oids.idPeSubjectInfoAccess, false, seqOf(entries.map((e) => seq(oid(e.method), uriName(e.uri)))))
}

/** RFC 6487 §4.8.10: the IP resources extension, critical. */
export function ipResourcesExtension(v: IpAddrBlocksValue): Uint8Array {
  return extension(oids.idPeIpAddrBlocks, true, encodeIpAddrBlocks(v))
}

/** RFC 6487 §4.8.11: the AS resources extension, critical. */
export function asResourcesExtension(asn: AsChoice): Uint8Array {
  return extension(oids.idPeAutonomousSysIds, true, encodeAsIdentifiers(asn))
}

//------------ Reading -------------------------------------------------------------------------------------------------

const RULE = 'RFC 5280 §4.2'

const EXTENSION_IDS = new OidTable([
  oids.basicConstraints, oids.subjectKeyIdentifier, oids.authorityKeyIdentifier, oids.keyUsage, oids.cRLDistributionPoints,
  oids.idPeAuthorityInfoAccess, oids.idPeSubjectInfoAccess, oids.certificatePolicies, oids.idPeIpAddrBlocks,
  oids.idPeAutonomousSysIds, oids.extKeyUsage, oids.cRLNumber,
])
const ACCESS_METHODS = new OidTable([oids.idAdCaIssuers, oids.idAdCaRepository, oids.idAdRpkiManifest, oids.idAdSignedObject, oids.idAdRpkiNotify])
const POLICIES = new OidTable([oids.idCpIpAddrAsNumber, oids.idQtCps])

/** The explicitly tagged extensions of a TBS (`wrapper`: TBSCertificate [3] or TBSCertList [0]; `what` under `rule`), none when absent. */
export function readTaggedExtensions(wrapper: DerNode | undefined, rule: string, what: string): CertExtensions {
  if (wrapper === undefined) return { list: [], duplicates: [] }
  const c = cursor(wrapper)
  const ext = readExtensions(c.next(rule, 0x30, what))
  c.end(rule)
  return ext
}

/** Read the Extensions SEQUENCE (the contents of TBSCertificate [3]); each known extension is decoded. */
export function readExtensions(node: DerNode): CertExtensions {
  const exts: Extension[] = []
  const duplicates: string[] = []
  const out: CertExtensions = { list: exts, duplicates }
  for (let e = firstChild(expectTag(node, 0x30, RULE, 'Extensions')); e !== undefined; e = nextSibling(e)) {
    // Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING } (walked by hand:
    // this runs for every extension of every EE certificate).
    const idNode = expectTag(firstChild(expectTag(e, 0x30, RULE, 'Extension')), 0x06, RULE, 'extnID')
    let valueNode = required(nextSibling(idNode), RULE, 'extnValue')
    const b = valueNode.tag === 0x01 ? valueNode : undefined
    if (b !== undefined) valueNode = expectTag(nextSibling(b), 0x04, RULE, 'extnValue')
    else expectTag(valueNode, 0x04, RULE, 'extnValue')
    if (nextSibling(valueNode) !== undefined) throw new DecodeError(RULE, 'unexpected element after extnValue')
    const critical = b === undefined ? false : readBool(b, RULE)
    const ext = { oid: EXTENSION_IDS.read(idNode, RULE), critical, value: readOctetString(valueNode, RULE), explicitFalse: b !== undefined && !critical }
    // RFC 5280 §4.2: an extension appears at most once (the first instance counts; inspect reports the rest).
    if (seenBefore(exts, ext.oid)) duplicates.push(ext.oid)
    else readKnownExtension(ext, valueNode, out)
    exts.push(ext)
  }
  return out
}

/** The node, or DecodeError(rule) when the element is missing. */
function required(node: DerNode | undefined, rule: string, what: string): DerNode {
  if (node === undefined) throw new DecodeError(rule, `${what} is missing`)
  return node
}

function seenBefore(exts: readonly Extension[], id: string): boolean {
  for (let i = 0; i < exts.length; i++) if (exts[i].oid === id) return true
  return false
}

/** Decode a known extension's value (the DER inside extnValue, read with the certificate's node budget). */
function readKnownExtension(ext: Extension, octets: DerNode, out: CertExtensions): void {
  switch (ext.oid) {
    case oids.basicConstraints: out.basicConstraints = readBasicConstraints(parseEmbedded(octets)); break
    case oids.subjectKeyIdentifier: out.ski = readOctetString(expectTag(parseEmbedded(octets), 0x04, 'RFC 5280 §4.2.1.2', 'keyIdentifier')); break
    case oids.authorityKeyIdentifier: out.aki = readAki(parseEmbedded(octets)); break
    case oids.keyUsage: out.keyUsage = readKeyUsage(parseEmbedded(octets)); break
    case oids.extKeyUsage: out.eku = readOidList(parseEmbedded(octets), 'RFC 5280 §4.2.1.12'); break
    case oids.cRLDistributionPoints: out.crldp = readCrldp(parseEmbedded(octets)); break
    case oids.idPeAuthorityInfoAccess: out.aia = readAccessDescriptions(parseEmbedded(octets), 'RFC 5280 §4.2.2.1'); break
    case oids.idPeSubjectInfoAccess: out.sia = readAccessDescriptions(parseEmbedded(octets), 'RFC 5280 §4.2.2.2'); break
    case oids.certificatePolicies: out.policies = readPolicies(parseEmbedded(octets)); break
    case oids.idPeIpAddrBlocks: out.ip = decodeIpAddrBlocks(ext.value); break
    case oids.idPeAutonomousSysIds: out.as = decodeAsIdentifiers(ext.value); break
    case oids.cRLNumber: out.crlNumber = readCrlNumber(parseEmbedded(octets)); break
  }
}

function readCrlNumber(node: DerNode): { value: bigint; octets: number } {
  return { value: readBigInt(node, 'RFC 5280 §5.2.3'), octets: expectTag(node, 0x02, 'RFC 5280 §5.2.3', 'CRLNumber').length }
}

function readOidList(node: DerNode, rule: string): string[] {
  return children(expectSequence(node, rule).node).map((n) => readOid(n, rule))
}

function readBasicConstraints(node: DerNode): { ca: boolean; pathLen?: number; explicitFalse: boolean } {
  const rule = 'RFC 5280 §4.2.1.9'
  const c = expectSequence(node, rule, 'BasicConstraints')
  const b = c.optional(0x01)
  const ca = b === undefined ? false : readBool(b, rule)
  const p = c.optional(0x02)
  c.end(rule)
  return { ca, pathLen: p === undefined ? undefined : readInt(p, rule), explicitFalse: b !== undefined && !ca }
}

function readAki(node: DerNode): AuthorityKeyId {
  const rule = 'RFC 5280 §4.2.1.1'
  const c = expectSequence(node, rule, 'AuthorityKeyIdentifier')
  const ki = c.optional(0x80)
  const issuer = c.optional(0xa1)
  const serial = c.optional(0x82)
  c.end(rule)
  return { keyIdentifier: ki?.content(), issuerAndSerial: issuer !== undefined || serial !== undefined }
}

function readKeyUsage(node: DerNode): KeyUsageBits {
  const { bytes } = readNamedBitString(node, 'RFC 5280 §4.2.1.3')
  let bits = 0
  for (let i = 0; i < 9 && i < bytes.length * 8; i++) if (bytes[i >> 3] & (0x80 >> (i & 7))) bits |= 1 << i
  return { bits }
}

/** A GeneralName: the URI of a uniformResourceIdentifier [6] (IA5String contents), undefined for other kinds. */
function generalNameUri(n: DerNode, rule: string): string | undefined {
  if (n.tag !== 0x86) return undefined
  let s = ''
  const b = n.bytes
  for (let i = n.start + n.headerLength; i < n.end; i++) {
    if (b[i] > 0x7e || b[i] < 0x20) throw new DecodeError(rule, `URI contains the octet 0x${b[i].toString(16)} at offset ${i}`)
    s += String.fromCharCode(b[i])
  }
  return s
}

function readCrldp(node: DerNode): DistributionPoints {
  const rule = 'RFC 5280 §4.2.1.13'
  const uris: string[] = []
  const extras: string[] = []
  const points = children(expectSequence(node, rule, 'CRLDistributionPoints').node)
  for (const dp of points) {
    const c = expectSequence(dp, rule, 'DistributionPoint')
    const name = c.optional(0xa0)
    if (c.optional(0xa1) !== undefined) extras.push('reasons')
    if (c.optional(0xa2) !== undefined) extras.push('cRLIssuer')
    c.end(rule)
    if (name === undefined) continue
    const full = cursor(name).next(rule, undefined, 'DistributionPointName')
    if (full.tag !== 0xa0) {
      extras.push('nameRelativeToCRLIssuer')
      continue
    }
    for (const g of children(full)) {
      const uri = generalNameUri(g, rule)
      if (uri === undefined) extras.push(`a ${tagName(g.tag)} name`)
      else uris.push(uri)
    }
  }
  return { uris, count: points.length, extras }
}

function readAccessDescriptions(node: DerNode, rule: string): AccessDescription[] {
  const out: AccessDescription[] = []
  for (let ad = firstChild(expectTag(node, 0x30, rule, 'AccessDescriptions')); ad !== undefined; ad = nextSibling(ad)) {
    const m = expectTag(firstChild(expectTag(ad, 0x30, rule, 'AccessDescription')), 0x06, rule, 'accessMethod')
    const location = required(nextSibling(m), rule, 'accessLocation')
    if (nextSibling(location) !== undefined) throw new DecodeError(rule, 'unexpected element after accessLocation')
    out.push({ method: ACCESS_METHODS.read(m, rule), uri: generalNameUri(location, rule) })
  }
  return out
}

function readPolicies(node: DerNode): PolicyInformation[] {
  const rule = 'RFC 5280 §4.2.1.4'
  return children(expectSequence(node, rule, 'CertificatePolicies').node).map((pi) => {
    const c = expectSequence(pi, rule, 'PolicyInformation')
    const id = POLICIES.read(c.next(rule, 0x06, 'policyIdentifier'), rule)
    const q = c.optional(0x30)
    c.end(rule)
    const qualifiers = q === undefined ? [] : children(q).map((pq) => POLICIES.read(expectSequence(pq, rule).next(rule, 0x06), rule))
    return { oid: id, qualifiers }
  })
}
