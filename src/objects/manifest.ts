/**
 * Manifests (RFC 9286): the list of a CA's current files with their SHA-256 hashes, signed under an EE certificate
 * that inherits the CA's resources and is valid thisUpdate..nextUpdate. Verbs: decodeManifest, inspectManifest,
 * verifyManifest, buildManifest, plus checkManifestHashes (files beside the manifest). Used by the CA (one manifest
 * per key, re-issued on schedule), the publication server (stats) and `svcc inspect`.
 */
import { bitString, EncodeError, generalizedTime, ia5String, int, oid, seq, seqOf } from '../asn1/der.js'
import {
  children, expectSequence, parseDer, readBigInt, readBitString, readOid, readStringOf, readTime,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { OneOffKey, SigningKey } from '../crypto/signer.js'
import { bytesEqual } from '../util/bytes.js'
import { VerificationError } from '../util/errors.js'
import { toHex } from '../util/hex.js'
import type { Cert, ResourceCert } from './cert.js'
import { note, type Problem, problem } from './problem.js'
import {
  buildSignedObject, decodeSignedObjectOf, inspectSignedObject, type ObjectEe, type ObjectIssuer, type SignedObject, readContentVersion,
  verifySignedObject,
} from './signed-object.js'
import { sha256 } from '../crypto/digest.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface FileAndHash {
  readonly file: string
  /** The hash BIT STRING octets (SHA-256: 32 octets). */
  readonly hash: Uint8Array
}

export interface Manifest {
  readonly signedObject: SignedObject
  readonly ee: Cert
  readonly version: number
  /** The version was written although it is the DEFAULT 0 (X.690 §11.5 forbids that). */
  readonly versionExplicit: boolean
  readonly manifestNumber: bigint
  readonly manifestNumberOctets: number
  readonly thisUpdate: Date
  readonly nextUpdate: Date
  /** Identifier octets of thisUpdate and nextUpdate (RFC 9286 §4.2.1: GeneralizedTime, 0x18). */
  readonly timeTags: readonly [number, number]
  readonly fileHashAlg: string
  readonly files: readonly FileAndHash[]
  /** Some hash BIT STRING has unused bits. */
  readonly hashUnusedBits: boolean
}

export interface ManifestSpec {
  /** 0 … 2^159-1, increasing with every manifest of the key (RFC 9286 §4.2.1). */
  manifestNumber: bigint
  thisUpdate: Date
  nextUpdate: Date
  /** The current files of the CA, the CRL among them; in this order. */
  files: readonly FileAndHash[]
}

/** The EE of a manifest: its validity is the manifest's thisUpdate..nextUpdate, so only these are given. */
export type ManifestEe = Omit<ObjectEe, 'notBefore' | 'notAfter'>

//------------ Decoding ------------------------------------------------------------------------------------------------

const RULE = 'RFC 9286 §4.2.1'

/** Decode a manifest (signed object with id-ct-rpkiManifest); syntax errors are DecodeErrors. */
export function decodeManifest(bytes: Uint8Array): Manifest {
  const so = decodeSignedObjectOf(bytes, oids.idCtRpkiManifest, 'id-ct-rpkiManifest', 'RFC 9286 §4.1')
  return { signedObject: so, ee: so.ee, ...readManifestContent(so.eContent) }
}

type Content = Omit<Manifest, 'signedObject' | 'ee'>

