/**
 * RFC 6492 §3.1 / RFC 8181 §2 CMS wrapper around protocol XML: `wrapMessage` builds it (strict DER through der.ts,
 * rpki-encoding.md §8), `unwrapMessage` (signed-message-verify.ts) checks a peer's, `unwrapUnverified` only decodes.
 * Used by the RFC 6492 parent/child code and the RFC 8181 publication server and client.
 *
 * EE key policy. RFC 6492 §3.1.1.4 asks for exactly one EE certificate issued by the sender's BPKI CA and §3.1.1.5
 * for a current CRL of that CA; unlike signed objects (RFC 6487 §4, RFC 6488 §2.1.4), the protocol CMS has no
 * one-time-use rule, and RFC 8181 §2 uses the same profile. rpkid, APNIC, AFRINIC and LACNIC reuse one EE certificate
 * for many messages (../shared/fixtures/rfc6492/cms: one EE signs rpkid's list, issue and list_response). A fresh RSA
 * key per message, as Krill does, costs one keygen (~85 ms on 2 cores through the KeyPool) per reply and would cap an
 * RFC 8181 server at ~12 replies/s. So a MessageSigner reuses a short-lived EE certificate: valid from 5 minutes
 * before its creation (peers' clocks) for `eeLifetimeSeconds` (default 4 h), replaced by `prepare()` once less than
 * `rotateBeforeSeconds` (default 2 h) remain, and never used with less than 5 minutes left. Each new EE certificate
 * comes with a new empty CRL of the identity certificate (nextUpdate = the EE notAfter). An EE key is never revoked:
 * it simply stops being used and expires within hours.
 */
import { createHash } from 'node:crypto'
import { concat } from '../util/bytes.js'
import { lengthOctets, nul, octetString, oid, retag, seq, set, setOf, tlv, x509Time, int } from '../asn1/der.js'
import * as oids from '../asn1/oids.js'
import type { OneOffKey, SigningKey } from '../crypto/signer.js'
import { buildIdCrl, decodeIdCert, type IdCert, issueIdEeCert } from './id-cert.js'
import { sha256 } from '../crypto/digest.js'

export { unwrapUnverified, inspectSignedMessage, type UnverifiedMessage, type InspectedMessage } from './signed-message-decode.js'
export {
  unwrapMessage, verifyMessageSignature, verifyMessageTime, verifyMessageChain, verifyMessageCrl,
  DEFAULT_MAX_AGE_SECONDS, DEFAULT_MAX_SKEW_SECONDS, type UnwrapOptions, type VerifiedMessage,
} from './signed-message-verify.js'

export interface MessageSignerOptions {
  /** The sender's identity key: the key of `idCert`. */
  idKey: SigningKey
  /** The sender's BPKI identity certificate (DER), e.g. from createIdCert(idKey, now). */
  idCert: Uint8Array
  /** Where new EE keys come from, e.g. `() => signer.oneOffKey()` (a KeyPool key, never persisted). */
  newEeKey?: () => Promise<SigningKey>
  /** EE certificate lifetime after its creation, in seconds (default 4 h). */
  eeLifetimeSeconds?: number
  /** prepare() replaces the EE certificate when less than this remains, in seconds (default 2 h). */
  rotateBeforeSeconds?: number
}

/** The EE certificate and CRL that go into every message until the next rotation. */
export interface MessageSignerState {
  eeKey: SigningKey
  eeCert: Uint8Array
  crl: Uint8Array
  notAfter: Date
}

/** Backdating of EE notBefore and CRL thisUpdate, and the least validity left for use: peers' clocks differ. */
export const CLOCK_MARGIN_SECONDS = 300

/** Holds a sender's identity (key and ID certificate) and the current EE certificate and CRL for its messages. */
export class MessageSigner {
  readonly idKey: SigningKey
  readonly idCert: IdCert
  readonly eeLifetimeSeconds: number
  readonly rotateBeforeSeconds: number
  private readonly newEeKey?: () => Promise<SigningKey>
  private state?: MessageSignerState
  private rotation?: Promise<void>
  private lastCrlNumber = 0n

  constructor(opts: MessageSignerOptions) {
    this.idKey = opts.idKey
    this.idCert = decodeIdCert(opts.idCert)
    this.newEeKey = opts.newEeKey
    this.eeLifetimeSeconds = opts.eeLifetimeSeconds ?? 4 * 3600
    this.rotateBeforeSeconds = opts.rotateBeforeSeconds ?? 2 * 3600
    if (!(this.eeLifetimeSeconds > 2 * CLOCK_MARGIN_SECONDS) || !(this.rotateBeforeSeconds < this.eeLifetimeSeconds)) {
      throw new RangeError('MessageSigner: eeLifetimeSeconds must exceed 600 and rotateBeforeSeconds must be smaller')
    }
  }

  /** True when prepare() would create a new EE certificate at `now`. */
  needsRotation(now: Date): boolean {
    return this.state === undefined || this.state.notAfter.getTime() - now.getTime() < this.rotateBeforeSeconds * 1000
  }

  /** Make sure an EE certificate with enough validity left exists (creates one with a key from `newEeKey`). */
  async prepare(now: Date): Promise<void> {
    if (!this.needsRotation(now)) return
    if (this.rotation === undefined) {
      if (this.newEeKey === undefined) throw new Error('MessageSigner: no newEeKey source to rotate the EE key')
      const source = this.newEeKey
      this.rotation = source().then((k) => this.useEeKey(k, now)).finally(() => { this.rotation = undefined })
    }
    await this.rotation
  }

