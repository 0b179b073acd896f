/**
 * Resource certificates (RFC 6487: trust anchor, CA and EE; BGPsec router certificates, RFC 8209) and plain BPKI
 * identity certificates (RFC 8183: self-signed CA and the EE certificates it issues), as one type with one builder.
 * Verbs: decodeCert (syntax, DER or BER), inspectCert (profile, per role), verifyCert (signature, time, RFC 3779
 * containment → ResourceCert), buildCert. Extensions: cert-extensions.ts; profile rules: cert-profile.ts.
 * Used by the CA (issuing), signed-object.ts (EE certificates), protocol/ (ID certificates) and `svcc inspect`.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { bitString, EncodeError, explicit, int, seq, x509Time } from '../asn1/der.js'
import {
  cursor, type DerNode, expectSequence, readInt, readIntegerContent, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { AsChoice, IpChoice } from '../asn1/rfc3779.js'
import { keyIdentifier } from '../crypto/key-id.js'
import type { SigningKey } from '../crypto/signer.js'
import { AsBlocks } from '../resources/asn.js'
import { IpBlocks } from '../resources/ip.js'
import { ResourceSet } from '../resources/resource-set.js'
import { bytesEqual } from '../util/bytes.js'
import { VerificationError } from '../util/errors.js'
import { httpsUri, rsyncUri } from '../util/uri.js'
import { ALG_SHA256_WITH_RSA, type AlgorithmId, type PublicKeyInfo, readAlgorithm, readPublicKeyInfo } from './algorithm.js'
import {
  aiaExtension, akiExtension, asResourcesExtension, type CertExtensions, crldpExtension, EXT_BASIC_CONSTRAINTS_CA,
  EXT_KEY_USAGE_CA, EXT_KEY_USAGE_EE, EXT_RPKI_POLICY, ipResourcesExtension, readTaggedExtensions, siaExtension,
  skiExtension,
} from './cert-extensions.js'
import { certRole, type CertRole, inspectCertProfile } from './cert-profile.js'
import { type DistinguishedName, encodeName, type NameSpec, readName, sameName } from './distinguished-name.js'
import { decodeDerOrBer, readSignedParts } from './encoding.js'
import type { Problem } from './problem.js'

export type { CertRole } from './cert-profile.js'
export { certRole } from './cert-profile.js'

//------------ Types ---------------------------------------------------------------------------------------------------

/** A decoded certificate: syntax checked, profile not checked (inspectCert), not verified (verifyCert). */
export interface Cert {
  /** The certificate's DER (the re-encoded DER when the input was BER). */
  readonly bytes: Uint8Array
  readonly encoding: 'der' | 'ber'
  /** The TBSCertificate exactly as received: the bytes the signature covers. */
  readonly tbs: Uint8Array
  /** The X.509 version number: 1, 2 or 3 (the encoded value plus one). */
  readonly version: number
  readonly serial: bigint
  /** Contents octets of the serial INTEGER, sign octet included (RFC 5280 §4.1.2.2: at most 20). */
  readonly serialOctets: number
  readonly tbsSignature: AlgorithmId
  readonly signatureAlgorithm: AlgorithmId
  readonly issuer: DistinguishedName
  readonly subject: DistinguishedName
  readonly notBefore: Date
  readonly notAfter: Date
  /** Identifier octets of notBefore and notAfter (0x17 UTCTime, 0x18 GeneralizedTime). */
  readonly validityTags: readonly [number, number]
  /** The SubjectPublicKeyInfo DER. */
  readonly spki: Uint8Array
  readonly publicKey: PublicKeyInfo
  /** issuerUniqueID or subjectUniqueID present (RFC 6487 §4 forbids them). */
  readonly uniqueIds: boolean
  readonly extensions: CertExtensions
  readonly signature: Uint8Array
}

/** A verified certificate: chain, signature and time checked, resources resolved (only this can be an issuer). */
export interface ResourceCert extends Cert {
  /** The RFC 6487 §4.8.2 key identifier of the subject key (SHA-1 of the subjectPublicKey bits). */
  readonly keyId: Uint8Array
  /** Effective resources, 'inherit' resolved from the issuer; empty for BPKI certificates. */
  readonly resources: ResourceSet
  readonly profile: 'rpki' | 'bpki'
}