function readManifestContent(eContent: Uint8Array): Content {
  const c = expectSequence(parseDer(eContent), RULE, 'Manifest')
  const { version, explicit } = readContentVersion(c, RULE)
  const numberNode = c.next(RULE, 0x02, 'manifestNumber')
  const tu = c.next(RULE, undefined, 'thisUpdate')
  const nu = c.next(RULE, undefined, 'nextUpdate')
  const fileHashAlg = readOid(c.next(RULE, 0x06, 'fileHashAlg'), RULE)
  const list = c.next(RULE, 0x30, 'fileList')
  c.end(RULE)
  let hashUnusedBits = false
  const files = children(list).map((n) => {
    const fc = expectSequence(n, RULE, 'FileAndHash')
    const file = readStringOf(fc.next(RULE, 0x16, 'file'), 0x16, RULE)
    const hash = readBitString(fc.next(RULE, 0x03, 'hash'), RULE)
    fc.end(RULE)
    if (hash.unusedBits !== 0) hashUnusedBits = true
    return { file, hash: hash.bytes }
  })
  return {
    version, versionExplicit: explicit, manifestNumber: readBigInt(numberNode, RULE), manifestNumberOctets: numberNode.length,
    thisUpdate: readTime(tu, RULE), nextUpdate: readTime(nu, RULE), timeTags: [tu.tag, nu.tag], fileHashAlg, files, hashUnusedBits,
  }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

const FILE_NAME = /^[a-zA-Z0-9_-]+\.[a-z]{3}$/

/** RFC 9286 problems: the envelope and EE profile, the eContent fields, the file list and the EE's inherit. */
export function inspectManifest(m: Manifest): Problem[] {
  const out = inspectSignedObject(m.signedObject, oids.idCtRpkiManifest)
  if (m.version !== 0) out.push(problem(RULE, `version ${m.version}, expected 0`))
  else if (m.versionExplicit) out.push(problem('X.690 §11.5', 'version 0 is written although it is the DEFAULT'))
  if (m.manifestNumber < 0n) out.push(problem(RULE, 'manifestNumber is negative'))
  if (m.manifestNumberOctets > 20) out.push(problem(RULE, `manifestNumber of ${m.manifestNumberOctets} octets (at most 20)`))
  if (m.timeTags[0] !== 0x18 || m.timeTags[1] !== 0x18) out.push(problem(RULE, 'thisUpdate and nextUpdate must be GeneralizedTime'))
  if (m.nextUpdate <= m.thisUpdate) out.push(problem(RULE, 'nextUpdate is not after thisUpdate'))
  if (m.fileHashAlg !== oids.sha256) out.push(problem(RULE, `fileHashAlg ${oids.oidName(m.fileHashAlg)}, want sha256`))
  inspectFileList(m, out)
  inspectManifestEe(m, out)
  return out
}

function inspectFileList(m: Manifest, out: Problem[]): void {
  const names = new Set<string>()
  const hashes = new Set<string>()
  if (m.hashUnusedBits) out.push(problem(RULE, 'a file hash BIT STRING has unused bits'))
  for (const f of m.files) {
    if (f.hash.length !== 32) out.push(problem(RULE, `hash of ${f.file} is ${f.hash.length} octets, not a SHA-256`))
    // RFC 9286 §4.2.2: names are 1+ of [a-zA-Z0-9_-], a dot, and a three-letter lowercase extension.
    if (!FILE_NAME.test(f.file)) out.push(problem('RFC 9286 §4.2.2', `invalid file name ${JSON.stringify(f.file)}`))
    if (names.has(f.file)) out.push(problem('RFC 9286 §4.2.2', `duplicate file name ${f.file}`))
    const h = toHex(f.hash)
    if (hashes.has(h)) out.push(problem(RULE, `duplicate hash for ${f.file}`))
    names.add(f.file)
    hashes.add(h)
  }
  const crls = m.files.filter((f) => f.file.endsWith('.crl')).length
  if (crls !== 1) out.push(problem('RFC 9286 §5.1', `fileList holds ${crls} CRLs, expected the CA's CRL`))
}

function inspectManifestEe(m: Manifest, out: Problem[]): void {
  const { ip, as } = m.ee.extensions
  // RFC 9286 §5.1: the EE certificate uses inherit for the resources it names (rpki-client rejects anything else).
  const explicit = [ip?.ipv4, ip?.ipv6, as?.asn].some((x) => x !== undefined && x !== 'inherit')
  if (explicit) out.push(problem('RFC 9286 §5.1', 'the EE certificate must use inherit for its resources'))
  const sameWindow = m.ee.notBefore.getTime() === m.thisUpdate.getTime() && m.ee.notAfter.getTime() === m.nextUpdate.getTime()
  if (!sameWindow) out.push(note('RFC 9286 §5.1', 'EE validity differs from thisUpdate..nextUpdate'))
}

//------------ Verification --------------------------------------------------------------------------------------------

/** The envelope and EE against the CA (RFC 6488 §3), and the manifest is current: thisUpdate ≤ now ≤ nextUpdate. */
export function verifyManifest(m: Manifest, issuer: ResourceCert, now: Date): ResourceCert {
  const ee = verifySignedObject(m.signedObject, issuer, now)
  // RFC 9286 §6.3: a manifest before thisUpdate or after nextUpdate is not current.
  if (now < m.thisUpdate) throw new VerificationError('RFC 9286 §6.3', `manifest is not valid before ${m.thisUpdate.toISOString()}`)
  if (now > m.nextUpdate) throw new VerificationError('RFC 9286 §6.3', `manifest is stale since ${m.nextUpdate.toISOString()}`)
  return ee
}

/** RFC 9286 §6.4–6.5: every listed file is present (via `read`) and has the listed SHA-256 hash. */
export function checkManifestHashes(m: Manifest, read: (file: string) => Uint8Array | undefined): Problem[] {
  const out: Problem[] = []
  for (const f of m.files) {
    const bytes = read(f.file)
    if (bytes === undefined) out.push(problem('RFC 9286 §6.4', `${f.file} is listed but missing`))
    else if (!bytesEqual(fileHash(bytes), f.hash)) out.push(problem('RFC 9286 §6.5', `bad message digest for ${f.file}`))
  }
  return out
}

/** SHA-256 of a file's bytes, as a manifest lists it. */
export function fileHash(bytes: Uint8Array): Uint8Array {
  return sha256(bytes)
}

//------------ Building ------------------------------------------------------------------------------------------------

const SHA256_OID = oid(oids.sha256)

/** The Manifest eContent: version omitted, GeneralizedTimes, fileHashAlg as a bare OID (RFC 9286 §4.2.1). */
export function encodeManifestContent(spec: ManifestSpec): Uint8Array {
  if (spec.manifestNumber < 0n || spec.manifestNumber >= 1n << 159n) throw new EncodeError(RULE, 'manifestNumber must be 0 … 2^159-1')
  if (spec.nextUpdate <= spec.thisUpdate) throw new EncodeError(RULE, 'nextUpdate must be after thisUpdate')
  const names = new Set<string>()
  const list = spec.files.map((f) => {
    if (!FILE_NAME.test(f.file)) throw new EncodeError('RFC 9286 §4.2.2', `invalid file name ${JSON.stringify(f.file)}`)
    if (names.has(f.file)) throw new EncodeError('RFC 9286 §4.2.2', `duplicate file name ${f.file}`)
    if (f.hash.length !== 32) throw new EncodeError(RULE, `hash of ${f.file} is not 32 octets`)
    names.add(f.file)
    return seq(ia5String(f.file), bitString(f.hash))
  })
  return seq(int(spec.manifestNumber), generalizedTime(spec.thisUpdate), generalizedTime(spec.nextUpdate), SHA256_OID, seqOf(list))
}

/** Build a manifest: EE with inherit for IPv4, IPv6 and AS, valid exactly thisUpdate..nextUpdate (RFC 9286 §5.1). */
export function buildManifest(spec: ManifestSpec, eeKey: OneOffKey | SigningKey, issuer: ObjectIssuer, ee: ManifestEe): Uint8Array {
  const content = { eContentType: oids.idCtRpkiManifest, eContent: encodeManifestContent(spec), resources: INHERIT_ALL }
  return buildSignedObject(content, eeKey, issuer, { ...ee, notBefore: spec.thisUpdate, notAfter: spec.nextUpdate })
}

const INHERIT_ALL = { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' } as const
