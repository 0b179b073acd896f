/**
 * Our side as a parent (RFC 6492 server, krill-reference.md §1.1 "Children"): adding, updating and removing
 * children, the entitlements we list to them, and certifying their keys: the certificate holds the child's
 * entitlement intersected with what the class's current key holds, with the SIA the child asked for.
 */
import { AppError, reasonOf } from '../errors.js'
import { buildCert, decodeCert, serialFromRandom } from '../objects/cert.js'
import { certFileName } from '../objects/naming.js'
import { csrSia, decodeCsr, inspectCsr, verifyCsr } from '../objects/csr.js'
import { keyIdentifier, keyIdHex } from '../crypto/key-id.js'
import * as oids from '../asn1/oids.js'
import { ResourceSet, type ResourceSetText } from '../resources/resource-set.js'
import { fromBase64, toBase64 } from '../util/base64.js'
import type { CaCommand } from './commands.js'
import type { CaContext } from './context.js'
import type { CaEvent } from './events.js'
import { classDir, crlUri } from './locations.js'
import { stillFresh } from './renewal.js'
import type { CaState, ChildInfo, IssuedCert, ResourceClass } from './state.js'

/** The resources a CA holds now: the union of its classes' current certificates. */
export function heldResources(s: CaState): ResourceSet {
  let all = ResourceSet.empty()
  for (const rc of Object.values(s.classes)) if (rc.current?.cert) all = all.union(ResourceSet.parse(rc.current.cert.resources))
  return all
}

export function child(s: CaState, handle: string): ChildInfo {
  const c = s.children[handle]
  if (!c) throw new AppError('ca-child-unknown', { ca: s.handle, child: handle })
  return c
}

export function processChildAdd(s: CaState, c: Extract<CaCommand, { type: 'child-add' }>): CaEvent[] {
  if (s.children[c.handle]) throw new AppError('ca-child-duplicate', { ca: s.handle, child: c.handle })
  const resources = checkChildResources(s, c.handle, c.resources)
  return [{ type: 'child-added', handle: c.handle, idCert: c.idCert, resources, ...(c.selfService ? { selfService: true as const } : {}) }]
}

/** Update resources (a full replacement) and/or the id certificate; certificates beyond the new entitlement shrink. */
export function processChildUpdate(s: CaState, c: Extract<CaCommand, { type: 'child-update' }>, ctx: CaContext): CaEvent[] {
  const ch = child(s, c.handle)
  const events: CaEvent[] = []
  if (c.idCert !== undefined && c.idCert !== ch.idCert) events.push({ type: 'child-id-cert-updated', handle: c.handle, idCert: c.idCert })
  if (c.resources !== undefined) {
    const resources = checkChildResources(s, c.handle, c.resources)
    if (!ResourceSet.parse(resources).equals(ResourceSet.parse(ch.resources))) {
      events.push({ type: 'child-resources-updated', handle: c.handle, resources })
      events.push(...shrinkChild(s, { ...ch, resources }, ctx))
    }
  }
  return events
}

export function processChildRemove(s: CaState, c: Extract<CaCommand, { type: 'child-remove' }>): CaEvent[] {
  const ch = child(s, c.handle)
  return [...Object.keys(ch.issued).map((keyId): CaEvent => ({ type: 'child-key-revoked', child: c.handle, keyId })), { type: 'child-removed', handle: c.handle }]
}

/** Re-issue (or revoke) every child certificate that holds more than its child's entitlement in its class. */
export function shrinkChild(s: CaState, ch: ChildInfo, ctx: CaContext): CaEvent[] {
  return reissueWhere(s, ch, ctx, (has, entitled) => !entitled.contains(has))
}

/** Re-issue every certificate of a child as it is (same key, SIA and resources): e.g. our CRL moved. */
export function reissueChild(s: CaState, ch: ChildInfo, ctx: CaContext): CaEvent[] {
  return reissueWhere(s, ch, ctx, () => true)
}

