/**
 * RFC 6492 §3.1 / RFC 8181 §2 CMS wrapper, inbound side part 1: decoding (BER-tolerant, through asn1/ber.ts) and the
 * profile inspection of RFC 6492 §3.1.1 (content type, one EE certificate, at most one CRL, one SignerInfo with an
 * SKI sid, SHA-256, exactly the content-type/signing-time/message-digest signed attributes). No cryptography and no
 * clock here: signed-message-verify.ts checks digest, signature, time and chain. Used by signed-message*.ts.
 */
import { type BerSignedData, type BerSignerInfo, decodeBerSignedData } from '../asn1/ber.js'
import { parseDer, readOctetString, readOid, readTime } from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { bytesEqual } from '../util/bytes.js'
import { DecodeError, InspectionError } from '../util/errors.js'
import { type BpkiCert, decodeBpkiCert } from './id-cert-x509.js'

/** A decoded message, before any check: what `unwrapUnverified` returns (for tests and inspection tools). */
export interface UnverifiedMessage {
  /** The eContent decoded as UTF-8 (replacement characters for bad bytes: nothing here is trusted). */
  xml: string
  /** The eContent octets (constructed BER chunks joined). */
  content: Uint8Array
  eContentType: string
  /** Each certificate as DER. */
  certificates: Uint8Array[]
  /** Each CRL as DER. */
  crls: Uint8Array[]
  /** The signing-time attribute, when present and readable. */
  signingTime?: Date
  /** True when the whole message was strict DER (our own output always is). */
  der: boolean
  signedData: BerSignedData
}

/** A message that passed the RFC 6492 §3.1.1 profile checks (still unverified). */
export interface InspectedMessage extends UnverifiedMessage {
  signer: BerSignerInfo
  ee: BpkiCert
  signingTime: Date
  messageDigest: Uint8Array
  /** OIDs of signed attributes outside RFC 6492 §3.1.1.6.4 that were ignored (e.g. smimeCapabilities). */
  ignoredAttributes: string[]
  /** The signed attributes as received with the SET tag 0x31, and their DER re-encoding (RFC 5652 §5.4). */
  signedAttrs: { received: Uint8Array; der: Uint8Array }
}

/** Bounds for asn1js, which costs about 5 µs an element: 20,000 elements cap the work a hostile message causes at
 *  ~100 ms. A real message has ~150 elements (two certificates' worth) plus 5 per CRL entry, plus one per chunk of a
 *  BER eContent (RIPE NCC): 20 MB in 1 KB chunks still fits. CMS nesting never exceeds ~20 levels. */
const BER_LIMITS = { maxNodes: 20_000, maxDepth: 48 }

const lenient = new TextDecoder('utf-8')

/** Decode the CMS without checks (RFC 5652 §5 syntax only). */
export function unwrapUnverified(bytes: Uint8Array): UnverifiedMessage {
  const sd = decodeBerSignedData(bytes, BER_LIMITS)
  const content = sd.eContent ?? new Uint8Array(0)
  let signingTime: Date | undefined
  try {
    const st = sd.signerInfos[0]?.signedAttrs?.attributes.find((a) => a.type === oids.signingTime)
    if (st !== undefined && st.values.length === 1) signingTime = readTime(parseDer(st.values[0]))
  } catch {
    // unverified view: an unreadable signing-time is simply not shown
  }
  return {
    xml: lenient.decode(content), content, eContentType: sd.eContentType, certificates: sd.certificates, crls: sd.crls,
    signingTime, der: sd.der, signedData: sd,
  }
}

function inspect(ok: boolean, rule: string, message: string): void {
  if (!ok) throw new InspectionError(rule, message)
}

/** RFC 6492 §3.1.1.1–3.1.1.5: SignedData fields around the signer. */
function inspectSignedData(m: UnverifiedMessage): void {
  const sd = m.signedData
  inspect(sd.version === 3, 'RFC 6492 §3.1.1.1', `SignedData version is ${sd.version}, not 3`)
  inspect(sd.digestAlgorithms.length === 1 && sd.digestAlgorithms[0].oid === oids.sha256,
    'RFC 6492 §3.1.1.2', 'digestAlgorithms must be exactly SHA-256')
  inspect(sd.digestAlgorithms.every((a) => a.params !== 'other'), 'RFC 5754 §2', 'SHA-256 parameters must be absent or NULL')
  inspect(sd.eContentType === oids.idCtXml, 'RFC 6492 §3.1.1.3.1', `eContentType is ${oids.oidName(sd.eContentType)}, not id-ct-xml`)
  inspect(sd.eContent !== undefined, 'RFC 6492 §3.1.1.3.2', 'eContent is missing')
  inspect(sd.certificates.length === 1, 'RFC 6492 §3.1.1.4', `${sd.certificates.length} certificates; exactly one EE certificate is required`)
  // RFC 6492 §3.1.1.5 asks for exactly one CRL; APNIC's 2011 messages carry none, so an absent CRL is accepted.
  inspect(sd.crls.length <= 1, 'RFC 6492 §3.1.1.5', `${sd.crls.length} CRLs; at most one is accepted`)
  inspect(sd.signerInfos.length === 1, 'RFC 6492 §3.1.1.6', `${sd.signerInfos.length} SignerInfos; exactly one is required`)
}

