/**
 * Certificate revocation lists as RPKI profiles them (RFC 6487 §5, RFC 5280 §5): v2, AKI and CRL number as the only
 * extensions, no entry extensions, revokedCertificates absent when empty. Verbs: decodeCrl (DER, or BER from other
 * implementations; the empty-SEQUENCE form of Krill and LACNIC is accepted and noted), inspectCrl, verifyCrl, buildCrl.
 * Used by the CA (one CRL per key), protocol/ (the BPKI CRL in RFC 6492/8181 CMS) and `svcc inspect`.
 */
import { bitString, EncodeError, explicit, int, seq, seqOf, x509Time } from '../asn1/der.js'
import {
  children, type DerNode, expectSequence, readBigInt, readInt, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { SigningKey } from '../crypto/signer.js'
import { bytesEqual } from '../util/bytes.js'
import { VerificationError } from '../util/errors.js'
import { ALG_SHA256_WITH_RSA, type AlgorithmId, readAlgorithm } from './algorithm.js'
import { type ResourceCert, signatureValid } from './cert.js'
import { akiExtension, type CertExtensions, extension, readTaggedExtensions } from './cert-extensions.js'
import { type DistinguishedName, encodeName, inspectRpkiName, type NameSpec, readName, sameName } from './distinguished-name.js'
import { decodeDerOrBer, readSignedParts } from './encoding.js'
import { note, type Problem, problem } from './problem.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface RevokedCert {
  readonly serial: bigint
  readonly revocationDate: Date
  /** crlEntryExtensions present (RFC 6487 §5 forbids them). */
  readonly hasExtensions: boolean
}

/** A decoded CRL: syntax checked; profile by inspectCrl, signature and time by verifyCrl. */
export interface Crl {
  readonly bytes: Uint8Array
  readonly encoding: 'der' | 'ber'
  /** The TBSCertList as received: the signed bytes. */
  readonly tbs: Uint8Array
  /** The CRL version number: 1 when the field is absent, 2 for v2. */
  readonly version: number
  readonly tbsSignature: AlgorithmId
  readonly signatureAlgorithm: AlgorithmId
  readonly issuer: DistinguishedName
  readonly thisUpdate: Date
  readonly nextUpdate?: Date
  readonly timeTags: readonly number[]
  readonly revoked: readonly RevokedCert[]
  /** How revokedCertificates was written: left out, an empty SEQUENCE (Krill, LACNIC), or with entries. */
  readonly revokedForm: 'absent' | 'empty-sequence' | 'entries'
  readonly extensions: CertExtensions
  readonly signature: Uint8Array
}

export interface CrlSpec {
  issuerName: NameSpec
  thisUpdate: Date
  nextUpdate: Date
  /** Non-negative, at most 20 octets (RFC 5280 §5.2.3); Krill shares one counter with the manifest number. */
  crlNumber: bigint
  revoked: readonly { serial: bigint; revocationDate: Date }[]
}

//------------ Decoding ------------------------------------------------------------------------------------------------

const RULE = 'RFC 5280 §5.1'

/** Decode a CRL (strict DER, or BER re-encoded as DER with the received TBS kept for the signature). */
export function decodeCrl(input: Uint8Array): Crl {
  return decodeDerOrBer(input, readCrl)
}

/** Read a CertificateList from a DER node. */
export function readCrl(node: DerNode, encoding: 'der' | 'ber' = 'der'): Crl {
  const { tbsNode, signatureAlgorithm, signature } = readSignedParts(node, RULE, ['CertificateList', 'tbsCertList'], 'RFC 5280 §5.1.1')
  return { ...readTbsCertList(tbsNode), bytes: node.raw(), encoding, tbs: tbsNode.raw(), signatureAlgorithm, signature }
}

type TbsCertList = Omit<Crl, 'bytes' | 'encoding' | 'tbs' | 'signatureAlgorithm' | 'signature'>