export interface CaSia {
  caRepository: string
  rpkiManifest: string
  rpkiNotify?: string
}

export interface EeSia {
  signedObject: string
}

/** RFC 3779 resources of a certificate to build; an absent family is left out, 'inherit' is written as such. */
export interface CertResources {
  ipv4?: IpChoice
  ipv6?: IpChoice
  asn?: AsChoice
}

/** What buildCert writes. AKI is the issuer key's identifier, left out for a self-signed certificate. */
export interface CertSpec {
  profile: 'rpki' | 'bpki'
  kind: 'ca' | 'ee'
  /** Positive, at most 20 octets with the sign octet (RFC 5280 §4.1.2.2): use 159 random bits, or a counter. */
  serial: bigint
  issuerName: NameSpec
  subjectName: NameSpec
  subjectSpki: Uint8Array
  /** The subject's key identifier when known (a OneOffKey's `ski`); computed from subjectSpki otherwise. */
  subjectKeyId?: Uint8Array
  notBefore: Date
  notAfter: Date
  /** rsync URI of the issuer's CRL (RFC 6487 §4.8.6); not for self-signed certificates. */
  crldp?: string
  /** rsync URI of the issuer's certificate (RFC 6487 §4.8.7, caIssuers); not for self-signed certificates. */
  aia?: string
  sia?: CaSia | EeSia
  resources?: CertResources
}

//------------ Decoding ------------------------------------------------------------------------------------------------

const RULE = 'RFC 5280 §4.1'

/** Decode a certificate: strict DER, or BER re-encoded as DER (the signature still covers the received TBS). */
export function decodeCert(input: Uint8Array): Cert {
  return decodeDerOrBer(input, readCert)
}

/** Read a Certificate from a DER node (e.g. inside a CMS SignedData, sharing its budget). */
export function readCert(node: DerNode, encoding: 'der' | 'ber' = 'der'): Cert {
  const { tbsNode, signatureAlgorithm, signature } = readSignedParts(node, RULE, ['Certificate', 'tbsCertificate'], 'RFC 5280 §4.1.1')
  const t = expectSequence(tbsNode, RULE, 'TBSCertificate')
  const v = t.optional(0xa0)
  const version = v === undefined ? 1 : readExplicitInt(v) + 1
  const serialNode = t.next(RULE, 0x02, 'serialNumber')
  const tbsSignature = readAlgorithm(t.next(RULE, 0x30, 'signature'), 'RFC 5280 §4.1.2.3')
  const issuer = readName(t.next(RULE, 0x30, 'issuer'), 'RFC 5280 §4.1.2.4')
  const validity = expectSequence(t.next(RULE, 0x30, 'validity'), 'RFC 5280 §4.1.2.5')
  const nb = validity.next('RFC 5280 §4.1.2.5', undefined, 'notBefore')
  const na = validity.next('RFC 5280 §4.1.2.5', undefined, 'notAfter')
  validity.end('RFC 5280 §4.1.2.5')
  const subject = readName(t.next(RULE, 0x30, 'subject'), 'RFC 5280 §4.1.2.6')
  const spkiNode = t.next(RULE, 0x30, 'subjectPublicKeyInfo')
  const uniqueIds = (t.optional(0x81) ?? t.optional(0xa1)) !== undefined || (t.optional(0x82) ?? t.optional(0xa2)) !== undefined
  const ext = t.optional(0xa3)
  t.end(RULE)
  return {
    bytes: node.raw(), encoding, tbs: tbsNode.raw(), version, serial: readSerial(serialNode),
    serialOctets: serialNode.length, tbsSignature, signatureAlgorithm, issuer, subject, notBefore: readTime(nb), notAfter: readTime(na),
    validityTags: [nb.tag, na.tag], spki: spkiNode.raw(), publicKey: readPublicKeyInfo(spkiNode), uniqueIds,
    extensions: readTaggedExtensions(ext, 'RFC 5280 §4.1.2.9', 'Extensions'), signature,
  }
}

