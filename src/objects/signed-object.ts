/**
 * The RPKI signed-object envelope (RFC 6488, RFC 9589, RFC 7935; rpki-encoding.md §8): CMS SignedData v3 with one
 * EE certificate, no CRLs, one SignerInfo v3 identified by SKI, sha256, rsaEncryption, and the signed attributes
 * content-type, signing-time, message-digest. Verbs: decodeSignedObject (DER; BER from older RIPE NCC, ARIN and
 * LACNIC objects), inspectSignedObject, verifySignedObject, buildSignedObject (with the EE certificate).
 * Used by manifest.ts, roa.ts and aspa.ts; RFC 6492/8181 CMS has its own wrapper in protocol/.
 */
import { type BerSignedData, type BerSignerInfo, decodeBerSignedData, isStrictDer } from '../asn1/ber.js'
import { explicit, implicit, octetString, oid, retag, seq, set, tlv } from '../asn1/der.js'
import {
  children, cursor, type DerCursor, type DerNode, expectSequence, oidIs, parseDer, readInt, readOctetString,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { SigningKey } from '../crypto/signer.js'
import { asBytes, bytesEqual } from '../util/bytes.js'
import { DecodeError, VerificationError } from '../util/errors.js'
import { ALG_RSA, ALG_SHA256, type AlgorithmId, INT_3, isRsaSignatureAlgorithm, readAlgorithm } from './algorithm.js'
import {
  buildCert, type Cert, type CertResources, decodeCert, inspectCert, readCert, type ResourceCert, signatureValid,
  verifyCert,
} from './cert.js'
import type { NameSpec } from './distinguished-name.js'
import { berFallback } from './encoding.js'
import { OidTable } from './oid-table.js'
import { note, type Problem, problem } from './problem.js'
import {
  attributeValues, type AttributeValues, encodeSignedAttrs, fromBerSignedAttrs, inspectSignedAttrs, readSignedAttrs,
  signedAttrsCandidates, type SignedAttrs,
} from './signed-attributes.js'
import { sha256 } from '../crypto/digest.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export type SignerId = { type: 'ski'; ski: Uint8Array } | { type: 'issuer-serial' }

export interface SignerInfo {
  readonly version: number
  readonly sid: SignerId
  readonly digestAlgorithm: AlgorithmId
  readonly signedAttrs?: SignedAttrs
  readonly signatureAlgorithm: AlgorithmId
  readonly signature: Uint8Array
  readonly unsignedAttrs: boolean
}

/** A decoded signed object: syntax checked; profile by inspectSignedObject, signatures by verifySignedObject. */
export interface SignedObject {
  readonly bytes: Uint8Array
  /** 'ber' when the input was not DER (RFC 6488 §3 requires DER; inspect reports it). */
  readonly encoding: 'der' | 'ber'
  readonly version: number
  readonly digestAlgorithms: readonly AlgorithmId[]
  readonly eContentType: string
  /** The eContent octets (empty when absent). */
  readonly eContent: Uint8Array
  readonly eContentPresent: boolean
  /** Each certificate of the certificates field, as DER. */
  readonly certificates: readonly Uint8Array[]
  readonly crlCount: number
  readonly signerInfos: readonly SignerInfo[]
  /** The EE certificate (the first of `certificates`). */
  readonly ee: Cert
  /** Content-type, message-digest and signing-time of the first SignerInfo. */
  readonly attributes: AttributeValues
}

/** The CA issuing the EE certificate of a signed object. */
export interface ObjectIssuer {
  /** The CA's key: signs the EE certificate; its key identifier is the EE's AKI. */
  key: SigningKey
  /** The CA certificate's subject (a CN, or the exact DER of the subject of the CA certificate). */
  name: NameSpec
  /** rsync URI of the CA's CRL (EE CRLDP). */
  crlUri: string
  /** rsync URI of the CA's certificate (EE AIA caIssuers). */
  certUri: string
}

/** The EE certificate of one signed object; the EE key is the one-off key passed next to it. */
export interface ObjectEe {
  serial: bigint
  /** rsync URI where the object is published (EE SIA signedObject). */
  uri: string
  notBefore: Date
  notAfter: Date
  /** The CMS signing-time (RFC 9589): the moment of signing, normally `now`. */
  signingTime: Date
  /** Default: the EE key identifier in uppercase hex, as Krill names EE certificates. */
  subjectName?: NameSpec
}

/** What goes into the envelope: the content and the RFC 3779 resources of its EE certificate. */
export interface SignedContent {
  eContentType: string
  eContent: Uint8Array
  resources: CertResources
}

//------------ Decoding ------------------------------------------------------------------------------------------------

const RULE = 'RFC 5652 §5'
const CONTENT_TYPES = new OidTable([oids.idCtRouteOriginAuthz, oids.idCtRpkiManifest, oids.idCtAspa, oids.idCtRpkiGhostbusters, oids.idCtXml])

/** Decode a signed object: strict DER first, BER (asn1/ber.ts) for objects from implementations that wrote BER. */
export function decodeSignedObject(input: Uint8Array): SignedObject {
  // A plain Uint8Array view: a Buffer's slice() is not a copy, and decoding must never touch the caller's bytes.
  const bytes = asBytes(input)
  try {
    return readSignedObject(parseDer(bytes), bytes)
  } catch (e) {
    berFallback(bytes, e)
    return fromBer(bytes, decodeBerSignedData(bytes))
  }
}

/** Decode a signed object whose eContentType must be `contentType` (`name` in the message); another is a DecodeError. */
export function decodeSignedObjectOf(bytes: Uint8Array, contentType: string, name: string, rule: string): SignedObject {
  const so = decodeSignedObject(bytes)
  if (so.eContentType !== contentType) throw new DecodeError(rule, `eContentType is ${oids.oidName(so.eContentType)}, not ${name}`)
  return so
}

/** The `version [0] INTEGER DEFAULT 0` that opens an eContent (ROA, manifest, RSC): 0 when absent, and whether it was there. */
export function readContentVersion(c: DerCursor, rule: string): { version: number; explicit: boolean } {
  const v = c.optional(0xa0)
  if (v === undefined) return { version: 0, explicit: false }
  const vc = cursor(v)
  const version = readInt(vc.next(rule, 0x02, 'version'), rule)
  vc.end(rule)
  return { version, explicit: true }
}

function readSignedObject(root: DerNode, bytes: Uint8Array): SignedObject {
  const ci = expectSequence(root, 'RFC 5652 §3', 'ContentInfo')
  // RFC 6488 §2: the content type is id-signedData.
  if (!oidIs(ci.next('RFC 5652 §3', 0x06, 'contentType'), oids.idSignedData)) throw new DecodeError('RFC 6488 §2', 'contentType is not id-signedData')
  const wrapper = ci.next('RFC 5652 §3', 0xa0, 'content')
  ci.end('RFC 5652 §3')
  const w = cursor(wrapper)
  const sd = expectSequence(w.next(RULE, 0x30, 'SignedData'), RULE, 'SignedData')
  w.end(RULE)
  const version = readInt(sd.next(RULE, 0x02, 'version'), RULE)
  const digestAlgorithms = children(sd.next(RULE, 0x31, 'digestAlgorithms')).map((a) => readAlgorithm(a, RULE, 'digestAlgorithm'))
  const eci = readEncapContentInfo(sd.next(RULE, 0x30, 'encapContentInfo'))
  const certs = sd.optional(0xa0)
  const crls = sd.optional(0xa1)
  const signerInfos = children(sd.next(RULE, 0x31, 'signerInfos')).map(readSignerInfo)
  sd.end(RULE)
  const certNodes = certs === undefined ? [] : children(certs)
  const ee = certNodes[0] === undefined ? noEe() : readCert(certNodes[0])
  return {
    bytes, encoding: 'der', version, digestAlgorithms, ...eci, certificates: certNodes.map((n) => n.raw()),
    crlCount: crls === undefined ? 0 : children(crls).length, signerInfos: nonEmpty(signerInfos), ee,
    attributes: attributeValues(signerInfos[0].signedAttrs),
  }
}

function noEe(): never {
  throw new DecodeError('RFC 6488 §2.1.4', 'no EE certificate in the certificates field')
}

function nonEmpty(s: SignerInfo[]): SignerInfo[] {
  if (s.length === 0) throw new DecodeError('RFC 6488 §2.1.6', 'no SignerInfo')
  return s
}

function readEncapContentInfo(node: DerNode): { eContentType: string; eContent: Uint8Array; eContentPresent: boolean } {
  const rule = 'RFC 5652 §5.2'
  const c = expectSequence(node, rule, 'EncapsulatedContentInfo')
  const eContentType = CONTENT_TYPES.read(c.next(rule, 0x06, 'eContentType'), rule)
  const w = c.optional(0xa0)
  c.end(rule)
  if (w === undefined) return { eContentType, eContent: new Uint8Array(0), eContentPresent: false }
  const wc = cursor(w)
  const eContent = readOctetString(wc.next(rule, 0x04, 'eContent'), rule)
  wc.end(rule)
  return { eContentType, eContent, eContentPresent: true }
}

function readSignerInfo(node: DerNode): SignerInfo {
  const rule = 'RFC 5652 §5.3'
  const c = expectSequence(node, rule, 'SignerInfo')
  const version = readInt(c.next(rule, 0x02, 'version'), rule)
  const s = c.next(rule, undefined, 'sid')
  const sid: SignerId = s.tag === 0x80 ? { type: 'ski', ski: s.content() } : { type: 'issuer-serial' }
  if (s.tag !== 0x80 && s.tag !== 0x30) throw new DecodeError(rule, 'sid is neither a subjectKeyIdentifier nor an IssuerAndSerialNumber')
  const digestAlgorithm = readAlgorithm(c.next(rule, 0x30, 'digestAlgorithm'), rule, 'digestAlgorithm')
  const sa = c.optional(0xa0)
  const signatureAlgorithm = readAlgorithm(c.next(rule, 0x30, 'signatureAlgorithm'), rule, 'signatureAlgorithm')
  const signature = readOctetString(c.next(rule, 0x04, 'signature'), rule)
  const unsignedAttrs = c.optional(0xa1) !== undefined
  c.end(rule)
  return { version, sid, digestAlgorithm, signedAttrs: sa === undefined ? undefined : readSignedAttrs(sa), signatureAlgorithm, signature, unsignedAttrs }
}

function fromBer(bytes: Uint8Array, b: BerSignedData): SignedObject {
  const signerInfos = nonEmpty(b.signerInfos.map(fromBerSignerInfo))
  const first = b.certificates[0]
  return {
    bytes, encoding: 'ber', version: b.version, digestAlgorithms: b.digestAlgorithms, eContentType: b.eContentType,
    eContent: b.eContent ?? new Uint8Array(0), eContentPresent: b.eContent !== undefined, certificates: b.certificates,
    crlCount: b.crls.length, signerInfos, ee: first === undefined ? noEe() : decodeCert(first),
    attributes: attributeValues(signerInfos[0].signedAttrs),
  }
}

function fromBerSignerInfo(s: BerSignerInfo): SignerInfo {
  return {
    version: s.version, sid: s.sid.type === 'ski' ? { type: 'ski', ski: s.sid.ski } : { type: 'issuer-serial' },
    digestAlgorithm: s.digestAlgorithm, signedAttrs: s.signedAttrs === undefined ? undefined : fromBerSignedAttrs(s.signedAttrs),
    signatureAlgorithm: s.signatureAlgorithm, signature: s.signature, unsignedAttrs: s.unsignedAttrs,
  }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** Every RFC 6488 §2 rule (plus RFC 9589, RFC 7935) on the envelope and the RFC 6487 EE profile. */
export function inspectSignedObject(so: SignedObject, expectedContentType?: string): Problem[] {
  const out: Problem[] = []
  // RFC 6488 §3 (1): the signed object is DER encoded.
  if (so.encoding !== 'der') out.push(problem('RFC 6488 §3', 'signed object is BER, not DER (e.g. indefinite lengths)'))
  else if (!isStrictDer(so.bytes)) out.push(problem('RFC 6488 §3', 'signed object is not strict DER'))
  if (so.version !== 3) out.push(problem('RFC 6488 §2.1.1', `SignedData version ${so.version} != 3`))
  inspectDigestAlgorithms(so.digestAlgorithms, out)
  if (expectedContentType !== undefined && so.eContentType !== expectedContentType) {
    out.push(problem('RFC 6488 §2.1.3.1', `eContentType ${oids.oidName(so.eContentType)}, expected ${oids.oidName(expectedContentType)}`))
  }
  if (!so.eContentPresent || so.eContent.length === 0) out.push(problem('RFC 6488 §2.1.3.2', 'eContent: zero-length content'))
  if (so.certificates.length !== 1) out.push(problem('RFC 6488 §2.1.4', `${so.certificates.length} certificates, expected exactly one EE certificate`))
  if (so.crlCount > 0) out.push(problem('RFC 6488 §2.1.5', 'CMS has CRLs'))
  if (so.signerInfos.length !== 1) out.push(problem('RFC 6488 §2.1.6', `${so.signerInfos.length} SignerInfos, expected 1`))
  inspectSignerInfo(so.signerInfos[0], so, out)
  for (const p of inspectCert(so.ee, 'ee')) out.push({ ...p, message: `EE certificate: ${p.message}` })
  const st = so.attributes.signingTime
  if (st !== undefined && st > so.ee.notAfter) out.push(note('RFC 9589 §4', 'dating issue: CMS signing-time after the EE notAfter'))
  return out
}

function inspectDigestAlgorithms(algs: readonly AlgorithmId[], out: Problem[]): void {
  const rule = 'RFC 6488 §2.1.2'
  if (algs.length !== 1) out.push(problem(rule, `${algs.length} digestAlgorithms, expected 1`))
  else if (algs[0].oid !== oids.sha256) out.push(problem(rule, `digest algorithm ${oids.oidName(algs[0].oid)}, expected sha256`))
  else if (algs[0].params !== 'absent') out.push(note('RFC 5754 §2', 'sha256 parameters present (generators omit them)'))
}

function inspectSignerInfo(si: SignerInfo, so: SignedObject, out: Problem[]): void {
  if (si.version !== 3) out.push(problem('RFC 6488 §2.1.6.1', `SignerInfo version ${si.version} != 3`))
  if (si.sid.type !== 'ski') out.push(problem('RFC 6488 §2.1.6.2', 'sid is not a subjectKeyIdentifier'))
  else if (so.ee.extensions.ski === undefined || !bytesEqual(si.sid.ski, so.ee.extensions.ski)) {
    out.push(problem('RFC 6488 §2.1.6.2', 'wrong cert referenced by SignerInfo'))
  }
  if (si.digestAlgorithm.oid !== oids.sha256) out.push(problem('RFC 6488 §2.1.6.3', `wrong digest ${oids.oidName(si.digestAlgorithm.oid)}, want sha256`))
  out.push(...inspectSignedAttrs(si.signedAttrs, so.eContentType))
  // RFC 7935 §2: rsaEncryption is generated; RPs accept sha256WithRSAEncryption too.
  if (!isRsaSignatureAlgorithm(si.signatureAlgorithm)) {
    out.push(problem('RFC 6488 §2.1.6.5', `wrong signature algorithm ${oids.oidName(si.signatureAlgorithm.oid)}, want rsaEncryption`))
  } else if (si.signatureAlgorithm.oid !== oids.rsaEncryption) {
    out.push(note('RFC 7935 §2', 'SignerInfo signatureAlgorithm is sha256WithRSAEncryption (generators use rsaEncryption)'))
  }
  if (si.unsignedAttrs) out.push(problem('RFC 6488 §2.1.6.7', 'CMS has unsignedAttrs'))
}

//------------ Verification --------------------------------------------------------------------------------------------

/**
 * RFC 6488 §3: verify the EE certificate against `issuer` at `now`, the message digest over the eContent, and the
 * signature over the signed attributes (tag 0x31) with the EE key. Returns the verified EE certificate.
 */
export function verifySignedObject(so: SignedObject, issuer: ResourceCert, now: Date): ResourceCert {
  const rule = 'RFC 6488 §3'
  const si = so.signerInfos[0]
  if (so.signerInfos.length !== 1 || si.signedAttrs === undefined) throw new VerificationError(rule, 'one SignerInfo with signed attributes is required')
  if (si.sid.type !== 'ski' || !bytesEqual(si.sid.ski, so.ee.extensions.ski ?? new Uint8Array(0))) {
    throw new VerificationError(rule, 'SignerInfo does not name the EE certificate')
  }
  if (so.attributes.contentType !== so.eContentType) throw new VerificationError(rule, 'content-type attribute differs from eContentType')
  const digest = sha256(so.eContent)
  if (so.attributes.messageDigest === undefined || !bytesEqual(digest, so.attributes.messageDigest)) {
    throw new VerificationError(rule, 'message digest does not match the eContent')
  }
  const ok = signedAttrsCandidates(si.signedAttrs).some((bytes) => signatureValid(so.ee.spki, bytes, si.signature))
  if (!ok) throw new VerificationError(rule, 'CMS signature does not verify with the EE key')
  if (so.ee.extensions.basicConstraints?.ca === true) throw new VerificationError('RFC 6487 §4.8.1', 'the signer is a CA certificate')
  return verifyCert(so.ee, issuer, now, { profile: 'rpki' })
}

//------------ Building ------------------------------------------------------------------------------------------------

const SIGNED_DATA = oid(oids.idSignedData)
const DIGEST_ALGORITHMS = set(ALG_SHA256)

/** Build the EE certificate and the signed object around `content` (rpki-encoding.md §8, Illustration C). */
export function buildSignedObject(content: SignedContent, eeKey: SigningKey, issuer: ObjectIssuer, ee: ObjectEe): Uint8Array {
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: ee.serial, issuerName: issuer.name, subjectName: ee.subjectName ?? eeKey.keyId,
    subjectSpki: eeKey.spki, subjectKeyId: eeKey.ski, notBefore: ee.notBefore, notAfter: ee.notAfter,
    crldp: issuer.crlUri, aia: issuer.certUri, sia: { signedObject: ee.uri }, resources: content.resources,
  }, issuer.key)
  return encodeSignedData(content.eContentType, content.eContent, eeCert, eeKey, ee.signingTime)
}

/** The CMS ContentInfo: SignedData v3 with one certificate, no crls, one SignerInfo v3 (SKI sid, rsaEncryption). */
export function encodeSignedData(eContentType: string, eContent: Uint8Array, eeCert: Uint8Array, eeKey: SigningKey, signingTime: Date): Uint8Array {
  const digest = sha256(eContent)
  const signedAttrs = encodeSignedAttrs(eContentType, digest, signingTime)
  // RFC 5652 §5.4: the signature covers the SET OF (tag 0x31); it is stored as [0] IMPLICIT (0xa0).
  const signature = eeKey.sign(signedAttrs)
  const signerInfo = seq(INT_3, tlv(0x80, eeKey.ski), ALG_SHA256, retag(signedAttrs, 0xa0), ALG_RSA, octetString(signature))
  const signedData = seq(
    INT_3, DIGEST_ALGORITHMS, seq(oid(eContentType), explicit(0, octetString(eContent))), implicit(0, eeCert, true),
    set(signerInfo),
  )
  return seq(SIGNED_DATA, explicit(0, signedData))
}
