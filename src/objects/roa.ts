/**
 * Route Origin Authorizations (RFC 9582): one AS and the prefixes it may originate, in the canonical form of
 * §4.3.3 (IPv4 before IPv6, sorted, deduplicated, maxLength only when longer than the prefix), under an EE
 * certificate with exactly the ROA's prefixes as explicit IP resources and no AS resources. Verbs: decodeRoa,
 * inspectRoa, verifyRoa, buildRoa. Used by the CA (ca/roas.ts → objects) and `svcc inspect`.
 */
import { bitString, EncodeError, int, octetString, seq, seqOf } from '../asn1/der.js'
import {
  children, type DerNode, expectSequence, parseDer, readBitString, readInt, readOctetString, readUint32,
} from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { SigningKey } from '../crypto/signer.js'
import { ASN_MAX } from '../resources/asn.js'
import { formatPrefix, IpBlocks, type IpFamily, type IpPrefix } from '../resources/ip.js'
import { checkMaxLength, compareRoaPayloads, type RoaPayload } from '../resources/roa-payload.js'
import { DecodeError, VerificationError } from '../util/errors.js'
import type { Cert, ResourceCert } from './cert.js'
import { note, type Problem, problem } from './problem.js'
import {
  buildSignedObject, decodeSignedObjectOf, inspectSignedObject, type ObjectEe, type ObjectIssuer, type SignedObject, readContentVersion,
  verifySignedObject,
} from './signed-object.js'

//------------ Types ---------------------------------------------------------------------------------------------------

/** One ROAIPAddress as encoded: `maxLength` is undefined when it was left out (it then equals the prefix length). */
export interface RoaIpAddress {
  readonly prefix: IpPrefix
  readonly maxLength?: number
}

export interface RoaFamily {
  /** The addressFamily value (1 IPv4, 2 IPv6, anything else is reported by inspectRoa). */
  readonly afi: number
  /** The addressFamily's length in octets (RFC 9582 §4.3.1: 2). */
  readonly afiOctets: number
  /** The addresses (not decoded for an unknown family; see `count`). */
  readonly addresses: readonly RoaIpAddress[]
  readonly count: number
}

export interface Roa {
  readonly signedObject: SignedObject
  readonly ee: Cert
  readonly version: number
  readonly versionExplicit: boolean
  readonly asn: number
  readonly families: readonly RoaFamily[]
  /** Every authorisation (IPv4 and IPv6 families) with an explicit max length, in encoded order. */
  readonly payloads: readonly RoaPayload[]
}

export interface RoaSpec {
  asn: number
  /** Any order, duplicates allowed: buildRoa writes the canonical form. An absent maxLength is the prefix length. */
  prefixes: readonly { prefix: IpPrefix; maxLength?: number }[]
}

//------------ Decoding ------------------------------------------------------------------------------------------------

const RULE = 'RFC 9582 §4'

/** Decode a ROA (signed object with id-ct-routeOriginAuthz). */
export function decodeRoa(bytes: Uint8Array): Roa {
  const so = decodeSignedObjectOf(bytes, oids.idCtRouteOriginAuthz, 'id-ct-routeOriginAuthz', 'RFC 9582 §3')
  return { signedObject: so, ee: so.ee, ...readRoaContent(so.eContent) }
}

function readRoaContent(eContent: Uint8Array): Omit<Roa, 'signedObject' | 'ee'> {
  const c = expectSequence(parseDer(eContent), RULE, 'RouteOriginAttestation')
  const { version, explicit } = readContentVersion(c, 'RFC 9582 §4.1')
  const asn = readUint32(c.next('RFC 9582 §4.2', 0x02, 'asID'), 'RFC 9582 §4.2')
  const blocks = c.next('RFC 9582 §4.3', 0x30, 'ipAddrBlocks')
  c.end(RULE)
  const families = children(blocks).map(readFamily)
  const payloads: RoaPayload[] = []
  for (const f of families) for (const a of f.addresses) payloads.push({ asn, prefix: a.prefix, maxLength: a.maxLength ?? a.prefix.len })
  return { version, versionExplicit: explicit, asn, families, payloads }
}

function readFamily(node: DerNode): RoaFamily {
  const rule = 'RFC 9582 §4.3.1'
  const c = expectSequence(node, rule, 'ROAIPAddressFamily')
  const afiOctets = readOctetString(c.next(rule, 0x04, 'addressFamily'), rule)
  const list = children(c.next(rule, 0x30, 'addresses'))
  c.end(rule)
  const afi = afiOctets.length >= 2 ? afiOctets[0] * 256 + afiOctets[1] : -1
  const family: IpFamily | undefined = afi === 1 ? 4 : afi === 2 ? 6 : undefined
  const addresses = family === undefined ? [] : list.map((n) => readAddress(n, family))
  return { afi, afiOctets: afiOctets.length, addresses, count: list.length }
}

