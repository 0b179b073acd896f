/**
 * Tolerant X.509 reading for the BPKI of RFC 8183 §4 and RFC 6492 §3.1 (identity certificates, the EE certificates
 * and CRLs inside RFC 6492/8181 CMS): certificates and CRLs as plain data, names as text, and signature checks with
 * node:crypto. Real peers' BPKI is not RPKI-profiled (fixtures/README.md §3: full DNs, intermediate CAs, T61/BMP
 * strings, Netscape extensions), so nothing here enforces RFC 6487. Used by id-cert.ts and signed-message-verify.ts.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { toDer, parseBer } from '../asn1/ber.js'
import {
  children, cursor, type DerCursor, type DerNode, expectSequence, parseDer, parseEmbedded, readBigInt, readBitString,
  readOctetString, readOid, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { keyIdentifier } from '../crypto/key-id.js'
import { bytesEqual } from '../util/bytes.js'
import { DecodeError, VerificationError } from '../util/errors.js'

/** A decoded X.509 certificate (RFC 5280 §4.1), without profile checks. */
export interface BpkiCert {
  der: Uint8Array
  /** The TBSCertificate as received: the bytes the issuer signed. */
  tbs: Uint8Array
  version: number
  serial: bigint
  /** Outer signatureAlgorithm OID (RFC 5280 §4.1.1.2). */
  signatureAlgorithm: string
  signature: Uint8Array
  issuer: string
  subject: string
  /** The issuer and subject Name encodings, for exact name chaining. */
  issuerDer: Uint8Array
  subjectDer: Uint8Array
  notBefore: Date
  notAfter: Date
  /** SubjectPublicKeyInfo DER. */
  spki: Uint8Array
  /** SubjectKeyIdentifier: the extension's value, or computed by RFC 5280 §4.2.1.2 method 1 when absent. */
  ski: Uint8Array
  skiFromExtension: boolean
  /** AuthorityKeyIdentifier keyIdentifier, when present (RFC 5280 §4.2.1.1). */
  aki?: Uint8Array
  /** basicConstraints cA; undefined when the extension is absent. */
  ca?: boolean
}

/** A decoded X.509 CRL (RFC 5280 §5.1), without profile checks. */
export interface BpkiCrl {
  der: Uint8Array
  tbs: Uint8Array
  signatureAlgorithm: string
  signature: Uint8Array
  issuer: string
  issuerDer: Uint8Array
  thisUpdate: Date
  nextUpdate?: Date
  /** Serial numbers of revokedCertificates (absent and empty `30 00` lists both give []). */
  revoked: bigint[]
  aki?: Uint8Array
  crlNumber?: bigint
}

const CERT = 'RFC 5280 §4.1'
const CRL = 'RFC 5280 §5.1'

/** Parse strictly when the input is DER, else through the BER path (a re-encoding: signatures may then fail). */
function parseX509(der: Uint8Array, what: string): DerNode {
  try {
    return parseDer(der, { maxNodes: 100_000 })
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    try {
      return parseDer(toDer(parseBer(der, { maxNodes: 100_000 })), { maxNodes: 100_000 })
    } catch (e2) {
      throw new DecodeError(CERT, `${what} is not valid DER or BER: ${(e2 as Error).message}`, { cause: e2 })
    }
  }
}

// Short names of the attribute types seen in BPKI names (RFC 4514 §3, plus emailAddress and serialNumber).
const ATTR_NAMES: Record<string, string> = {
  [oids.idAtCommonName]: 'CN', [oids.idAtSerialNumber]: 'serialNumber', [oids.idAtCountryName]: 'C',
  '2.5.4.7': 'L', '2.5.4.8': 'ST', [oids.idAtOrganizationName]: 'O', '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.25': 'DC', '0.9.2342.19200300.100.1.1': 'UID', '1.2.840.113549.1.9.1': 'emailAddress',
}

const utf8 = new TextDecoder('utf-8')
const utf16be = new TextDecoder('utf-16be')