function readTbsCertList(node: DerNode): TbsCertList {
  const c = expectSequence(node, RULE, 'TBSCertList')
  const v = c.optional(0x02)
  const version = v === undefined ? 1 : readInt(v, 'RFC 5280 §5.1.2.1') + 1
  const tbsSignature = readAlgorithm(c.next(RULE, 0x30, 'signature'), 'RFC 5280 §5.1.2.2')
  const issuer = readName(c.next(RULE, 0x30, 'issuer'), 'RFC 5280 §5.1.2.3')
  const tu = c.next('RFC 5280 §5.1.2.4', undefined, 'thisUpdate')
  const nu = c.peek()?.tag === 0x17 || c.peek()?.tag === 0x18 ? c.next(RULE) : undefined
  const list = c.optional(0x30)
  const ext = c.optional(0xa0)
  c.end(RULE)
  const revoked = list === undefined ? [] : children(list).map(readEntry)
  const revokedForm = list === undefined ? 'absent' : revoked.length === 0 ? 'empty-sequence' : 'entries'
  return {
    version, tbsSignature, issuer, thisUpdate: readTime(tu), nextUpdate: nu === undefined ? undefined : readTime(nu),
    timeTags: nu === undefined ? [tu.tag] : [tu.tag, nu.tag], revoked, revokedForm, extensions: readTaggedExtensions(ext, 'RFC 5280 §5.1.2.7', 'crlExtensions'),
  }
}

function readEntry(node: DerNode): RevokedCert {
  const rule = 'RFC 5280 §5.1.2.6'
  const c = expectSequence(node, rule, 'revoked certificate')
  const serial = readBigInt(c.next(rule, 0x02, 'userCertificate'), rule)
  const revocationDate = readTime(c.next(rule, undefined, 'revocationDate'), rule)
  const hasExtensions = c.optional(0x30) !== undefined
  c.end(rule)
  return { serial, revocationDate, hasExtensions }
}


//------------ Inspection ----------------------------------------------------------------------------------------------

/** RFC 6487 §5 profile problems (RFC 9829 relaxes only how RPs compare CRL numbers, not their form). */
export function inspectCrl(crl: Crl): Problem[] {
  const out: Problem[] = []
  const rule = 'RFC 6487 §5'
  if (crl.encoding !== 'der') out.push(problem(rule, 'CRL is not DER encoded'))
  if (crl.version !== 2) out.push(problem(rule, `version ${crl.version}, expected 2`))
  if (crl.signatureAlgorithm.oid !== oids.sha256WithRsaEncryption) out.push(problem('RFC 7935 §2', 'signature algorithm is not sha256WithRSAEncryption'))
  if (crl.tbsSignature.oid !== crl.signatureAlgorithm.oid) out.push(problem('RFC 5280 §5.1.1.2', 'signature field differs from signatureAlgorithm'))
  out.push(...inspectRpkiName(crl.issuer, '4.4', 'issuer'))
  if (crl.nextUpdate === undefined) out.push(problem(rule, 'nextUpdate is missing'))
  const times = [crl.thisUpdate, crl.nextUpdate]
  crl.timeTags.forEach((tag, i) => {
    // RFC 5280 §5.1.2.4–5: UTCTime through 2049, GeneralizedTime from 2050.
    if ((times[i]!.getUTCFullYear() < 2050) !== (tag === 0x17)) out.push(problem('RFC 5280 §5.1.2.4', `${i === 0 ? 'thisUpdate' : 'nextUpdate'} uses the wrong time type for its year`))
  })
  if (crl.nextUpdate !== undefined && crl.nextUpdate < crl.thisUpdate) out.push(problem(rule, 'nextUpdate is before thisUpdate'))
  inspectCrlExtensions(crl, out)
  // RFC 5280 §5.1.2.6: when there are no revoked certificates, the list MUST be absent.
  if (crl.revokedForm === 'empty-sequence') out.push(note('RFC 5280 §5.1.2.6', 'empty revokedCertificates written as an empty SEQUENCE'))
  if (crl.revoked.some((r) => r.hasExtensions)) out.push(problem(rule, 'CRL entry extensions are not allowed'))
  if (crl.revoked.some((r) => r.serial <= 0n)) out.push(problem('RFC 5280 §5.1.2.6', 'revoked serial number is not positive'))
  return out
}