function readAddress(node: DerNode, family: IpFamily): RoaIpAddress {
  const rule = 'RFC 9582 §4.3.2'
  const c = expectSequence(node, rule, 'ROAIPAddress')
  const prefix = readPrefix(c.next('RFC 9582 §4.3.2.1', 0x03, 'address'), family)
  const m = c.optional(0x02)
  c.end(rule)
  return m === undefined ? { prefix } : { prefix, maxLength: readInt(m, 'RFC 9582 §4.3.2.2') }
}

/** A prefix from its BIT STRING (RFC 3779 §2.2.3.8: the prefix bits, pad bits zero). */
function readPrefix(node: DerNode, family: IpFamily): IpPrefix {
  const { bytes, unusedBits } = readBitString(node, 'RFC 9582 §4.3.2.1')
  const len = bytes.length * 8 - unusedBits
  const bits = family === 4 ? 32 : 128
  if (len > bits) throw new DecodeError('RFC 9582 §4.3.2.1', `address of ${len} bits in an IPv${family} family`)
  let addr: bigint
  if (family === 4) {
    let n = 0
    for (let i = 0; i < 4; i++) n = n * 256 + (i < bytes.length ? bytes[i] : 0)
    addr = BigInt(n)
  } else {
    addr = 0n
    for (let w = 0; w < 4; w++) {
      let n = 0
      for (let i = 4 * w; i < 4 * w + 4; i++) n = n * 256 + (i < bytes.length ? bytes[i] : 0)
      addr = (addr << 32n) | BigInt(n)
    }
  }
  return { family, addr, len }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** RFC 9582 problems: envelope and EE profile, the eContent, the canonical form, the EE's resources. */
export function inspectRoa(roa: Roa): Problem[] {
  const out = inspectSignedObject(roa.signedObject, oids.idCtRouteOriginAuthz)
  if (roa.version !== 0) out.push(problem('RFC 9582 §4.1', `version ${roa.version}, expected 0`))
  else if (roa.versionExplicit) out.push(problem('X.690 §11.5', 'version 0 is written although it is the DEFAULT'))
  inspectFamilies(roa, out)
  for (const p of roa.payloads) {
    const why = checkMaxLength(p)
    if (why !== undefined) out.push(problem('RFC 9582 §4.3.2.2', why))
  }
  inspectCanonicalForm(roa, out)
  inspectRoaEe(roa, out)
  return out
}

function inspectFamilies(roa: Roa, out: Problem[]): void {
  const rule = 'RFC 9582 §4.3.1'
  if (roa.families.length < 1 || roa.families.length > 2) {
    out.push(problem('RFC 9582 §4.3', `unexpected number of ipAddrBlocks (got ${roa.families.length}, expected 1 or 2)`))
  }
  const seen = new Set<number>()
  for (const f of roa.families) {
    if ((f.afi !== 1 && f.afi !== 2) || f.afiOctets !== 2) out.push(problem('RFC 9582 §4.3', 'addressFamily: invalid'))
    else if (seen.has(f.afi)) out.push(problem(rule, `IPv${f.afi === 1 ? 4 : 6} appears twice`))
    if (f.count === 0) out.push(problem(rule, 'empty ROAIPAddressFamily'))
    seen.add(f.afi)
  }
}

/** RFC 9582 §4.3.3 (SHOULD, and RPs may become strict): IPv4 first, sorted, unique, maxLength only when longer. */
function inspectCanonicalForm(roa: Roa, out: Problem[]): void {
  const rule = 'RFC 9582 §4.3.3'
  const afis = roa.families.map((f) => f.afi)
  if (afis.length === 2 && afis[0] > afis[1]) out.push(note(rule, 'IPv6 family before IPv4'))
  for (const f of roa.families) {
    const sorted = f.addresses.every((a, i) => i === 0 || compareAddresses(f.addresses[i - 1], a) < 0)
    if (!sorted) out.push(note(rule, `IPv${f.afi === 1 ? 4 : 6} addresses are not sorted and unique`))
    if (f.addresses.some((a) => a.maxLength === a.prefix.len)) out.push(note(rule, 'maxLength equal to the prefix length is encoded'))
  }
}

function compareAddresses(a: RoaIpAddress, b: RoaIpAddress): number {
  return compareRoaPayloads({ asn: 0, prefix: a.prefix, maxLength: a.maxLength ?? a.prefix.len }, { asn: 0, prefix: b.prefix, maxLength: b.maxLength ?? b.prefix.len })
}

function inspectRoaEe(roa: Roa, out: Problem[]): void {
  const { ip, as } = roa.ee.extensions
  // RFC 9582 §5: the EE carries the IP resources extension, without inherit. AS resources are superfluous: current
  // rpki-client rejects them, but RFC 6482-era objects (the BBN conformance suite's good ROAs) carry them; we build none.
  if (as !== undefined) out.push(note('RFC 9582 §5', 'superfluous AS Resources extension present'))
  if (ip === undefined) {
    out.push(problem('RFC 9582 §5', 'no IP address present'))
    return
  }
  if (ip.ipv4 === 'inherit' || ip.ipv6 === 'inherit') {
    out.push(problem('RFC 9582 §5', 'inherit elements not allowed in EE cert'))
    return
  }
  for (const p of roa.payloads) {
    const held = p.prefix.family === 4 ? ip.ipv4 : ip.ipv6
    if (!(held instanceof IpBlocks) || !held.containsPrefix(p.prefix)) {
      out.push(problem('RFC 9582 §5', `${formatPrefix(p.prefix)} is not covered by the EE certificate`))
    }
  }
}

//------------ Verification --------------------------------------------------------------------------------------------

/** The envelope and EE against the CA (RFC 6488 §3) and every prefix within the EE's resources (RFC 9582 §5). */
export function verifyRoa(roa: Roa, issuer: ResourceCert, now: Date): ResourceCert {
  const ee = verifySignedObject(roa.signedObject, issuer, now)
  for (const p of roa.payloads) {
    const held = p.prefix.family === 4 ? ee.resources.ipv4 : ee.resources.ipv6
    if (!held.containsPrefix(p.prefix)) throw new VerificationError('RFC 9582 §5', `${formatPrefix(p.prefix)} is not covered by the EE certificate`)
  }
  return ee
}

//------------ Building ------------------------------------------------------------------------------------------------

const AFI = { 4: octetString(Uint8Array.of(0, 1)), 6: octetString(Uint8Array.of(0, 2)) }

/** The canonical payloads of a spec (RFC 9582 §4.3.3): checked, explicit max length, sorted, deduplicated. */
export function canonicalRoaPayloads(spec: RoaSpec): RoaPayload[] {
  if (!Number.isInteger(spec.asn) || spec.asn < 0 || spec.asn > ASN_MAX) throw new EncodeError('RFC 9582 §4.2', `AS ${spec.asn} is not an AS number`)
  const all = spec.prefixes.map((p) => ({ asn: spec.asn, prefix: p.prefix, maxLength: p.maxLength ?? p.prefix.len }))
  for (const p of all) {
    const why = checkMaxLength(p)
    if (why !== undefined) throw new EncodeError('RFC 9582 §4.3.2.2', why)
  }
  all.sort(compareRoaPayloads)
  const out = all.filter((p, i) => i === 0 || compareRoaPayloads(all[i - 1], p) !== 0)
  if (out.length === 0) throw new EncodeError('RFC 9582 §4.3', 'a ROA needs at least one prefix')
  return out
}

/** The RouteOriginAttestation eContent of canonical payloads: version omitted, IPv4 family first. */
export function encodeRoaContent(payloads: readonly RoaPayload[]): Uint8Array {
  const families: Uint8Array[] = []
  for (const family of [4, 6] as const) {
    const items = payloads.filter((p) => p.prefix.family === family).map((p) => {
      const address = prefixBits(p.prefix)
      return p.maxLength > p.prefix.len ? seq(address, int(p.maxLength)) : seq(address)
    })
    if (items.length > 0) families.push(seq(AFI[family], seqOf(items)))
  }
  return seq(int(payloads[0].asn), seqOf(families))
}

/** The prefix as a BIT STRING of exactly its length (RFC 3779 §2.2.3.8). */
function prefixBits(p: IpPrefix): Uint8Array {
  const n = (p.len + 7) >> 3
  const out = new Uint8Array(n)
  const hex = p.addr.toString(16).padStart(p.family === 4 ? 8 : 32, '0')
  for (let i = 0; i < n; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16)
  return bitString(out, n * 8 - p.len)
}

/** Build a ROA; its EE certificate holds exactly the ROA's prefixes as explicit IP resources and no AS resources. */
export function buildRoa(spec: RoaSpec, eeKey: SigningKey, issuer: ObjectIssuer, ee: ObjectEe): Uint8Array {
  const payloads = canonicalRoaPayloads(spec)
  const prefixes = (f: IpFamily) => payloads.filter((p) => p.prefix.family === f).map((p) => p.prefix)
  const v4 = IpBlocks.fromPrefixes(4, prefixes(4))
  const v6 = IpBlocks.fromPrefixes(6, prefixes(6))
  const resources = { ipv4: v4.isEmpty() ? undefined : v4, ipv6: v6.isEmpty() ? undefined : v6 }
  return buildSignedObject({ eContentType: oids.idCtRouteOriginAuthz, eContent: encodeRoaContent(payloads), resources }, eeKey, issuer, ee)
}