/** The serial INTEGER (RFC 5280 §4.1.2.2), converted six octets at a time (serials are often 20 octets long). */
function readSerial(node: DerNode): bigint {
  const c = readIntegerContent(node, 'RFC 5280 §4.1.2.2')
  if (c.length <= 6) return BigInt(readInt(node, 'RFC 5280 §4.1.2.2'))
  let v = 0n
  for (let i = 0; i < c.length; i += 6) {
    const end = Math.min(i + 6, c.length)
    let chunk = 0
    for (let j = i; j < end; j++) chunk = chunk * 256 + c[j]
    v = (v << BigInt(8 * (end - i))) | BigInt(chunk)
  }
  // Two's complement: a set top bit makes the value negative (inspect reports non-positive serials).
  return c[0] & 0x80 ? v - (1n << BigInt(8 * c.length)) : v
}

function readExplicitInt(wrapper: DerNode): number {
  const c = cursor(wrapper)
  const v = readInt(c.next('RFC 5280 §4.1.2.1', 0x02, 'version'), 'RFC 5280 §4.1.2.1')
  c.end('RFC 5280 §4.1.2.1')
  return v
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** Profile problems for the role the certificate plays (default: the role it looks like, see certRole). */
export function inspectCert(cert: Cert, role: CertRole = certRole(cert)): Problem[] {
  return inspectCertProfile(cert, role)
}

//------------ Verification --------------------------------------------------------------------------------------------

const keyCache = new WeakMap<Uint8Array, KeyObject>()

/** The node:crypto public key of a SubjectPublicKeyInfo (cached per buffer). */
export function publicKeyOf(spki: Uint8Array): KeyObject {
  let k = keyCache.get(spki)
  if (k === undefined) {
    k = createPublicKey({ key: Buffer.from(spki.buffer, spki.byteOffset, spki.byteLength), format: 'der', type: 'spki' })
    keyCache.set(spki, k)
  }
  return k
}

/** RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7935 §2) over `data` by the key of `spki`. */
export function signatureValid(spki: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verify('sha256', data, publicKeyOf(spki), signature)
  } catch {
    return false
  }
}

/**
 * Verify a certificate against its issuer ('self' for a trust anchor or BPKI TA) at `now`: signature, names, AKI,
 * validity, and for RPKI the RFC 3779 resources, each contained in the issuer's ('inherit' takes the issuer's).
 * Throws VerificationError naming the rule; returns the certificate as a ResourceCert.
 */
export function verifyCert(cert: Cert, issuer: ResourceCert | 'self', now: Date, opts: { profile?: 'rpki' | 'bpki' } = {}): ResourceCert {
  const profile = opts.profile ?? (issuer === 'self' ? guessProfile(cert) : issuer.profile)
  const keyId = keyIdentifier(cert.spki)
  if (issuer === 'self') verifySelfSigned(cert, keyId)
  else verifyIssued(cert, issuer)
  // RFC 5280 §6.1.3 (a)(2): the certificate is valid at the time of validation.
  if (now < cert.notBefore) throw new VerificationError('RFC 5280 §6.1.3', `certificate is not valid before ${cert.notBefore.toISOString()}`)
  if (now > cert.notAfter) throw new VerificationError('RFC 5280 §6.1.3', `certificate expired at ${cert.notAfter.toISOString()}`)
  const resources = profile === 'bpki' ? ResourceSet.empty() : effectiveResources(cert, issuer === 'self' ? undefined : issuer)
  return { ...cert, keyId, resources, profile }
}

/**
 * A certificate taken as verified without checking it: our own CA certificate as received from our parent, with the
 * resources the parent reported (RFC 6492 list_response) as its effective resources. For verifying what we build.
 */
export function trustedCert(cert: Cert, resources: ResourceSet, profile: 'rpki' | 'bpki' = 'rpki'): ResourceCert {
  return { ...cert, keyId: keyIdentifier(cert.spki), resources, profile }
}

function guessProfile(cert: Cert): 'rpki' | 'bpki' {
  const r = certRole(cert)
  return r === 'bpki-ca' || r === 'bpki-ee' ? 'bpki' : 'rpki'
}

function verifySelfSigned(cert: Cert, keyId: Uint8Array): void {
  // RFC 5280 §6.1 (trust anchor input): a self-signed certificate names itself as issuer and verifies with its key.
  if (!sameName(cert.issuer, cert.subject)) throw new VerificationError('RFC 5280 §6.1.3', 'self-signed certificate: issuer is not the subject')
  const aki = cert.extensions.aki?.keyIdentifier
  if (aki !== undefined && !bytesEqual(aki, keyId)) throw new VerificationError('RFC 6487 §4.8.3', 'self-signed certificate: AKI is not its own SKI')
  if (!signatureValid(cert.spki, cert.tbs, cert.signature)) throw new VerificationError('RFC 5280 §6.1.3', 'self-signature does not verify')
}

