/**
 * RFC 6492 §3.1 / RFC 8181 §2 CMS wrapper, inbound side part 2: `unwrapMessage` checks a peer's message against the
 * BPKI identity certificate registered for that peer (RFC 8183 §4): message digest, signature over the signed
 * attributes, signing-time window (replay), EE certificate chained to the identity certificate, and the CRL.
 * Every failure is a LibraryError (DecodeError, InspectionError or VerificationError) whose `rule` names the section
 * and whose message is short enough for an RFC 8181 `bad_cms_signature` report or an RFC 6492 error description.
 * Called by the RFC 6492 and RFC 8181 endpoints (server side) and by the clients that read the replies.
 */
import { bytesEqual } from '../util/bytes.js'
import { DecodeError, VerificationError } from '../util/errors.js'
import { type IdCert, decodeIdCert } from './id-cert.js'
import { type BpkiCert, type BpkiCrl, decodeBpkiCrl, signedBy, verifyWith } from './id-cert-x509.js'
import { type InspectedMessage, inspectSignedMessage } from './signed-message-decode.js'
import { sha256 } from '../crypto/digest.js'

export interface UnwrapOptions {
  /** The peer's registered BPKI identity certificate (DER, or already decoded). */
  idCert: Uint8Array | IdCert
  /** The time to check against (the caller owns the clock). */
  now: Date
  /** Tolerated clock difference, in seconds, for "not yet valid" times: a signing-time in the future, an EE
   *  notBefore or a CRL thisUpdate after `now`, and an expiry just passed (default 300, as Krill backdates by 5 min). */
  maxSkewSeconds?: number
  /** How old a signing-time may be, in seconds (default 600): an older message is refused as a possible replay. */
  maxAgeSeconds?: number
  /** The signing-time of the last message accepted from this peer: an earlier one is refused as a replay (this
   *  closes the age window; keep it per peer). Equal is accepted: signing-time has one-second resolution. */
  lastSigningTime?: Date
}

/** A verified message. */
export interface VerifiedMessage {
  /** The XML, decoded as UTF-8 (DecodeError for bytes that are not). */
  xml: string
  /** The eContent octets. */
  content: Uint8Array
  signingTime: Date
  /** The EE certificate that signed the message (DER) and its decoded form. */
  eeCert: Uint8Array
  ee: BpkiCert
  /** The CRL of the identity certificate, when the message carried one (APNIC's 2011 messages do not). */
  crl?: BpkiCrl
  /** True when the message was strict DER; RIPE NCC sends BER with indefinite lengths. */
  der: boolean
}

export const DEFAULT_MAX_SKEW_SECONDS = 300
export const DEFAULT_MAX_AGE_SECONDS = 600

function fail(rule: string, message: string): never {
  throw new VerificationError(rule, message)
}

/** RFC 5652 §5.4 and §11.2: the message digest over eContent, and the EE signature over the signed attributes.
 *  The signature is checked over the attributes as received (tag 0x31); if that fails and the message was not DER,
 *  over their DER re-encoding, which is what RFC 5652 §5.4 says is signed. */
export function verifyMessageSignature(m: InspectedMessage): void {
  const digest = sha256(m.content)
  if (!bytesEqual(digest, m.messageDigest)) fail('RFC 5652 §11.2', 'message-digest does not match the content')
  const ok = verifyWith('sha256', m.signedAttrs.received, m.ee.spki, m.signer.signature) ||
    (!bytesEqual(m.signedAttrs.received, m.signedAttrs.der) && verifyWith('sha256', m.signedAttrs.der, m.ee.spki, m.signer.signature))
  if (!ok) fail('RFC 5652 §5.6', 'signature does not verify with the EE certificate key')
}

/** The signing-time window (RFC 6492 §3.1.1.6.4.3; RFC 8181 §2 uses the same CMS profile): not in the future beyond
 *  the skew, not older than the age limit, and not before the last accepted message. */
export function verifyMessageTime(m: InspectedMessage, opts: UnwrapOptions): void {
  const skew = (opts.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS) * 1000
  const age = (opts.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS) * 1000
  const now = opts.now.getTime(), t = m.signingTime.getTime()
  const rule = 'RFC 6492 §3.1.1.6.4.3'
  if (t > now + skew) fail(rule, `signing-time ${iso(m.signingTime)} is in the future`)
  if (t < now - age) fail(rule, `signing-time ${iso(m.signingTime)} is older than ${age / 1000} s: possible replay`)
  if (opts.lastSigningTime !== undefined && t < opts.lastSigningTime.getTime()) {
    fail(rule, `signing-time ${iso(m.signingTime)} is before the last accepted message: possible replay`)
  }
}

