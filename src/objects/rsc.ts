/**
 * RPKI Signed Checklists (RFC 9323): SHA-256 digests of arbitrary files, each optionally named, signed "with
 * resources" by a one-off EE certificate holding exactly the resources the checklist names. An RSC is handed to the
 * operator, never published: its EE certificate has no SIA (RFC 9323 §2; rpki-client refuses one that has).
 * Verbs: decodeRsc, inspectRsc, verifyRsc, buildRsc, and checkRscFiles (the digests against files at hand).
 * Used by the CA (app/ca/rsc-signing.ts) and `svcc inspect`.
 */
import { bitString, EncodeError, explicit, ia5String, int, octetString, seq, seqOf, x509Time } from '../asn1/der.js'
import {
  children, cursor, type DerNode, expectSequence, parseDer, readOctetString, readStringOf,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import { decodeAsIdentifiers, decodeIpAddrBlocks, encodeAsIdentifiers, encodeIpAddrBlocks } from '../asn1/rfc3779.js'
import type { SigningKey } from '../crypto/signer.js'
import { AsBlocks } from '../resources/asn.js'
import { IpBlocks } from '../resources/ip.js'
import { ResourceSet } from '../resources/resource-set.js'
import { toHex } from '../util/hex.js'
import { DecodeError, VerificationError } from '../util/errors.js'
import { rsyncUri } from '../util/uri.js'
import { ALG_SHA256, ALG_SHA256_WITH_RSA, type AlgorithmId, readAlgorithm } from './algorithm.js'
import type { Cert, ResourceCert } from './cert.js'
import {
  aiaExtension, akiExtension, asResourcesExtension, crldpExtension, EXT_KEY_USAGE_EE, EXT_RPKI_POLICY,
  ipResourcesExtension, skiExtension,
} from './cert-extensions.js'
import { encodeName, type NameSpec } from './distinguished-name.js'
import { note, type Problem, problem, problemFromText } from './problem.js'
import {
  decodeSignedObjectOf, encodeSignedData, readContentVersion, inspectSignedObject, type ObjectIssuer, type SignedObject, verifySignedObject,
} from './signed-object.js'
import { sha256Hex } from '../crypto/digest.js'

//------------ Types ---------------------------------------------------------------------------------------------------

/** One FileNameAndHash (RFC 9323 §4.4). */
export interface RscFile {
  readonly name?: string
  readonly hash: Uint8Array
}

/** A decoded RSC: syntax checked; profile by inspectRsc, signature and chain by verifyRsc. */
export interface Rsc {
  readonly signedObject: SignedObject
  readonly ee: Cert
  readonly version: number
  /** The version was written out ([0] present); DER leaves the DEFAULT 0 out. */
  readonly versionEncoded: boolean
  /** The ResourceBlock, canonical (asID and ipAddrBlocks absent: empty). */
  readonly resources: ResourceSet
  /** Non-canonical or forbidden forms found while decoding the ResourceBlock, as '<rule>: <what>' texts. */
  readonly resourceProblems: readonly string[]
  readonly digestAlgorithm: AlgorithmId
  readonly files: readonly RscFile[]
}

/** What buildRsc signs: the resources (the EE certificate holds exactly these) and the files' digests. */
export interface RscSpec {
  resources: ResourceSet
  files: readonly RscFile[]
}

/** The one-off EE certificate of an RSC: no SIA, so no URI (RFC 9323 §2). */
export interface RscEe {
  serial: bigint
  notBefore: Date
  notAfter: Date
  /** The CMS signing-time (RFC 9589): the moment of signing. */
  signingTime: Date
  /** Default: the EE key identifier in hex, as for every other EE certificate. */
  subjectName?: NameSpec
}

/** RFC 9323 §4.4: PortableFilename, IA5String of a-z, A-Z, 0-9, '.', '_' and '-'. */
export const PORTABLE_FILENAME = /^[a-zA-Z0-9._-]+$/
const SHA256_LENGTH = 32

//------------ Decoding ------------------------------------------------------------------------------------------------

/** Decode an RSC (signed object with id-ct-signedChecklist). */
export function decodeRsc(bytes: Uint8Array): Rsc {
  const so = decodeSignedObjectOf(bytes, oids.idCtSignedChecklist, 'id-ct-signedChecklist', 'RFC 9323 §3')
  return { signedObject: so, ee: so.ee, ...readChecklist(so.eContent) }
}

function readChecklist(eContent: Uint8Array): Omit<Rsc, 'signedObject' | 'ee'> {
  const rule = 'RFC 9323 §4'
  const c = expectSequence(parseDer(eContent), rule, 'RpkiSignedChecklist')
  const { version, explicit } = readContentVersion(c, 'RFC 9323 §4.1')
  const block = readResourceBlock(c.next('RFC 9323 §4.2', 0x30, 'resources'))
  const digestAlgorithm = readAlgorithm(c.next('RFC 9323 §4.3', 0x30, 'digestAlgorithm'), 'RFC 9323 §4.3', 'digestAlgorithm')
  const files = children(c.next('RFC 9323 §4.4', 0x30, 'checkList')).map(readFileAndHash)
  c.end(rule)
  return { version, versionEncoded: explicit, ...block, digestAlgorithm, files }
}

/** ResourceBlock: asID [0] ConstrainedASIdentifiers, ipAddrBlocks [1] ConstrainedIPAddrBlocks; no inherit anywhere. */
function readResourceBlock(node: DerNode): { resources: ResourceSet; resourceProblems: string[] } {
  const rule = 'RFC 9323 §4.2'
  const c = expectSequence(node, rule, 'ResourceBlock')
  const asId = c.optional(0xa0)
  const ip = c.optional(0xa1)
  c.end(rule)
  const problems: string[] = []
  let asn = AsBlocks.empty()
  let ipv4 = IpBlocks.empty(4)
  let ipv6 = IpBlocks.empty(6)
  if (asId !== undefined) {
    const d = decodeAsIdentifiers(inner(asId, rule, 'asID'))
    if (d.asn === 'inherit') throw new DecodeError(rule, 'asID: ConstrainedASIdentifiers has no inherit')
    problems.push(...d.problems)
    if (d.asn !== undefined) asn = d.asn
  }
  if (ip !== undefined) {
    const d = decodeIpAddrBlocks(inner(ip, rule, 'ipAddrBlocks'))
    if (d.ipv4 === 'inherit' || d.ipv6 === 'inherit') throw new DecodeError(rule, 'ipAddrBlocks: ConstrainedIPAddrBlocks has no inherit')
    problems.push(...d.problems)
    if (d.ipv4 !== undefined) ipv4 = d.ipv4
    if (d.ipv6 !== undefined) ipv6 = d.ipv6
  }
  if (asId === undefined && ip === undefined) problems.push(`${rule}: one of asID or ipAddrBlocks must be present`)
  return { resources: new ResourceSet(asn, ipv4, ipv6), resourceProblems: problems }
}

/** The DER of the one element inside an [n] EXPLICIT wrapper. */
function inner(wrapper: DerNode, rule: string, what: string): Uint8Array {
  const w = cursor(wrapper)
  const n = w.next(rule, 0x30, what)
  w.end(rule)
  return n.raw()
}

function readFileAndHash(node: DerNode): RscFile {
  const rule = 'RFC 9323 §4.4'
  const c = expectSequence(node, rule, 'FileNameAndHash')
  const n = c.optional(0x16)
  const hash = readOctetString(c.next(rule, 0x04, 'hash'), rule)
  c.end(rule)
  return n === undefined ? { hash } : { name: readStringOf(n, 0x16, rule), hash }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** Profile problems: the envelope and an EE certificate without SIA or inherit, version 0, SHA-256, the checklist. */
export function inspectRsc(r: Rsc): Problem[] {
  // RFC 9323 §2 takes the EE certificate's SIA away, so RFC 6487 §4.8.8.2's "SIA is missing" does not apply.
  const out = inspectSignedObject(r.signedObject, oids.idCtSignedChecklist).filter((p) => !(p.rule === 'RFC 6487 §4.8.8.2' && p.message === 'EE certificate: subjectInfoAccess is missing'))
  const x = r.ee.extensions
  if (x.sia !== undefined) out.push(problem('RFC 9323 §2', 'the EE certificate has an SIA extension'))
  if (x.ip?.ipv4 === 'inherit' || x.ip?.ipv6 === 'inherit' || x.as?.asn === 'inherit') out.push(problem('RFC 9323 §2', 'inherit elements not allowed in the EE certificate'))
  // RFC 9323 §4.1: version is 0, and DER leaves a DEFAULT value out (X.690 §11.5).
  if (r.version !== 0) out.push(problem('RFC 9323 §4.1', `version ${r.version}, expected 0`))
  else if (r.versionEncoded) out.push(problem('RFC 9323 §4.1', 'version 0 is encoded (DER omits the DEFAULT)'))
  for (const p of r.resourceProblems) out.push(problemFromText(p))
  // RFC 9323 §4.3: SHA-256 (RFC 7935), parameters absent as rpki-client requires.
  if (r.digestAlgorithm.oid !== oids.sha256) out.push(problem('RFC 9323 §4.3', `digest algorithm ${oids.oidName(r.digestAlgorithm.oid)}, expected sha256`))
  else if (r.digestAlgorithm.params !== 'absent') out.push(problem('RFC 9323 §4.3', 'sha256 with parameters'))
  inspectCheckList(r.files, out)
  const held = eeResources(r.ee)
  if (held !== undefined && !held.contains(r.resources)) out.push(problem('RFC 9323 §5', `resources ${describe(r.resources.difference(held))} of the checklist are not held by the EE certificate`))
  return out
}

function inspectCheckList(files: readonly RscFile[], out: Problem[]): void {
  const rule = 'RFC 9323 §4.4'
  if (files.length === 0) out.push(problem(rule, 'the checkList is empty'))
  for (const [i, f] of files.entries()) {
    const which = f.name === undefined ? `entry ${i + 1}` : JSON.stringify(f.name)
    if (f.hash.length !== SHA256_LENGTH) out.push(problem(rule, `${which}: a SHA-256 digest has 32 octets, not ${f.hash.length}`))
    if (f.name !== undefined && !PORTABLE_FILENAME.test(f.name)) out.push(problem(rule, `${which}: not a PortableFilename (a-z, A-Z, 0-9, '.', '_', '-')`))
  }
}

/** The EE certificate's explicit resources, or undefined when it inherits (inspectRsc reports that). */
function eeResources(ee: Cert): ResourceSet | undefined {
  const { ip, as } = ee.extensions
  if (ip?.ipv4 === 'inherit' || ip?.ipv6 === 'inherit' || as?.asn === 'inherit') return undefined
  return new ResourceSet(as?.asn ?? AsBlocks.empty(), ip?.ipv4 ?? IpBlocks.empty(4), ip?.ipv6 ?? IpBlocks.empty(6))
}

/** 'asn: AS65000, ipv4: 10.0.0.0/8' (the families that are not empty). */
export function describe(r: ResourceSet): string {
  const t = r.toJSON()
  return [t.asn && `asn: ${t.asn}`, t.ipv4 && `ipv4: ${t.ipv4}`, t.ipv6 && `ipv6: ${t.ipv6}`].filter(Boolean).join(', ') || 'none'
}

//------------ Verification --------------------------------------------------------------------------------------------

/** RFC 9323 §5: the envelope and EE against the CA (RFC 6488 §3), and the ResourceBlock within the EE's resources. */
export function verifyRsc(r: Rsc, issuer: ResourceCert, now: Date): ResourceCert {
  const ee = verifySignedObject(r.signedObject, issuer, now)
  if (!ee.resources.contains(r.resources)) throw new VerificationError('RFC 9323 §5', `resources ${describe(r.resources.difference(ee.resources))} are not held by the EE certificate`)
  return ee
}

/** How one checklist entry compares with the file of its name: 'unnamed' entries cannot be looked up. */
export interface RscFileCheck {
  readonly name?: string
  readonly hash: string
  readonly state: 'match' | 'mismatch' | 'missing' | 'unnamed'
}

/** RFC 9323 §5 (last step): the SHA-256 of each named file that `read` finds against its listed digest. */
export function checkRscFiles(r: Rsc, read: (name: string) => Uint8Array | undefined): RscFileCheck[] {
  return r.files.map((f) => {
    const hash = toHex(f.hash)
    if (f.name === undefined) return { hash, state: 'unnamed' }
    const bytes = PORTABLE_FILENAME.test(f.name) && f.name !== '.' && f.name !== '..' ? read(f.name) : undefined
    if (bytes === undefined) return { name: f.name, hash, state: 'missing' }
    return { name: f.name, hash, state: sha256Hex(bytes) === hash ? 'match' : 'mismatch' }
  })
}

/** The file checks as problems: a mismatch or a missing file is an error, an unnamed entry a note. */
export function rscFileProblems(checks: readonly RscFileCheck[]): Problem[] {
  const rule = 'RFC 9323 §5'
  return checks.flatMap((c) => {
    if (c.state === 'mismatch') return [problem(rule, `${c.name}: the SHA-256 of the file differs from the checklist`)]
    if (c.state === 'missing') return [problem(rule, `${c.name}: no such file to check`)]
    if (c.state === 'unnamed') return [note(rule, `an entry without a file name (${c.hash}) is not checked`)]
    return []
  })
}

//------------ Building ------------------------------------------------------------------------------------------------

/** The RpkiSignedChecklist eContent: version left out (DEFAULT 0), resources, sha256, checkList. */
export function encodeRscContent(spec: RscSpec): Uint8Array {
  if (spec.files.length === 0) throw new EncodeError('RFC 9323 §4.4', 'a checklist needs at least one file')
  const list = spec.files.map((f) => {
    if (f.hash.length !== SHA256_LENGTH) throw new EncodeError('RFC 9323 §4.4', `a SHA-256 digest has 32 octets, not ${f.hash.length}`)
    if (f.name === undefined) return seq(octetString(f.hash))
    if (!PORTABLE_FILENAME.test(f.name)) throw new EncodeError('RFC 9323 §4.4', `${JSON.stringify(f.name)} is not a PortableFilename (a-z, A-Z, 0-9, '.', '_', '-')`)
    return seq(ia5String(f.name), octetString(f.hash))
  })
  return seq(encodeResourceBlock(spec.resources), ALG_SHA256, seqOf(list))
}

/** ResourceBlock with the RFC 3779 canonical encodings: the constrained types have the same shape without inherit. */
function encodeResourceBlock(r: ResourceSet): Uint8Array {
  if (r.isEmpty()) throw new EncodeError('RFC 9323 §4.2', 'a checklist needs resources')
  const parts: Uint8Array[] = []
  if (!r.asn.isEmpty()) parts.push(explicit(0, encodeAsIdentifiers(r.asn)))
  if (!r.ipv4.isEmpty() || !r.ipv6.isEmpty()) parts.push(explicit(1, encodeIpAddrBlocks({ ipv4: r.ipv4, ipv6: r.ipv6 })))
  return seq(...parts)
}

/**
 * The RSC's EE certificate (RFC 6487 §4 with RFC 9323 §2): SKI, AKI, keyUsage digitalSignature, CRLDP, AIA, the RPKI
 * policy and exactly the checklist's resources; no SIA (the RSC is not published) and no inherit.
 */
export function buildRscEeCert(resources: ResourceSet, eeKey: SigningKey, issuer: ObjectIssuer, ee: RscEe): Uint8Array {
  if (ee.serial <= 0n || ee.serial >= 1n << 159n) throw new EncodeError('RFC 6487 §4.2', 'serial number out of range')
  if (!(ee.notBefore.getTime() <= ee.notAfter.getTime())) throw new EncodeError('RFC 5280 §4.1.2.5', 'notBefore is after notAfter')
  const extensions = [
    skiExtension(eeKey.ski), akiExtension(issuer.key.ski), EXT_KEY_USAGE_EE, crldpExtension(rsyncUri(issuer.crlUri)),
    aiaExtension(rsyncUri(issuer.certUri)), EXT_RPKI_POLICY,
  ]
  if (!resources.ipv4.isEmpty() || !resources.ipv6.isEmpty()) extensions.push(ipResourcesExtension({ ipv4: resources.ipv4, ipv6: resources.ipv6 }))
  if (!resources.asn.isEmpty()) extensions.push(asResourcesExtension(resources.asn))
  const tbs = seq(
    explicit(0, int(2)), int(ee.serial), ALG_SHA256_WITH_RSA, encodeName(issuer.name),
    seq(x509Time(ee.notBefore), x509Time(ee.notAfter)), encodeName(ee.subjectName ?? eeKey.keyId), eeKey.spki,
    explicit(3, seq(...extensions)),
  )
  return seq(tbs, ALG_SHA256_WITH_RSA, bitString(issuer.key.sign(tbs)))
}

/** Build and sign an RSC with the one-off `eeKey`, whose certificate holds exactly `spec.resources`. */
export function buildRsc(spec: RscSpec, eeKey: SigningKey, issuer: ObjectIssuer, ee: RscEe): Uint8Array {
  const eContent = encodeRscContent(spec)
  const eeCert = buildRscEeCert(spec.resources, eeKey, issuer, ee)
  return encodeSignedData(oids.idCtSignedChecklist, eContent, eeCert, eeKey, ee.signingTime)
}
