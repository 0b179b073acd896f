/**
 * BGPsec router certificate definitions of a CA (RFC 8209; krill-reference.md §1.1 "BGPsec"): the check of an update
 * (the router's request is decoded, must carry an ECDSA P-256 key and be signed by it, and its AS must be held: Krill's
 * `ca-bgpsec-*` labels; when one fails nothing changes), the events, and the router certificates a key issues (one per
 * definition whose AS its certificate holds). Definitions are keyed as Krill's `BgpSecAsnKey`: ROUTER-<asn hex>-<key id>.
 */
import { AppError, reasonOf } from '../errors.js'
import { decodeCsr, verifyCsr } from '../objects/csr.js'
import { errorsOf, formatProblem } from '../objects/problem.js'
import { routerCommonName, routerKeyId, inspectRouterCsr } from '../objects/router-cert.js'
import type { AsBlocks } from '../resources/asn.js'
import type { ResourceSet } from '../resources/resource-set.js'
import { fromBase64 } from '../util/base64.js'

/** Stored in the CA snapshot: changing this shape needs a migration. */
export interface BgpSecDefinition {
  asn: number
  /** The router key's identifier, upper-case hex (RFC 8209 §3.1.2). */
  keyId: string
  /** The router's PKCS#10 request, base64 DER: its key is certified. */
  csr: string
}

/** Stored in the history (inside BGPsec events): changing this shape needs a migration. */
export type BgpSecEvent =
  | { type: 'bgpsec-definition-added'; definition: BgpSecDefinition }
  | { type: 'bgpsec-definition-removed'; key: string }

/** Krill's name of a definition: ROUTER-<asn as 8 hex digits>-<key id>. */
export function bgpSecKey(d: { asn: number; keyId: string }): string {
  return `${routerCommonName(d.asn)}-${d.keyId.toUpperCase()}`
}

/** The definitions, by AS then key (the listing order). */
export function bgpSecDefinitions(defs: Record<string, BgpSecDefinition> | undefined): BgpSecDefinition[] {
  return Object.values(defs ?? {}).sort((a, b) => a.asn - b.asn || (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0))
}

/**
 * Krill's `BgpSecDefinitionUpdates`: requests to add and definitions to remove, all or nothing. A request is refused
 * when it cannot be read or its key is not ECDSA P-256 (`ca-bgpsec-csr-invalid`), when it is not signed by its own
 * key (`ca-bgpsec-invalidly-signed`), or when the CA does not hold its AS (`ca-bgpsec-not-entitled`); removing an
 * unknown definition is `ca-bgpsec-unknown`. Adding a definition that exists changes nothing.
 */
export function checkBgpSecUpdate(ca: string, defs: Record<string, BgpSecDefinition> | undefined, held: ResourceSet, add: readonly { asn: number; csr: string }[], remove: readonly string[]): BgpSecEvent[] {
  const events: BgpSecEvent[] = []
  const removing = new Set<string>()
  for (const text of remove) {
    const key = text.toUpperCase()
    if (!defs?.[key] || removing.has(key)) throw new AppError('ca-bgpsec-unknown', { ca, key: text })
    removing.add(key)
    events.push({ type: 'bgpsec-definition-removed', key })
  }
  for (const a of add) {
    const definition = { asn: a.asn, keyId: routerRequestKeyId(ca, a.asn, a.csr), csr: a.csr }
    if (!held.asn.containsAsn(a.asn)) throw new AppError('ca-bgpsec-not-entitled', { ca, asn: `AS${a.asn}` })
    const key = bgpSecKey(definition)
    if (defs?.[key] && !removing.has(key)) continue
    if (events.some((e) => e.type === 'bgpsec-definition-added' && bgpSecKey(e.definition) === key)) continue
    events.push({ type: 'bgpsec-definition-added', definition })
  }
  return events
}

/** Decode and check a router's request (RFC 2986, RFC 8608 §3); its key identifier. */
function routerRequestKeyId(ca: string, asn: number, csrBase64: string): string {
  const args = { ca, asn: `AS${asn}` }
  let csr
  try {
    csr = decodeCsr(fromBase64(csrBase64))
  } catch (e) {
    throw new AppError('ca-bgpsec-csr-invalid', { ...args, reason: reasonOf(e) })
  }
  const problems = errorsOf(inspectRouterCsr(csr))
  if (problems.length > 0) throw new AppError('ca-bgpsec-csr-invalid', { ...args, reason: problems.map(formatProblem).join('; ') })
  try {
    verifyCsr(csr)
  } catch (e) {
    throw new AppError('ca-bgpsec-invalidly-signed', { ...args, reason: reasonOf(e) })
  }
  return routerKeyId(csr.spki)
}

/** Fold a BGPsec event into the definitions (used by the aggregate's apply). */
export function applyBgpSecEvent(defs: Record<string, BgpSecDefinition>, e: BgpSecEvent): void {
  if (e.type === 'bgpsec-definition-removed') delete defs[e.key]
  else defs[bgpSecKey(e.definition)] = e.definition
}

/** One router certificate to issue: its file name and definition. */
export interface PlannedRouterCert {
  name: string
  definition: BgpSecDefinition
}

/** The router certificates of a key: one per definition whose AS it holds (the others come back with the resource). */
export function planRouterCerts(defs: Record<string, BgpSecDefinition> | undefined, held: AsBlocks): PlannedRouterCert[] {
  return bgpSecDefinitions(defs).filter((d) => held.containsAsn(d.asn)).map((d) => ({ name: `${bgpSecKey(d)}.cer`, definition: d }))
}

/** A one-line description of a BGPsec event, for `svcc action`. */
export function bgpSecEventSummary(e: BgpSecEvent): string {
  return e.type === 'bgpsec-definition-added' ? `added router key ${bgpSecKey(e.definition)} for AS${e.definition.asn}` : `removed router key ${e.key}`
}