function reissueWhere(s: CaState, ch: ChildInfo, ctx: CaContext, due: (has: ResourceSet, entitled: ResourceSet) => boolean): CaEvent[] {
  const events: CaEvent[] = []
  for (const cert of Object.values(ch.issued)) {
    const rc = s.classes[cert.className]
    const entitled = rc?.current?.cert ? ResourceSet.parse(ch.resources).intersection(ResourceSet.parse(rc.current.cert.resources)) : ResourceSet.empty()
    const has = ResourceSet.parse(cert.resources)
    if (!due(has, entitled)) continue
    const now = has.intersection(entitled)
    if (now.isEmpty() || !rc) {
      events.push({ type: 'child-key-revoked', child: ch.handle, keyId: cert.keyId })
      continue
    }
    const old = decodeCert(fromBase64(cert.der))
    const sia = old.extensions.sia ?? []
    const find = (m: string) => sia.find((a) => a.method === m)?.uri
    const wanted = { caRepository: find(oids.idAdCaRepository)!, rpkiManifest: find(oids.idAdRpkiManifest)!, ...(find(oids.idAdRpkiNotify) ? { rpkiNotify: find(oids.idAdRpkiNotify) } : {}) }
    events.push({ type: 'child-certificate-issued', child: ch.handle, cert: issueChildCertificate(s, rc, old.spki, wanted, now, ctx) })
  }
  return events
}

/** RFC 6492 §3.4: certify a child's key from its CSR; RFC 6492 error codes as AppError args.code. */
export function processChildCertify(s: CaState, c: Extract<CaCommand, { type: 'child-certify' }>, ctx: CaContext): CaEvent[] {
  const ch = child(s, c.handle)
  const rc = s.classes[c.className]
  if (!rc?.current?.cert) throw updown(1201, `no resource class '${c.className}'`)
  // RFC 6487 §7.2: a certificate issued under our expired one would be invalid; the child asks again after we
  // received a new one from our parent (a child in this svcd is told at once).
  if (Date.parse(rc.current.cert.notAfter) <= ctx.now.getTime()) throw updown(2001, `our certificate in resource class '${rc.name}' expired at ${rc.current.cert.notAfter}; ask again once our parent has issued a new one`)
  let csr
  try {
    csr = decodeCsr(fromBase64(c.csr))
    verifyCsr(csr)
  } catch (e) {
    throw updown(1203, `badly formed certificate request: ${reasonOf(e)}`)
  }
  const problems = inspectCsr(csr)
  if (problems.length) throw updown(1203, `certificate request: ${problems.map((p) => `${p.rule}: ${p.message}`).join('; ')}`)
  const sia = csrSia(csr) as Exclude<ReturnType<typeof csrSia>, string>
  const keyId = keyIdHex(keyIdentifier(csr.spki))
  if (Object.values(s.classes).some((k) => [k.current, k.next, k.old].some((x) => x?.keyId === keyId))) throw updown(1204, 'the request uses a key of the parent itself')
  for (const other of Object.values(s.children)) if (other.handle !== ch.handle && other.issued[keyId]) throw updown(1204, 'the key is already certified for another child')
  checkKeySlot(ch, rc.name, keyId)
  let entitled = ResourceSet.parse(ch.resources).intersection(ResourceSet.parse(rc.current.cert.resources))
  if (c.limit) entitled = entitled.intersection(ResourceSet.parse(c.limit))
  if (entitled.isEmpty()) throw updown(1202, `no resources allocated to child '${ch.handle}' in resource class '${rc.name}'`)
  return [{ type: 'child-certificate-issued', child: ch.handle, cert: issueChildCertificate(s, rc, csr.spki, sia, entitled, ctx) }]
}

/**
 * RFC 6489 §2: a CA has at most two keys in a resource class, the current one and, during a key roll, the new one
 * (the old one is revoked when the roll completes). A request for a further key is refused, so that a child cannot
 * make us issue and publish certificates without bound; re-issue for a key already certified replaces its
 * certificate, and a revocation frees a slot. RFC 6492 §3.6 has no code for this: 2001, request not performed.
 */
export const MAX_CHILD_KEYS_PER_CLASS = 2

/** Refuse (2001) certifying `keyId` for the child in the class when it is new and the class's slots are taken. */
function checkKeySlot(ch: ChildInfo, className: string, keyId: string): void {
  if (ch.issued[keyId]) return
  const held = Object.values(ch.issued).filter((c) => c.className === className)
  if (held.length >= MAX_CHILD_KEYS_PER_CLASS) {
    throw updown(2001, `RFC 6489 §2: child '${ch.handle}' already holds certificates for ${held.length} keys in resource class '${className}' (current and new); revoke one before asking for another key`)
  }
}