function verifyIssued(cert: Cert, issuer: ResourceCert): void {
  // RFC 5280 §6.1.4 (k): the issuer is a CA.
  if (issuer.extensions.basicConstraints?.ca !== true) throw new VerificationError('RFC 5280 §6.1.4', 'the issuer is not a CA certificate')
  // RFC 5280 §6.1.3 (a)(4): name chaining.
  if (!sameName(cert.issuer, issuer.subject)) throw new VerificationError('RFC 5280 §6.1.3', "issuer name differs from the issuer's subject")
  const aki = cert.extensions.aki?.keyIdentifier
  if (aki !== undefined && !bytesEqual(aki, issuer.keyId)) throw new VerificationError('RFC 6487 §4.8.3', "AKI differs from the issuer's SKI")
  if (!signatureValid(issuer.spki, cert.tbs, cert.signature)) throw new VerificationError('RFC 5280 §6.1.3', 'signature does not verify with the issuer key')
}

/** RFC 6487 §7.2 and RFC 3779 §2.3, §3.3: each family is inherited or contained in the issuer's. */
function effectiveResources(cert: Cert, issuer: ResourceCert | undefined): ResourceSet {
  const ip = cert.extensions.ip
  const as = cert.extensions.as
  const ipv4 = resolve(ip?.ipv4, issuer?.resources.ipv4, IpBlocks.empty(4), 'IPv4')
  const ipv6 = resolve(ip?.ipv6, issuer?.resources.ipv6, IpBlocks.empty(6), 'IPv6')
  const asn = resolve(as?.asn, issuer?.resources.asn, AsBlocks.empty(), 'AS')
  return new ResourceSet(asn, ipv4, ipv6)
}

interface Blocks<T> {
  contains(o: T): boolean
  difference(o: T): T
  toString(): string
}

function resolve<T extends Blocks<T>>(mine: T | 'inherit' | undefined, parent: T | undefined, empty: T, what: string): T {
  if (mine === undefined) return empty
  if (mine === 'inherit') {
    // RFC 8630 §2.3: a trust anchor certificate does not use inherit.
    if (parent === undefined) throw new VerificationError('RFC 8630 §2.3', `trust anchor certificate inherits ${what} resources`)
    return parent
  }
  if (parent !== undefined && !parent.contains(mine)) {
    throw new VerificationError('RFC 6487 §7.2', `${what} resources ${mine.difference(parent).toString()} are not held by the issuer`)
  }
  return mine
}

//------------ Building ------------------------------------------------------------------------------------------------

/** Version v3 ([0] EXPLICIT INTEGER 2), precomputed. */
const VERSION_3 = explicit(0, int(2))

/** Build and sign a certificate (RFC 6487 for 'rpki', RFC 8183 identity certificates for 'bpki'). */
export function buildCert(spec: CertSpec, issuer: SigningKey): Uint8Array {
  checkSerial(spec.serial)
  if (!(spec.notBefore.getTime() <= spec.notAfter.getTime())) throw new EncodeError('RFC 5280 §4.1.2.5', 'notBefore is after notAfter')
  const ski = spec.subjectKeyId ?? keyIdentifier(spec.subjectSpki)
  const selfSigned = bytesEqual(ski, issuer.ski)
  const tbs = seq(
    VERSION_3, int(spec.serial), ALG_SHA256_WITH_RSA, encodeName(spec.issuerName),
    seq(x509Time(spec.notBefore), x509Time(spec.notAfter)), encodeName(spec.subjectName), spec.subjectSpki,
    explicit(3, seq(...certExtensions(spec, ski, selfSigned ? undefined : issuer.ski))),
  )
  return seq(tbs, ALG_SHA256_WITH_RSA, bitString(issuer.sign(tbs)))
}

/** RFC 5280 §4.1.2.2, RFC 6487 §4.2: a positive INTEGER of at most 20 octets including the sign octet. */
function checkSerial(serial: bigint): void {
  if (typeof serial !== 'bigint' || serial <= 0n) throw new EncodeError('RFC 6487 §4.2', 'serial number must be a positive integer')
  if (serial >= 1n << 159n) throw new EncodeError('RFC 5280 §4.1.2.2', 'serial number is longer than 20 octets')
}