function iso(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z')
}

/** `issued` names `issuer` as its issuer: by AKI when present (must match), else by name. LACNIC's EE certificates
 *  name "CN=bpki-lacnic" while its identity certificate is "CN=bpki O=lacnic", with matching key identifiers, so a
 *  matching AKI is enough (rpki-rs chains by key only). */
function checkIssuer(issued: { aki?: Uint8Array; issuerDer: Uint8Array }, issuer: BpkiCert, rule: string, what: string): void {
  if (issued.aki !== undefined) {
    if (!bytesEqual(issued.aki, issuer.ski)) fail(rule, `${what} authorityKeyIdentifier does not match the identity certificate`)
  } else if (!bytesEqual(issued.issuerDer, issuer.subjectDer)) {
    fail(rule, `${what} issuer is not the identity certificate's subject`)
  }
}

/** notBefore ≤ now + skew and now − skew ≤ notAfter (RFC 5280 §6.1.3 (a)(2), with clock tolerance). */
function checkValidity(from: Date, until: Date | undefined, now: number, skew: number, rule: string, what: string): void {
  if (from.getTime() > now + skew) fail(rule, `${what} is not valid before ${iso(from)}`)
  if (until !== undefined && until.getTime() < now - skew) fail(rule, `${what} expired at ${iso(until)}`)
}

/** The EE certificate is issued by the identity certificate and valid now; the identity certificate is valid now. */
export function verifyMessageChain(m: InspectedMessage, idCert: BpkiCert, opts: UnwrapOptions): void {
  const now = opts.now.getTime(), skew = (opts.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS) * 1000
  checkValidity(idCert.notBefore, idCert.notAfter, now, skew, 'RFC 5280 §6.1.3', 'the identity certificate')
  checkIssuer(m.ee, idCert, 'RFC 6492 §3.1.1.4', 'EE certificate')
  if (!signedBy(m.ee, idCert.spki)) fail('RFC 6492 §3.1.1.4', 'EE certificate is not signed by the identity certificate')
  checkValidity(m.ee.notBefore, m.ee.notAfter, now, skew, 'RFC 5280 §6.1.3', 'the EE certificate')
  if (m.ee.ca === true) fail('RFC 6492 §3.1.1.4', 'the EE certificate is a CA certificate')
}

/** The CRL, when present: signed by the identity certificate, current, and not listing the EE certificate. */
export function verifyMessageCrl(m: InspectedMessage, idCert: BpkiCert, opts: UnwrapOptions): BpkiCrl | undefined {
  if (m.crls.length === 0) return undefined
  const rule = 'RFC 6492 §3.1.1.5'
  let crl: BpkiCrl
  try {
    crl = decodeBpkiCrl(m.crls[0])
  } catch (e) {
    throw new DecodeError(rule, `CRL: ${(e as Error).message}`, { cause: e })
  }
  checkIssuer(crl, idCert, rule, 'CRL')
  if (!signedBy(crl, idCert.spki)) fail(rule, 'CRL is not signed by the identity certificate')
  const now = opts.now.getTime(), skew = (opts.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS) * 1000
  if (crl.nextUpdate === undefined) fail('RFC 5280 §5.1.2.5', 'CRL has no nextUpdate')
  checkValidity(crl.thisUpdate, crl.nextUpdate, now, skew, rule, 'the CRL')
  if (crl.revoked.includes(m.ee.serial)) fail('RFC 5280 §6.3', `the EE certificate (serial ${m.ee.serial}) is revoked`)
  return crl
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Decode, inspect and verify a peer's RFC 6492 / RFC 8181 message against its registered identity certificate. */
export function unwrapMessage(bytes: Uint8Array, opts: UnwrapOptions): VerifiedMessage {
  const idCert = opts.idCert instanceof Uint8Array ? decodeIdCert(opts.idCert) : opts.idCert
  const m = inspectSignedMessage(bytes)
  verifyMessageSignature(m)
  verifyMessageTime(m, opts)
  verifyMessageChain(m, idCert, opts)
  const crl = verifyMessageCrl(m, idCert, opts)
  let xml: string
  try {
    xml = utf8.decode(m.content)
  } catch (e) {
    throw new DecodeError('RFC 6492 §3.1.1.3.2', 'the XML content is not valid UTF-8', { cause: e })
  }
  return { xml, content: m.content, signingTime: m.signingTime, eeCert: m.certificates[0], ee: m.ee, crl, der: m.der }
}