function inspectCrlExtensions(crl: Crl, out: Problem[]): void {
  const rule = 'RFC 6487 §5'
  const x = crl.extensions
  for (const e of x.list) {
    if (e.oid !== oids.authorityKeyIdentifier && e.oid !== oids.cRLNumber) out.push(problem(rule, `unexpected CRL extension ${oids.oidName(e.oid)}`))
    else if (e.critical) out.push(problem(rule, `${oids.oidName(e.oid)} must not be critical`))
  }
  for (const id of x.duplicates) out.push(problem('RFC 5280 §5.2', `extension ${oids.oidName(id)} appears more than once`))
  if (x.aki?.keyIdentifier === undefined) out.push(problem(rule, 'authorityKeyIdentifier is missing'))
  if (x.crlNumber === undefined) out.push(problem(rule, 'CRL number is missing'))
  else if (x.crlNumber.value < 0n) out.push(problem('RFC 5280 §5.2.3', 'CRL number is negative'))
  else if (x.crlNumber.octets > 20) out.push(problem('RFC 5280 §5.2.3', `CRL number of ${x.crlNumber.octets} octets (at most 20)`))
}

//------------ Verification --------------------------------------------------------------------------------------------

/** Verify the CRL against the CA that issued it, at `now` (thisUpdate ≤ now ≤ nextUpdate). Throws VerificationError. */
export function verifyCrl(crl: Crl, issuer: ResourceCert, now: Date): void {
  // RFC 5280 §6.3.3 (b): the CRL issuer is the certificate issuer; RFC 6487 §5: its AKI names the issuer key.
  if (!sameName(crl.issuer, issuer.subject)) throw new VerificationError('RFC 5280 §6.3.3', "CRL issuer differs from the CA's subject")
  const aki = crl.extensions.aki?.keyIdentifier
  if (aki !== undefined && !bytesEqual(aki, issuer.keyId)) throw new VerificationError('RFC 6487 §5', "CRL AKI differs from the CA's SKI")
  if (!signatureValid(issuer.spki, crl.tbs, crl.signature)) throw new VerificationError('RFC 5280 §6.3.3', 'CRL signature does not verify')
  if (now < crl.thisUpdate) throw new VerificationError('RFC 5280 §6.3.3', `CRL is not valid before ${crl.thisUpdate.toISOString()}`)
  if (crl.nextUpdate !== undefined && now > crl.nextUpdate) throw new VerificationError('RFC 5280 §6.3.3', `CRL has expired (nextUpdate ${crl.nextUpdate.toISOString()})`)
}

/** Whether the CRL lists `serial`. */
export function isRevoked(crl: Crl, serial: bigint): boolean {
  return crl.revoked.some((r) => r.serial === serial)
}

//------------ Building ------------------------------------------------------------------------------------------------

const VERSION_2 = int(1)

/** Build and sign a v2 CRL with AKI (the issuer key) and CRL number; no list at all when nothing is revoked. */
export function buildCrl(spec: CrlSpec, issuer: SigningKey): Uint8Array {
  if (spec.crlNumber < 0n || spec.crlNumber >= 1n << 159n) throw new EncodeError('RFC 5280 §5.2.3', 'CRL number must be 0 … 2^159-1')
  if (spec.nextUpdate < spec.thisUpdate) throw new EncodeError('RFC 6487 §5', 'nextUpdate is before thisUpdate')
  const parts = [VERSION_2, ALG_SHA256_WITH_RSA, encodeName(spec.issuerName), x509Time(spec.thisUpdate), x509Time(spec.nextUpdate)]
  // RFC 5280 §5.1.2.6: revokedCertificates is absent when empty.
  if (spec.revoked.length > 0) parts.push(seqOf(spec.revoked.map((r) => seq(int(r.serial), x509Time(r.revocationDate)))))
  parts.push(explicit(0, seq(akiExtension(issuer.ski), extension(oids.cRLNumber, false, int(spec.crlNumber)))))
  const tbs = seqOf(parts)
  return seq(tbs, ALG_SHA256_WITH_RSA, bitString(issuer.sign(tbs)))
}