/** The extensions in rpki-rs order: basicConstraints, SKI, AKI, keyUsage, CRLDP, AIA, SIA, policies, IP, AS. */
function certExtensions(spec: CertSpec, ski: Uint8Array, aki: Uint8Array | undefined): Uint8Array[] {
  const out: Uint8Array[] = []
  if (spec.kind === 'ca') out.push(EXT_BASIC_CONSTRAINTS_CA)
  out.push(skiExtension(ski))
  if (aki !== undefined) out.push(akiExtension(aki))
  out.push(spec.kind === 'ca' ? EXT_KEY_USAGE_CA : EXT_KEY_USAGE_EE)
  if (spec.profile === 'bpki') {
    if (spec.sia || spec.resources || spec.crldp || spec.aia) throw new EncodeError('RFC 8183 §2', 'an identity certificate has no SIA, AIA, CRLDP or resources')
    return out
  }
  if (aki !== undefined) {
    if (spec.crldp === undefined || spec.aia === undefined) throw new EncodeError('RFC 6487 §4.8.6', 'CRLDP and AIA are required unless self-signed')
    out.push(crldpExtension(rsyncUri(spec.crldp)), aiaExtension(rsyncUri(spec.aia)))
  }
  out.push(siaExtension(siaEntries(spec)), EXT_RPKI_POLICY, ...resourceExtensions(spec.resources, aki === undefined))
  return out
}

function siaEntries(spec: CertSpec): { method: string; uri: string }[] {
  const sia = spec.sia
  if (spec.kind === 'ee') {
    if (sia === undefined || !('signedObject' in sia)) throw new EncodeError('RFC 6487 §4.8.8.2', 'an EE certificate needs SIA signedObject')
    return [{ method: oids.idAdSignedObject, uri: rsyncUri(sia.signedObject) }]
  }
  if (sia === undefined || !('caRepository' in sia)) throw new EncodeError('RFC 6487 §4.8.8.1', 'a CA certificate needs SIA caRepository and rpkiManifest')
  const out: { method: string; uri: string }[] = [
    { method: oids.idAdCaRepository, uri: rsyncUri(sia.caRepository) },
    { method: oids.idAdRpkiManifest, uri: rsyncUri(sia.rpkiManifest) },
  ]
  // RFC 8182 §3.2: rpkiNotify is an https URI.
  if (sia.rpkiNotify !== undefined) out.push({ method: oids.idAdRpkiNotify, uri: httpsUri(sia.rpkiNotify) })
  return out
}

function resourceExtensions(r: CertResources | undefined, selfSigned: boolean): Uint8Array[] {
  const ipv4 = r?.ipv4 instanceof IpBlocks && r.ipv4.isEmpty() ? undefined : r?.ipv4
  const ipv6 = r?.ipv6 instanceof IpBlocks && r.ipv6.isEmpty() ? undefined : r?.ipv6
  const asn = r?.asn instanceof AsBlocks && r.asn.isEmpty() ? undefined : r?.asn
  // RFC 6487 §4.8.10: at least one of the two resource extensions.
  if (ipv4 === undefined && ipv6 === undefined && asn === undefined) throw new EncodeError('RFC 6487 §4.8.10', 'a resource certificate needs resources')
  if (selfSigned && (ipv4 === 'inherit' || ipv6 === 'inherit' || asn === 'inherit')) throw new EncodeError('RFC 8630 §2.3', 'a trust anchor certificate cannot inherit')
  const out: Uint8Array[] = []
  if (ipv4 !== undefined || ipv6 !== undefined) out.push(ipResourcesExtension({ ipv4, ipv6 }))
  if (asn !== undefined) out.push(asResourcesExtension(asn))
  return out
}

/** A serial from 20 random octets (from the caller): 159 bits, positive, at most 20 octets (rpki-encoding.md §2 row 13). */
export function serialFromRandom(random: Uint8Array): bigint {
  if (random.length < 20) throw new RangeError('serialFromRandom needs 20 random octets')
  let v = BigInt(random[0] & 0x7f)
  for (let i = 1; i < 20; i++) v = (v << 8n) | BigInt(random[i])
  return v === 0n ? 1n : v
}
