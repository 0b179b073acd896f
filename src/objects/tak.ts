/**
 * Trust Anchor Keys (RFC 9691): a signed object (id-ct-SignedTAL) by which a trust anchor names its current key with
 * the URIs of its certificate, and during a TA key roll its successor (or, under the new key, its predecessor). The EE
 * certificate is issued by the TA certificate itself and inherits its IP and AS resources. Verbs: decodeTak,
 * inspectTak, verifyTak, buildTak, plus takeyTal (the TAL a TAKey stands for). Used by the embedded trust anchor
 * (app/ca/tak-objects.ts) and `svcc inspect`.
 */
import { EncodeError, explicit, ia5String, seq, seqOf, utf8String } from '../asn1/der.js'
import { children, cursor, type DerNode, expectSequence, parseDer, readInt, readStringOf } from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { keyIdentifier } from '../crypto/key-id.js'
import type { OneOffKey, SigningKey } from '../crypto/signer.js'
import { bytesEqual } from '../util/bytes.js'
import { VerificationError } from '../util/errors.js'
import { parseUri } from '../util/uri.js'
import { readPublicKeyInfo } from './algorithm.js'
import type { Cert, ResourceCert } from './cert.js'
import { type Problem, problem } from './problem.js'
import {
  buildSignedObject, decodeSignedObjectOf, inspectSignedObject, type ObjectEe, type ObjectIssuer, type SignedObject,
  verifySignedObject,
} from './signed-object.js'
import { encodeTal } from './tal.js'

//------------ Types ---------------------------------------------------------------------------------------------------

/** One key of the trust anchor (RFC 9691 §3: TAKey), as a TAL would give it. */
export interface TaKey {
  readonly comments: readonly string[]
  /** rsync and https URIs of the TA certificate for this key (at least one). */
  readonly certificateURIs: readonly string[]
  /** The SubjectPublicKeyInfo DER. */
  readonly spki: Uint8Array
}

export interface Tak {
  readonly signedObject: SignedObject
  readonly ee: Cert
  readonly version: number
  /** The version was written although it is the DEFAULT 0 (X.690 §11.5 forbids that). */
  readonly versionExplicit: boolean
  readonly current: TaKey
  readonly predecessor?: TaKey
  readonly successor?: TaKey
}

export interface TakSpec {
  current: TaKey
  predecessor?: TaKey
  successor?: TaKey
}

const RULE = 'RFC 9691 §3'

//------------ Decoding ------------------------------------------------------------------------------------------------

/** Decode a TAK (signed object with id-ct-SignedTAL). */
export function decodeTak(bytes: Uint8Array): Tak {
  const so = decodeSignedObjectOf(bytes, oids.idCtSignedTal, 'id-ct-SignedTAL', RULE)
  return { signedObject: so, ee: so.ee, ...readTakContent(so.eContent) }
}

/** TAK ::= SEQUENCE { version INTEGER DEFAULT 0, current TAKey, predecessor [0] TAKey OPTIONAL, successor [1] TAKey OPTIONAL } */
export function readTakContent(eContent: Uint8Array): Omit<Tak, 'signedObject' | 'ee'> {
  const c = expectSequence(parseDer(eContent), RULE, 'TAK')
  // The version is DEFAULT 0 and so absent in DER; an explicit one is read untagged or, as rpki-client reads it, [0].
  let version = 0
  let versionExplicit = false
  const first = c.peek()
  if (first?.tag === 0x02 || (first?.tag === 0xa0 && cursor(first).peek()?.tag === 0x02)) {
    const node = c.next(RULE)
    version = first.tag === 0x02 ? readInt(node, RULE) : readWrappedInt(node)
    versionExplicit = true
  }
  const current = readTaKey(c.next(RULE, 0x30, 'current'))
  const pre = c.optional(0xa0)
  const suc = c.optional(0xa1)
  c.end(RULE)
  return { version, versionExplicit, current, ...(pre ? { predecessor: readTaKey(only(pre)) } : {}), ...(suc ? { successor: readTaKey(only(suc)) } : {}) }
}

function readWrappedInt(node: DerNode): number {
  const c = cursor(node)
  const v = readInt(c.next(RULE, 0x02, 'version'), RULE)
  c.end(RULE)
  return v
}

function only(wrapper: DerNode): DerNode {
  const c = cursor(wrapper)
  const n = c.next(RULE, 0x30, 'TAKey')
  c.end(RULE)
  return n
}