  /** Start using `eeKey` from `now`: issue its EE certificate and a new CRL (synchronous; tests and fixed keys). */
  useEeKey(eeKey: SigningKey, now: Date): void {
    const t = Math.floor(now.getTime() / 1000) * 1000
    const notBefore = new Date(t - CLOCK_MARGIN_SECONDS * 1000)
    const notAfter = new Date(t + this.eeLifetimeSeconds * 1000)
    const serial = eeSerial(eeKey.spki, notBefore)
    const eeCert = issueIdEeCert({ idKey: this.idKey, idCert: this.idCert, eeSpki: eeKey.spki, serial, notBefore, notAfter })
    const n = BigInt(t) > this.lastCrlNumber ? BigInt(t) : this.lastCrlNumber + 1n
    this.lastCrlNumber = n
    const crl = buildIdCrl({ idKey: this.idKey, idCert: this.idCert, crlNumber: n, thisUpdate: notBefore, nextUpdate: notAfter })
    const old = this.state?.eeKey as Partial<OneOffKey> | undefined
    this.state = { eeKey, eeCert, crl, notAfter }
    // The replaced key is never used again (wrapMessage is synchronous): forget a one-off key's private half.
    if (old !== undefined && old !== eeKey && old.keyId !== eeKey.keyId) old.destroy?.()
  }

  /** The EE key, certificate and CRL to use at `now`; throws when none is usable (call prepare first). */
  current(now: Date): MessageSignerState {
    const s = this.state
    if (s === undefined || s.notAfter.getTime() - now.getTime() < CLOCK_MARGIN_SECONDS * 1000) {
      throw new Error('MessageSigner: no usable EE certificate at this time; await prepare(now) first')
    }
    return s
  }

  /** prepare(now), then wrap the XML. */
  async sign(xml: string | Uint8Array, now: Date): Promise<Uint8Array> {
    await this.prepare(now)
    return wrapMessage(xml, this, now)
  }
}

/** A positive 63-bit serial derived from the EE key and its notBefore: unique per EE, and byte-stable for tests. */
function eeSerial(spki: Uint8Array, notBefore: Date): bigint {
  const h = createHash('sha256').update(spki).update(String(notBefore.getTime())).digest()
  h[0] &= 0x7f
  const v = h.readBigUInt64BE(0)
  return v === 0n ? 1n : v
}

// Constant parts (rpki-encoding.md §8 "Signed objects", RFC 6492 §3.1.1).
const VERSION_3 = int(3)
const DIGEST_SHA256 = seq(oid(oids.sha256)) // RFC 5754 §2: parameters absent when generating
const DIGEST_ALGORITHMS = set(DIGEST_SHA256)
const SIG_RSA = seq(oid(oids.rsaEncryption), nul()) // RFC 7935 §2: rsaEncryption in SignerInfo
const OID_SIGNED_DATA = oid(oids.idSignedData)
const OID_XML = oid(oids.idCtXml)
const ATTR_CONTENT_TYPE = seq(oid(oids.contentType), set(OID_XML))

/** The DER SET of signed attributes (RFC 6492 §3.1.1.6.4): content-type, signing-time, message-digest, sorted. */
function signedAttributes(content: Uint8Array, signingTime: Date): Uint8Array {
  const digest = sha256(content)
  return setOf([
    ATTR_CONTENT_TYPE,
    seq(oid(oids.signingTime), set(x509Time(signingTime))), // RFC 5652 §11.3: UTCTime through 2049
    seq(oid(oids.messageDigest), set(octetString(digest))),
  ])
}

function header(tag: number, len: number): Uint8Array {
  return concat([Uint8Array.of(tag), lengthOctets(len)])
}

/** Build the CMS for `xml` (RFC 6492 §3.1, RFC 8181 §2) with the signer's current EE key, EE certificate and CRL.
 *  The XML is copied once (a publish query can be tens of megabytes). */
export function wrapMessage(xml: string | Uint8Array, signer: MessageSigner, now: Date): Uint8Array {
  const content = typeof xml === 'string' ? new Uint8Array(Buffer.from(xml, 'utf8')) : xml
  const { eeKey, eeCert, crl } = signer.current(now)
  const attrs = signedAttributes(content, now)
  const signerInfo = seq(VERSION_3, tlv(0x80, eeKey.ski), DIGEST_SHA256, retag(attrs, 0xa0), SIG_RSA, octetString(eeKey.sign(attrs)))
  // encapContentInfo = SEQUENCE { id-ct-xml, [0] EXPLICIT OCTET STRING (primitive, RFC 6492 §3.1.1.3.2) }
  const os = header(0x04, content.length)
  const e0 = header(0xa0, os.length + content.length)
  const eciLen = OID_XML.length + e0.length + os.length + content.length
  const eci = header(0x30, eciLen)
  const tail = concat([tlv(0xa0, eeCert), tlv(0xa1, crl), set(signerInfo)])
  const sdLen = VERSION_3.length + DIGEST_ALGORITHMS.length + eci.length + eciLen + tail.length
  const sd = header(0x30, sdLen)
  const ci0 = header(0xa0, sd.length + sdLen)
  const ci = header(0x30, OID_SIGNED_DATA.length + ci0.length + sd.length + sdLen)
  return concat([ci, OID_SIGNED_DATA, ci0, sd, VERSION_3, DIGEST_ALGORITHMS, eci, OID_XML, e0, os, content, tail])
}