/** RFC 6492 §3.1.1.6.1–3.1.1.6.7: the SignerInfo. */
function inspectSigner(si: BerSignerInfo): void {
  inspect(si.version === 3, 'RFC 6492 §3.1.1.6.1', `SignerInfo version is ${si.version}, not 3`)
  inspect(si.sid.type === 'ski', 'RFC 6492 §3.1.1.6.2', 'sid must be a subjectKeyIdentifier')
  inspect(si.digestAlgorithm.oid === oids.sha256 && si.digestAlgorithm.params !== 'other',
    'RFC 6492 §3.1.1.6.3', `digestAlgorithm ${oids.oidName(si.digestAlgorithm.oid)} is not SHA-256`)
  const alg = si.signatureAlgorithm
  inspect((alg.oid === oids.rsaEncryption || alg.oid === oids.sha256WithRsaEncryption) && alg.params !== 'other',
    'RFC 6492 §3.1.1.6.5', `signatureAlgorithm ${oids.oidName(alg.oid)} is neither rsaEncryption nor sha256WithRSAEncryption`)
  inspect(si.signedAttrs !== undefined, 'RFC 6492 §3.1.1.6.4', 'signedAttrs are missing')
  inspect(!si.unsignedAttrs, 'RFC 6492 §3.1.1.6.7', 'unsignedAttrs must be omitted')
}

const KNOWN_ATTRS = new Set([oids.contentType, oids.messageDigest, oids.signingTime, oids.binarySigningTime])

interface Attributes {
  signingTime: Date
  messageDigest: Uint8Array
  ignoredAttributes: string[]
}

/** RFC 6492 §3.1.1.6.4: content-type, message-digest and signing-time once each, one value each (binary-signing-time
 *  may be present). Other attributes are ignored and reported: APNIC's 2011 messages carry smimeCapabilities (OpenSSL's
 *  `cms -sign` default), and they are signed, so they cannot change what the checked attributes say. */
function inspectAttributes(si: BerSignerInfo): Attributes {
  const rule = 'RFC 6492 §3.1.1.6.4'
  const attrs = si.signedAttrs?.attributes ?? []
  const seen = new Map<string, Uint8Array>()
  const ignoredAttributes: string[] = []
  for (const a of attrs) {
    if (!KNOWN_ATTRS.has(a.type)) {
      ignoredAttributes.push(a.type)
      continue
    }
    inspect(!seen.has(a.type), rule, `signed attribute ${oids.oidName(a.type)} appears twice`)
    inspect(a.values.length === 1, rule, `signed attribute ${oids.oidName(a.type)} must have exactly one value`)
    seen.set(a.type, a.values[0])
  }
  const ct = seen.get(oids.contentType)
  const md = seen.get(oids.messageDigest)
  const st = seen.get(oids.signingTime)
  inspect(ct !== undefined, 'RFC 6492 §3.1.1.6.4.1', 'content-type attribute is missing')
  inspect(md !== undefined, 'RFC 6492 §3.1.1.6.4.2', 'message-digest attribute is missing')
  inspect(st !== undefined, 'RFC 6492 §3.1.1.6.4.3', 'signing-time attribute is missing')
  inspect(readOid(parseDer(ct as Uint8Array)) === oids.idCtXml, 'RFC 6492 §3.1.1.6.4.1', 'content-type attribute is not id-ct-xml')
  const messageDigest = readOctetString(parseDer(md as Uint8Array), 'RFC 5652 §11.2').slice()
  inspect(messageDigest.length === 32, 'RFC 6492 §3.1.1.6.4.2', `message-digest of ${messageDigest.length} octets is not a SHA-256 digest`)
  return { signingTime: readTime(parseDer(st as Uint8Array), 'RFC 5652 §11.3'), messageDigest, ignoredAttributes }
}

/** Decode and apply the RFC 6492 §3.1.1 profile (RFC 8181 §2 uses the same). DecodeError for bad syntax,
 *  InspectionError naming the rule for a profile violation. No signature, time or chain check. */
export function inspectSignedMessage(bytes: Uint8Array): InspectedMessage {
  const m = unwrapUnverified(bytes)
  inspectSignedData(m)
  const signer = m.signedData.signerInfos[0]
  inspectSigner(signer)
  const { signingTime, messageDigest, ignoredAttributes } = inspectAttributes(signer)
  let ee: BpkiCert
  try {
    ee = decodeBpkiCert(m.certificates[0])
  } catch (e) {
    throw new DecodeError('RFC 6492 §3.1.1.4', `EE certificate: ${(e as Error).message}`, { cause: e })
  }
  const sid = signer.sid as { type: 'ski'; ski: Uint8Array }
  inspect(bytesEqual(sid.ski, ee.ski), 'RFC 6492 §3.1.1.6.2', 'sid does not match the EE certificate\'s subjectKeyIdentifier')
  const attrs = signer.signedAttrs as NonNullable<BerSignerInfo['signedAttrs']>
  return { ...m, signer, ee, signingTime, messageDigest, ignoredAttributes, signedAttrs: { received: attrs.received, der: attrs.der } }
}