/** TAKey ::= SEQUENCE { comments SEQUENCE OF UTF8String, certificateURIs SEQUENCE OF IA5String, subjectPublicKeyInfo } */
function readTaKey(node: DerNode): TaKey {
  const c = expectSequence(node, RULE, 'TAKey')
  const comments = children(c.next(RULE, 0x30, 'comments')).map((n) => readStringOf(n, 0x0c, RULE))
  const certificateURIs = children(c.next(RULE, 0x30, 'certificateURIs')).map((n) => readStringOf(n, 0x16, RULE))
  const spkiNode = c.next(RULE, 0x30, 'subjectPublicKeyInfo')
  c.end(RULE)
  readPublicKeyInfo(spkiNode)
  return { comments, certificateURIs, spki: spkiNode.raw() }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** RFC 9691 problems: the envelope and EE, version 0, each TAKey's URIs, the current key is the EE's issuer, inherit. */
export function inspectTak(t: Tak): Problem[] {
  const out = inspectSignedObject(t.signedObject, oids.idCtSignedTal)
  if (t.version !== 0) out.push(problem(RULE, `version ${t.version}, expected 0`))
  else if (t.versionExplicit) out.push(problem('X.690 §11.5', 'version 0 is written although it is the DEFAULT'))
  for (const [role, k] of [['current', t.current], ['predecessor', t.predecessor], ['successor', t.successor]] as const) if (k) inspectTaKey(role, k, out)
  // RFC 9691 §3: the current key is the key of the TA that issued the EE certificate (its AKI).
  const aki = t.ee.extensions.aki?.keyIdentifier
  if (aki === undefined || !bytesEqual(aki, keyIdentifier(t.current.spki))) out.push(problem(RULE, "the current TAKey's key identifier does not match the EE certificate's AKI"))
  for (const other of [t.predecessor, t.successor]) if (other && bytesEqual(other.spki, t.current.spki)) out.push(problem(RULE, 'a predecessor or successor key equals the current key'))
  // RFC 9691 §3: the EE certificate uses inherit for IP and AS resources (rpki-client: "RFC 3779 extension not set to inherit").
  const { ip, as } = t.ee.extensions
  if (ip?.ipv4 !== 'inherit' || ip?.ipv6 !== 'inherit' || as?.asn !== 'inherit') out.push(problem(RULE, 'the EE certificate must use inherit for IPv4, IPv6 and AS resources'))
  return out
}

function inspectTaKey(role: string, k: TaKey, out: Problem[]): void {
  // RFC 9691 §3 and RFC 8630 §2.2: one or more certificate URIs, each rsync or https.
  if (k.certificateURIs.length === 0) out.push(problem(RULE, `the ${role} TAKey has no certificate URI`))
  for (const u of k.certificateURIs) if (!uriOk(u)) out.push(problem(RULE, `the ${role} TAKey has a URI that is neither rsync nor https: ${JSON.stringify(u)}`))
  if (new Set(k.certificateURIs).size !== k.certificateURIs.length) out.push(problem(RULE, `the ${role} TAKey lists a URI twice`))
}

function uriOk(u: string): boolean {
  try {
    const scheme = parseUri(u).scheme
    return scheme === 'rsync' || scheme === 'https'
  } catch {
    return false
  }
}

//------------ Verification --------------------------------------------------------------------------------------------

/** The envelope and EE against the TA certificate (RFC 6488 §3), which must be self-signed and hold the current key. */
export function verifyTak(t: Tak, ta: ResourceCert, now: Date): ResourceCert {
  // RFC 9691 §3: the TAK's EE certificate is issued by the trust anchor itself.
  if (!bytesEqual(ta.spki, t.current.spki)) throw new VerificationError(RULE, 'the current TAKey is not the key of the issuing certificate')
  if (ta.extensions.aki !== undefined && !bytesEqual(ta.extensions.aki.keyIdentifier ?? new Uint8Array(0), ta.keyId)) {
    throw new VerificationError(RULE, 'the issuer is not a self-signed trust anchor certificate')
  }
  return verifySignedObject(t.signedObject, ta, now)
}

/** The TAL (RFC 8630) that a TAKey stands for: what an RP switches to once it accepts a successor. */
export function takeyTal(k: TaKey): string {
  return encodeTal({ uris: k.certificateURIs, spki: k.spki, comments: k.comments })
}

//------------ Building ------------------------------------------------------------------------------------------------

function encodeTaKey(k: TaKey): Uint8Array {
  if (k.certificateURIs.length === 0) throw new EncodeError(RULE, 'a TAKey needs at least one certificate URI')
  for (const u of k.certificateURIs) if (!uriOk(u)) throw new EncodeError(RULE, `${JSON.stringify(u)} is neither an rsync nor an https URI`)
  readPublicKeyInfo(parseDer(k.spki))
  return seq(seqOf(k.comments.map(utf8String)), seqOf(k.certificateURIs.map(ia5String)), k.spki)
}

/** The TAK eContent: version left out (DEFAULT 0), current, [0] predecessor, [1] successor. */
export function encodeTakContent(spec: TakSpec): Uint8Array {
  for (const other of [spec.predecessor, spec.successor]) if (other && bytesEqual(other.spki, spec.current.spki)) throw new EncodeError(RULE, 'a predecessor or successor key equals the current key')
  return seq(
    encodeTaKey(spec.current),
    ...(spec.predecessor ? [explicit(0, encodeTaKey(spec.predecessor))] : []),
    ...(spec.successor ? [explicit(1, encodeTaKey(spec.successor))] : []),
  )
}

const INHERIT_ALL = { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' } as const

/** Build a TAK under the TA key `issuer` (whose key must be `spec.current`); its EE inherits IP and AS resources. */
export function buildTak(spec: TakSpec, eeKey: OneOffKey | SigningKey, issuer: ObjectIssuer, ee: ObjectEe): Uint8Array {
  if (!bytesEqual(issuer.key.spki, spec.current.spki)) throw new EncodeError(RULE, 'the current TAKey must be the key that signs the TAK')
  return buildSignedObject({ eContentType: oids.idCtSignedTal, eContent: encodeTakContent(spec), resources: INHERIT_ALL }, eeKey, issuer, ee)
}