/** UniversalString (UCS-4 big-endian) as text; invalid code points become U+FFFD. */
function ucs4(c: Uint8Array): string {
  let out = ''
  for (let i = 0; i + 3 < c.length; i += 4) {
    const p = ((c[i] << 24) | (c[i + 1] << 16) | (c[i + 2] << 8) | c[i + 3]) >>> 0
    out += p <= 0x10ffff && (p < 0xd800 || p > 0xdfff) ? String.fromCodePoint(p) : '\ufffd'
  }
  return out
}

/** Any DirectoryString or IA5String as text: UTF8 (0x0c), BMP (0x1e, UTF-16BE), Universal (0x1c), else Latin-1
 *  (Printable, IA5, T61). Lenient on purpose: names are shown, and compared as DER bytes, never as text. */
function directoryString(node: DerNode): string {
  const c = node.content()
  if (node.tag === 0x0c) return utf8.decode(c)
  if (node.tag === 0x1e) return utf16be.decode(c)
  if (node.tag === 0x1c) return ucs4(c)
  if (node.constructed) return `#${Buffer.from(node.raw()).toString('hex')}`
  return Buffer.from(c).toString('latin1')
}

function escapeValue(v: string): string {
  return v.replace(/[,+"\\<>;]/g, (m) => `\\${m}`)
}

/** Name (RFC 5280 §4.1.2.4) as text in encoding order, 'C=NL, O=RIPE NCC, CN=RIPE NCC Resources' (OpenSSL's order). */
export function nameText(name: DerNode): string {
  const parts: string[] = []
  for (const rdn of children(expectSequence(name, CERT, 'Name').node)) {
    const atvs = children(rdn).map((atv) => {
      const c = expectSequence(atv, CERT, 'AttributeTypeAndValue')
      const type = readOid(c.next(CERT, 0x06, 'attribute type'))
      return `${ATTR_NAMES[type] ?? type}=${escapeValue(directoryString(c.next(CERT, undefined, 'attribute value')))}`
    })
    parts.push(atvs.join('+'))
  }
  return parts.join(', ')
}

/** AlgorithmIdentifier OID; parameters absent or NULL only (RFC 4055 §5, RFC 5754). */
function algorithm(c: DerCursor, rule: string): string {
  const a = expectSequence(c.next(rule, 0x30, 'AlgorithmIdentifier'), rule, 'AlgorithmIdentifier')
  const id = readOid(a.next(rule, 0x06, 'algorithm'))
  const p = a.optional(0x05)
  if (p !== undefined && p.length !== 0) throw new DecodeError(rule, 'NULL algorithm parameters with contents')
  a.end(rule)
  return id
}

function signatureBits(node: DerNode, rule: string): Uint8Array {
  const bs = readBitString(node, rule)
  if (bs.unusedBits !== 0) throw new DecodeError(rule, 'signature BIT STRING has unused bits')
  return bs.bytes.slice()
}

interface CertExtensions {
  ski?: Uint8Array
  aki?: Uint8Array
  ca?: boolean
  crlNumber?: bigint
}

/** Read the extensions we use; every other one is skipped (BPKI is not RPKI-profiled: Netscape types, EKU, …). */
function readExtensions(list: DerNode, rule: string): CertExtensions {
  const out: CertExtensions = {}
  for (const ext of children(expectSequence(list, rule, 'Extensions').node)) {
    const c = expectSequence(ext, rule, 'Extension')
    const id = readOid(c.next(rule, 0x06, 'extnID'))
    c.optional(0x01)
    const value = c.next(rule, 0x04, 'extnValue')
    c.end(rule)
    if (id === oids.subjectKeyIdentifier) out.ski = readOctetString(parseEmbedded(value), 'RFC 5280 §4.2.1.2').slice()
    else if (id === oids.authorityKeyIdentifier) out.aki = akiKeyId(parseEmbedded(value))
    else if (id === oids.basicConstraints) out.ca = basicConstraintsCa(parseEmbedded(value))
    else if (id === oids.cRLNumber) out.crlNumber = readBigInt(parseEmbedded(value), 'RFC 5280 §5.2.3')
  }
  return out
}

/** RFC 5280 §4.2.1.1: the [0] keyIdentifier of AuthorityKeyIdentifier; issuer/serial forms are ignored. */
function akiKeyId(node: DerNode): Uint8Array | undefined {
  const first = expectSequence(node, 'RFC 5280 §4.2.1.1', 'AuthorityKeyIdentifier').peek()
  return first?.tag === 0x80 ? first.content().slice() : undefined
}

/** RFC 5280 §4.2.1.9: cA DEFAULT FALSE (any non-zero BOOLEAN octet counts as TRUE here). */
function basicConstraintsCa(node: DerNode): boolean {
  const first = expectSequence(node, 'RFC 5280 §4.2.1.9', 'BasicConstraints').peek()
  return first?.tag === 0x01 && first.length === 1 && first.content()[0] !== 0
}

/**
 * The outer SEQUENCE of a signed X.509 structure (`names`: its type and its TBS part): the TBS, the signature
 * algorithm (`section`.2) and the signature value (`section`.3, RFC 5280 §4.1.1 or §5.1.1).
 */
function readSigned(der: Uint8Array, what: 'certificate' | 'CRL', rule: string, names: [string, string], section: string) {
  const c = expectSequence(parseX509(der, what), rule, names[0])
  const tbsNode = c.next(rule, 0x30, names[1])
  const signatureAlgorithm = algorithm(c, `${section}.2`)
  const signature = signatureBits(c.next(rule, 0x03, 'signatureValue'), `${section}.3`)
  c.end(rule)
  return { tbsNode, signatureAlgorithm, signature }
}

/** Decode an X.509 certificate (RFC 5280 §4.1) as plain data. Syntax only: no profile, no signature check. */
export function decodeBpkiCert(der: Uint8Array): BpkiCert {
  const { tbsNode, signatureAlgorithm, signature } = readSigned(der, 'certificate', CERT, ['Certificate', 'tbsCertificate'], 'RFC 5280 §4.1.1')
  const t = cursor(tbsNode)
  const v = t.optional(0xa0)
  const version = v === undefined ? 1 : Number(readBigInt(cursor(v).next(CERT, 0x02, 'version'))) + 1
  const serial = readBigInt(t.next(CERT, 0x02, 'serialNumber'), 'RFC 5280 §4.1.2.2')
  if (algorithm(t, 'RFC 5280 §4.1.2.3') !== signatureAlgorithm) {
    throw new DecodeError('RFC 5280 §4.1.1.2', 'signatureAlgorithm differs from the TBSCertificate signature field')
  }
  const issuerNode = t.next(CERT, 0x30, 'issuer')
  const validity = expectSequence(t.next(CERT, 0x30, 'validity'), 'RFC 5280 §4.1.2.5', 'Validity')
  const notBefore = readTime(validity.next('RFC 5280 §4.1.2.5', undefined, 'notBefore'))
  const notAfter = readTime(validity.next('RFC 5280 §4.1.2.5', undefined, 'notAfter'))
  const subjectNode = t.next(CERT, 0x30, 'subject')
  const spki = t.next(CERT, 0x30, 'subjectPublicKeyInfo').raw().slice()
  t.optional(0x81)
  t.optional(0x82)
  const extNode = t.optional(0xa3)
  t.end(CERT)
  const ext = extNode === undefined ? {} : readExtensions(cursor(extNode).next(CERT, 0x30, 'extensions'), CERT)
  return {
    der: der.slice(), tbs: tbsNode.raw().slice(), version, serial, signatureAlgorithm, signature,
    issuer: nameText(issuerNode), subject: nameText(subjectNode), issuerDer: issuerNode.raw().slice(),
    subjectDer: subjectNode.raw().slice(), notBefore, notAfter, spki, ski: ext.ski ?? keyIdentifier(spki),
    skiFromExtension: ext.ski !== undefined, aki: ext.aki, ca: ext.ca,
  }
}

/** Decode an X.509 v2 CRL (RFC 5280 §5.1) as plain data. Syntax only. */
export function decodeBpkiCrl(der: Uint8Array): BpkiCrl {
  const { tbsNode, signatureAlgorithm, signature } = readSigned(der, 'CRL', CRL, ['CertificateList', 'tbsCertList'], 'RFC 5280 §5.1.1')
  const t = cursor(tbsNode)
  t.optional(0x02)
  if (algorithm(t, 'RFC 5280 §5.1.2.2') !== signatureAlgorithm) {
    throw new DecodeError('RFC 5280 §5.1.1.2', 'signatureAlgorithm differs from the TBSCertList signature field')
  }
  const issuerNode = t.next(CRL, 0x30, 'issuer')
  const thisUpdate = readTime(t.next('RFC 5280 §5.1.2.4', undefined, 'thisUpdate'))
  const nu = t.peek()
  const nextUpdate = nu !== undefined && (nu.tag === 0x17 || nu.tag === 0x18) ? readTime(t.next(CRL)) : undefined
  const list = t.optional(0x30)
  const revoked = list === undefined ? [] : children(list).map((e) => readBigInt(expectSequence(e, 'RFC 5280 §5.1.2.6').next('RFC 5280 §5.1.2.6', 0x02, 'userCertificate')))
  const extNode = t.optional(0xa0)
  t.end(CRL)
  const ext = extNode === undefined ? {} : readExtensions(cursor(extNode).next(CRL, 0x30, 'crlExtensions'), CRL)
  return {
    der: der.slice(), tbs: tbsNode.raw().slice(), signatureAlgorithm, signature, issuer: nameText(issuerNode),
    issuerDer: issuerNode.raw().slice(), thisUpdate, nextUpdate, revoked, aki: ext.aki, crlNumber: ext.crlNumber,
  }
}

// ---- Signatures (RFC 4055 / RFC 7935 §2: RSA PKCS#1 v1.5 with SHA-2) ----

const HASHES: Record<string, string> = {
  [oids.sha256WithRsaEncryption]: 'sha256', '1.2.840.113549.1.1.12': 'sha384', '1.2.840.113549.1.1.13': 'sha512',
}

const keyCache = new Map<string, KeyObject>()

/** A public KeyObject for an SPKI (cached: BPKI trust anchors verify many messages). */
export function publicKey(spki: Uint8Array): KeyObject {
  const id = Buffer.from(spki).toString('base64')
  let k = keyCache.get(id)
  if (k === undefined) {
    try {
      k = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' })
    } catch (e) {
      throw new VerificationError('RFC 5280 §4.1.2.7', 'subjectPublicKeyInfo is not a usable public key', { cause: e })
    }
    if (keyCache.size >= 256) keyCache.delete(keyCache.keys().next().value as string)
    keyCache.set(id, k)
  }
  return k
}

/** True when `signature` over `data` verifies under `spki` with `hash` (false for a bad signature or key type). */
export function verifyWith(hash: string, data: Uint8Array, spki: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verify(hash, data, publicKey(spki), signature)
  } catch (e) {
    if (e instanceof VerificationError) throw e
    return false
  }
}

/** True when the certificate or CRL signature verifies under `issuerSpki`; an unknown algorithm is an error. */
export function signedBy(obj: BpkiCert | BpkiCrl, issuerSpki: Uint8Array): boolean {
  const hash = HASHES[obj.signatureAlgorithm]
  if (hash === undefined) {
    throw new VerificationError('RFC 7935 §2', `unsupported signature algorithm ${oids.oidName(obj.signatureAlgorithm)}`)
  }
  return verifyWith(hash, obj.tbs, issuerSpki, obj.signature)
}

/** Self-signed: subject equals issuer and the signature verifies under the certificate's own key. */
export function isSelfSigned(cert: BpkiCert): boolean {
  if (!bytesEqual(cert.subjectDer, cert.issuerDer)) return false
  try {
    return signedBy(cert, cert.spki)
  } catch {
    return false
  }
}
