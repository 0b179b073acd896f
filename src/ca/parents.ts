/**
 * Our side as a child (RFC 6492 client, krill-reference.md §1.1 "Parents"): parent contacts, the resource classes a
 * parent entitles us to (one key each, created when the class appears), the certificates we receive, and the key
 * roll of RFC 6489 (init: a new key per class; activate: the new key becomes current, the old one is revoked).
 */
import { AppError, reasonOf } from '../errors.js'
import { decodeCert } from '../objects/cert.js'
import { ResourceSet } from '../resources/resource-set.js'
import { fromBase64, toBase64 } from '../util/base64.js'
import { bytesEqual } from '../util/bytes.js'
import type { CaCommand, Entitlement } from './commands.js'
import type { CaContext } from './context.js'
import type { CaEvent } from './events.js'
import { stillFresh } from './renewal.js'
import type { CaKey, CaState, IncomingCert, ResourceClass } from './state.js'
import { classDir } from './locations.js'
import * as oids from '../asn1/oids.js'

export function parent(s: CaState, name: string) {
  const p = s.parents[name]
  if (!p) throw new AppError('ca-parent-unknown', { ca: s.handle, parent: name })
  return p
}

export function processParentAdd(s: CaState, c: Extract<CaCommand, { type: 'parent-add' }>): CaEvent[] {
  const existing = s.parents[c.parent.name]
  if (existing) {
    if (JSON.stringify(existing) === JSON.stringify(c.parent)) return []
    throw new AppError('ca-parent-duplicate', { ca: s.handle, parent: c.parent.name })
  }
  const same = Object.values(s.parents).find((p) => p.serviceUri === c.parent.serviceUri && p.childHandle === c.parent.childHandle)
  if (same) throw new AppError('ca-parent-xml-duplicate', { ca: s.handle, parent: same.name })
  return [{ type: 'parent-added', parent: c.parent }]
}

export function processParentUpdate(s: CaState, c: Extract<CaCommand, { type: 'parent-update' }>): CaEvent[] {
  const existing = parent(s, c.parent.name)
  return JSON.stringify(existing) === JSON.stringify(c.parent) ? [] : [{ type: 'parent-updated', parent: c.parent }]
}

/** Removing a parent drops its classes (the parent service asks the parent to revoke first, best effort). */
export function processParentRemove(s: CaState, c: Extract<CaCommand, { type: 'parent-remove' }>): CaEvent[] {
  parent(s, c.name)
  const classes = Object.values(s.classes).filter((rc) => rc.parent === c.name)
  return [...classes.map((rc): CaEvent => ({ type: 'resource-class-removed', name: rc.name })), { type: 'parent-removed', name: c.name }]
}

/** RFC 6492 §3.3.2: a list_response. New classes get a new key; changed ones are updated; missing ones removed. */
export async function processEntitlements(s: CaState, c: Extract<CaCommand, { type: 'parent-entitlements-update' }>, ctx: CaContext): Promise<CaEvent[]> {
  parent(s, c.parent)
  const events: CaEvent[] = []
  const ours = Object.values(s.classes).filter((rc) => rc.parent === c.parent)
  let next = s.nextClass
  for (const e of c.classes) {
    const resources = ResourceSet.parse(e.resources).toJSON()
    const rc = ours.find((r) => r.parentClass === e.className)
    if (!rc) {
      const keyId = await ctx.signer.createKey()
      const name = String(next++)
      events.push({ type: 'resource-class-added', rc: { name, parent: c.parent, parentClass: e.className, entitled: resources, notAfter: e.notAfter, current: { keyId } } })
    } else if (!ResourceSet.parse(rc.entitled).equals(ResourceSet.parse(resources)) || rc.notAfter !== e.notAfter) {
      events.push({ type: 'resource-class-updated', name: rc.name, entitled: resources, notAfter: e.notAfter })
    }
  }
  for (const rc of ours) if (!c.classes.some((e) => e.className === rc.parentClass)) events.push({ type: 'resource-class-removed', name: rc.name })
  return events
}

/** Keys that need a certificate request now (RFC 6492 §3.4): no certificate yet, or it differs from the entitlement. */
export function keysNeedingCertificates(s: CaState, now: Date, reissueBeforeSeconds: number): { rc: ResourceClass; key: CaKey }[] {
  const out: { rc: ResourceClass; key: CaKey }[] = []
  for (const rc of Object.values(s.classes)) {
    if (!s.parents[rc.parent]) continue
    const entitled = ResourceSet.parse(rc.entitled)
    for (const key of [rc.current, rc.next]) {
      if (!key) continue
      const cert = key.cert
      if (!cert) out.push({ rc, key })
      else if (!ResourceSet.parse(cert.resources).equals(entitled)) out.push({ rc, key })
      else if (s.repo && certRepository(cert) !== classDir(s, rc.name)) out.push({ rc, key })
      else if (cert.notAfter !== rc.notAfter && !stillFresh(cert.notAfter, now, reissueBeforeSeconds)) out.push({ rc, key })
    }
  }
  return out
}

