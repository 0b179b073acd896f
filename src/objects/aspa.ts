/**
 * Autonomous System Provider Authorizations in the current profile (draft-ietf-sidrops-aspa-profile: version [0]
 * EXPLICIT 1, customerASID, providers as plain ASIDs in ascending order). Older draft encodings (no version,
 * ProviderAS SEQUENCEs with an afiLimit) fail to decode with a message that says so. The EE certificate carries AS
 * resources only. Verbs: decodeAspa, inspectAspa, verifyAspa, buildAspa. Used by the CA and `svcc inspect`.
 */
import { EncodeError, explicit, int, seq, seqOf } from '../asn1/der.js'
import { children, cursor, expectSequence, parseDer, readInt, readUint32 } from '../asn1/der-reader.js'
import * as oids from '../asn1/oids.js'
import type { SigningKey } from '../crypto/signer.js'
import { AsBlocks, ASN_MAX } from '../resources/asn.js'
import { DecodeError, VerificationError } from '../util/errors.js'
import type { Cert, ResourceCert } from './cert.js'
import { type Problem, problem } from './problem.js'
import {
  buildSignedObject, decodeSignedObjectOf, inspectSignedObject, type ObjectEe, type ObjectIssuer, type SignedObject,
  verifySignedObject,
} from './signed-object.js'

//------------ Types ---------------------------------------------------------------------------------------------------

export interface Aspa {
  readonly signedObject: SignedObject
  readonly ee: Cert
  readonly version: number
  readonly customer: number
  /** In encoded order (the profile wants them ascending and unique). */
  readonly providers: readonly number[]
}

export interface AspaSpec {
  customer: number
  /** Any order; buildAspa sorts and deduplicates them. The customer itself is not allowed. */
  providers: readonly number[]
}

const PROFILE = 'draft-ietf-sidrops-aspa-profile'

//------------ Decoding ------------------------------------------------------------------------------------------------

/** Decode an ASPA (signed object with id-ct-ASPA) in the current profile. */
export function decodeAspa(bytes: Uint8Array): Aspa {
  const so = decodeSignedObjectOf(bytes, oids.idCtAspa, 'id-ct-ASPA', `${PROFILE} §2`)
  return { signedObject: so, ee: so.ee, ...readAspaContent(so.eContent) }
}

const LEGACY = 'legacy ASPA from an older draft (no version 1; providers as SEQUENCE { providerASID, afiLimit }); only the current profile is supported'

function readAspaContent(eContent: Uint8Array): { version: number; customer: number; providers: number[] } {
  const rule = `${PROFILE} §3`
  const c = expectSequence(parseDer(eContent), rule, 'ASProviderAttestation')
  const v = c.optional(0xa0)
  if (v === undefined) throw new DecodeError(rule, LEGACY)
  const vc = cursor(v)
  const version = readInt(vc.next(`${PROFILE} §3.1`, 0x02, 'version'), `${PROFILE} §3.1`)
  vc.end(`${PROFILE} §3.1`)
  const customer = readUint32(c.next(`${PROFILE} §3.2`, 0x02, 'customerASID'), `${PROFILE} §3.2`)
  const list = children(c.next(`${PROFILE} §3.3`, 0x30, 'providers'))
  c.end(rule)
  if (list.some((n) => n.tag === 0x30)) throw new DecodeError(`${PROFILE} §3.3`, LEGACY)
  return { version, customer, providers: list.map((n) => readUint32(n, `${PROFILE} §3.3`)) }
}

//------------ Inspection ----------------------------------------------------------------------------------------------

/** Profile problems: envelope and EE, version 1, providers ascending and unique without the customer, EE AS only. */
export function inspectAspa(a: Aspa): Problem[] {
  const out = inspectSignedObject(a.signedObject, oids.idCtAspa)
  if (a.version !== 1) out.push(problem(`${PROFILE} §3.1`, `version ${a.version}, expected 1`))
  const rule = `${PROFILE} §3.3`
  if (a.providers.length === 0) out.push(problem(rule, 'the provider set is empty'))
  if (a.providers.some((p, i) => i > 0 && a.providers[i - 1] >= p)) out.push(problem(rule, 'providers are not in ascending order without duplicates'))
  if (a.providers.includes(a.customer)) out.push(problem(rule, `the customer AS${a.customer} is listed as its own provider`))
  // AS0 says "no provider at all": it stands alone (draft-ietf-sidrops-aspa-profile-22 §3.3).
  if (a.providers.includes(0) && a.providers.length > 1) out.push(problem(rule, 'AS0 is listed together with other providers'))
  const { ip, as } = a.ee.extensions
  const eeRule = `${PROFILE} §4`
  if (ip !== undefined) out.push(problem(eeRule, 'the EE certificate has IP resources'))
  if (as === undefined) out.push(problem(eeRule, 'the EE certificate has no AS resources'))
  else if (as.asn === 'inherit') out.push(problem(eeRule, 'inherit elements not allowed in EE cert'))
  else if (as.asn !== undefined && !as.asn.containsAsn(a.customer)) out.push(problem(eeRule, `the EE certificate does not hold AS${a.customer}`))
  return out
}

//------------ Verification --------------------------------------------------------------------------------------------

/** The envelope and EE against the CA (RFC 6488 §3) and the customer AS within the EE's resources. */
export function verifyAspa(a: Aspa, issuer: ResourceCert, now: Date): ResourceCert {
  const ee = verifySignedObject(a.signedObject, issuer, now)
  if (!ee.resources.asn.containsAsn(a.customer)) throw new VerificationError(`${PROFILE} §4`, `AS${a.customer} is not held by the EE certificate`)
  return ee
}

//------------ Building ------------------------------------------------------------------------------------------------

const VERSION_1 = explicit(0, int(1))

/** The providers of a spec, checked, ascending and unique. */
export function canonicalProviders(spec: AspaSpec): number[] {
  const isAsn = (x: number): boolean => Number.isInteger(x) && x >= 0 && x <= ASN_MAX
  if (!isAsn(spec.customer)) throw new EncodeError(`${PROFILE} §3.2`, `customer ${spec.customer} is not an AS number`)
  for (const p of spec.providers) if (!isAsn(p)) throw new EncodeError(`${PROFILE} §3.3`, `provider ${p} is not an AS number`)
  const providers = [...new Set(spec.providers)].sort((x, y) => x - y)
  if (providers.length === 0) throw new EncodeError(`${PROFILE} §3.3`, 'an ASPA needs at least one provider')
  if (providers.includes(spec.customer)) throw new EncodeError(`${PROFILE} §3.3`, `the customer AS${spec.customer} cannot be its own provider`)
  if (providers.includes(0) && providers.length > 1) throw new EncodeError(`${PROFILE} §3.3`, 'AS0 (no provider) can only be the sole provider')
  return providers
}

/** The ASProviderAttestation eContent: version [0] 1, customer, providers. */
export function encodeAspaContent(spec: AspaSpec): Uint8Array {
  return seq(VERSION_1, int(spec.customer), seqOf(canonicalProviders(spec).map((p) => int(p))))
}

/** Build an ASPA; its EE certificate holds exactly the customer AS and no IP resources. */
export function buildAspa(spec: AspaSpec, eeKey: SigningKey, issuer: ObjectIssuer, ee: ObjectEe): Uint8Array {
  const eContent = encodeAspaContent(spec)
  const resources = { asn: AsBlocks.fromRanges([{ min: spec.customer, max: spec.customer }]) }
  return buildSignedObject({ eContentType: oids.idCtAspa, eContent, resources }, eeKey, issuer, ee)
}