export function processChildRevoke(s: CaState, c: Extract<CaCommand, { type: 'child-revoke' }>): CaEvent[] {
  const ch = child(s, c.handle)
  const cert = ch.issued[c.keyId]
  if (!s.classes[c.className]) throw updown(1301, `no resource class '${c.className}'`)
  if (!cert || cert.className !== c.className) throw updown(1302, `no certified key '${c.keyId}' in resource class '${c.className}'`)
  return [{ type: 'child-key-revoked', child: c.handle, keyId: c.keyId }]
}

/** The child certificate: RFC 6487 CA profile, signed by the class's current key. */
export function issueChildCertificate(s: CaState, rc: ResourceClass, spki: Uint8Array, sia: { caRepository: string; rpkiManifest: string; rpkiNotify?: string }, resources: ResourceSet, ctx: CaContext): IssuedCert {
  const issuer = rc.current!
  const own = decodeCert(fromBase64(issuer.cert!.der))
  const key = ctx.signer.signingKey(issuer.keyId)
  const ski = keyIdentifier(spki)
  const keyId = keyIdHex(ski)
  const notBefore = new Date(ctx.now.getTime() - 5 * 60_000)
  const notAfter = new Date(Math.min(entitledUntil(ctx.now, ctx.timing.childCertValidSeconds), own.notAfter.getTime()))
  const serial = serialFromRandom(ctx.random(20))
  const der = buildCert(
    {
      profile: 'rpki', kind: 'ca', serial, issuerName: own.subject.der, subjectName: keyId, subjectSpki: spki, subjectKeyId: ski, notBefore, notAfter,
      crldp: crlUri(s, rc.name, issuer.keyId), aia: issuer.cert!.uri, sia,
      resources: { ipv4: resources.ipv4, ipv6: resources.ipv6, asn: resources.asn },
    },
    key,
  )
  return { keyId, className: rc.name, der: toBase64(der), uri: classDir(s, rc.name) + certFileName(keyId), serial: serial.toString(), notAfter: notAfter.toISOString(), resources: resources.toJSON(), signedBy: issuer.keyId }
}

/**
 * The end of a new child certificate's validity: `validSeconds` from now, down to the hour. A child lists its
 * entitlements and then asks for the certificate, a moment apart: both answers name the same time, so the next
 * list does not look like a change (a resource-class update in the child's history at its first refresh).
 */
export function entitledUntil(now: Date, validSeconds: number): number {
  return Math.floor((now.getTime() + validSeconds * 1000) / 3_600_000) * 3_600_000
}

/** The child's entitlements (RFC 6492 §3.3.2): per class with a current certificate, what the child may get there. */
export function childEntitlements(s: CaState, ch: ChildInfo, now: Date, timing: CaContext['timing']): { rc: ResourceClass; resources: ResourceSet; notAfter: Date; issued: IssuedCert[] }[] {
  const out = []
  for (const rc of Object.values(s.classes)) {
    if (!rc.current?.cert) continue
    const resources = ResourceSet.parse(ch.resources).intersection(ResourceSet.parse(rc.current.cert.resources))
    if (resources.isEmpty()) continue
    const issued = Object.values(ch.issued).filter((c) => c.className === rc.name)
    const own = Date.parse(rc.current.cert.notAfter)
    let notAfter = Math.min(entitledUntil(now, timing.childCertValidSeconds), own)
    // Report the current certificate's notAfter while it is not due for renewal, so the child does not re-request.
    const current = issued.find((c) => ResourceSet.parse(c.resources).equals(resources) && stillFresh(c.notAfter, now, timing.childCertReissueBeforeSeconds))
    if (current) notAfter = Date.parse(current.notAfter)
    out.push({ rc, resources, notAfter: new Date(Math.floor(notAfter / 1000) * 1000), issued })
  }
  return out
}

export function checkChildResources(s: CaState, handle: string, text: ResourceSetText): ResourceSetText {
  let r: ResourceSet
  try {
    r = ResourceSet.parse(text)
  } catch (e) {
    throw new AppError('api-invalid-body', { reason: reasonOf(e) })
  }
  if (r.isEmpty()) throw new AppError('ca-child-resources-required')
  const extra = r.difference(heldResources(s))
  if (!extra.isEmpty()) throw new AppError('ca-child-resources-extra', { ca: s.handle, child: handle, resources: extra.toString() })
  return r.toJSON()
}

/** An RFC 6492 error: the route maps `args.code` to an error_response status (RFC 6492 §3.6). */
export function updown(code: number, reason: string): AppError {
  return new AppError('rfc6492-protocol', { code: String(code), reason })
}