export function processCertificateRequest(s: CaState, c: Extract<CaCommand, { type: 'certificate-request' }>, ctx: CaContext): CaEvent[] {
  keyOf(s, c.className, c.keyId)
  return [{ type: 'certificate-requested', className: c.className, keyId: c.keyId, time: ctx.now.toISOString() }]
}

/** RFC 6492 §3.4.2: an issue_response; the certificate must be for our key and hold what we are entitled to. */
export function processCertificateReceive(s: CaState, c: Extract<CaCommand, { type: 'certificate-receive' }>, ctx: CaContext): CaEvent[] {
  const key = keyOf(s, c.className, c.keyId)
  let cert
  try {
    cert = decodeCert(fromBase64(c.cert))
  } catch (e) {
    throw new AppError('ca-parent-issue', { ca: s.handle, parent: c.parent, reason: `the certificate does not decode: ${reasonOf(e)}` })
  }
  if (!bytesEqual(cert.spki, ctx.signer.signingKey(key.keyId).spki)) throw new AppError('ca-parent-issue', { ca: s.handle, parent: c.parent, reason: 'the certificate is not for our key' })
  const resources = certResources(cert)
  if (key.cert && key.cert.der === c.cert) return []
  return [{ type: 'certificate-received', className: c.className, keyId: c.keyId, cert: { der: toBase64(cert.bytes), uri: c.uri, resources: resources.toJSON(), notBefore: cert.notBefore.toISOString(), notAfter: cert.notAfter.toISOString() } }]
}

/** RFC 6489 §2: the parent confirmed the revocation of our old key: the roll is finished. */
export function processKeyRevoked(s: CaState, c: Extract<CaCommand, { type: 'key-revoked' }>): CaEvent[] {
  const rc = s.classes[c.className]
  return rc?.old?.keyId === c.keyId ? [{ type: 'key-roll-finished', className: c.className }] : []
}

/**
 * RFC 6489 §2.1: a new key in every class with an active key and no roll in progress, made in the signer the command
 * names (a key roll moves a CA's keys to another signer, issue 25) or the default one. When a key cannot be made, the
 * keys made for the other classes are destroyed again: the command fails having changed nothing.
 */
export async function processKeyRollInit(s: CaState, c: Extract<CaCommand, { type: 'keyroll-init' }>, ctx: CaContext): Promise<CaEvent[]> {
  const events: CaEvent[] = []
  const opts = c.signer === undefined ? undefined : { signer: c.signer }
  try {
    for (const rc of Object.values(s.classes)) {
      if (!rc.current?.cert || rc.next || rc.old || !s.parents[rc.parent]) continue
      events.push({ type: 'key-roll-initiated', className: rc.name, keyId: await ctx.signer.createKey(opts) })
    }
  } catch (e) {
    for (const ev of events) if (ev.type === 'key-roll-initiated') ctx.signer.destroyKey(ev.keyId)
    throw e
  }
  return events
}

/** RFC 6489 §2.3: make every certified new key current; refused while a new key still waits for its certificate. */
export function processKeyRollActivate(s: CaState): CaEvent[] {
  const classes = Object.values(s.classes)
  if (classes.some((rc) => rc.next && !rc.next.cert)) throw new AppError('key-roll-pending-requests', { ca: s.handle })
  const ready = classes.filter((rc) => rc.next?.cert)
  if (ready.length === 0) throw new AppError('key-roll-disallowed', { ca: s.handle, action: 'activate', reason: 'no key roll is in progress (use keyroll init first)' })
  return ready.map((rc) => ({ type: 'key-roll-activated', className: rc.name }))
}

function keyOf(s: CaState, className: string, keyId: string): CaKey {
  const rc = s.classes[className]
  const key = rc && [rc.current, rc.next, rc.old].find((k) => k?.keyId === keyId)
  if (!key) throw new AppError('ca-parent-issue', { ca: s.handle, parent: rc?.parent ?? '', reason: `no key '${keyId}' in resource class '${className}'` })
  return key
}

/** The caRepository of a received certificate's SIA (spec §3 rule 1: it changes when the CA moves). */
export function certRepository(cert: IncomingCert): string | undefined {
  try {
    return decodeCert(fromBase64(cert.der)).extensions.sia?.find((a) => a.method === oids.idAdCaRepository)?.uri
  } catch {
    return undefined
  }
}

/** The explicit resources of a received certificate (RFC 3779; a CA certificate from a parent never inherits). */
export function certResources(cert: ReturnType<typeof decodeCert>): ResourceSet {
  const ip = cert.extensions.ip
  const as = cert.extensions.as
  const pick = <T>(v: T | 'inherit' | undefined, empty: T): T => (v === undefined || v === 'inherit' ? empty : v)
  const r = ResourceSet.empty()
  return new ResourceSet(pick(as?.asn, r.asn), pick(ip?.ipv4, r.ipv4), pick(ip?.ipv6, r.ipv6))
}

export type { Entitlement }
