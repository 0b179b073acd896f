/**
 * What happened to a CA (past tense, style.md §6): the only way CA state changes. `apply` folds them into the state
 * and never fails for events that `process` produced. Stored in the history with their command.
 */
import type { ResourceSetText } from '../resources/resource-set.js'
import { applyAspaEvent, aspaEventSummary, type AspaEvent } from './aspas.js'
import { applyBgpSecEvent, bgpSecEventSummary, type BgpSecEvent } from './bgpsec.js'
import { applyRoaChanges, type RoaChanges } from './roas.js'
import { rscEventSummary, type RscEvent } from './rsc.js'
import { applyIdRollEvent, idRollEventSummary, type IdRollEvent } from './id-roll.js'
import { applyTaKeyRollEvent, taKeyRollEventSummary, type TaKeyRollEvent } from './ta-keyroll.js'
import type { CaState, IncomingCert, IssuedCert, ParentInfo, RepoInfo, ResourceClass } from './state.js'

/** Stored in the history: changing these shapes needs a migration. */
export type CaEvent =
  | { type: 'repo-updated'; repo: RepoInfo; previous?: RepoInfo }
  | { type: 'old-repo-cleaned' }
  | { type: 'parent-added'; parent: ParentInfo }
  | { type: 'parent-updated'; parent: ParentInfo }
  | { type: 'parent-removed'; name: string }
  | { type: 'resource-class-added'; rc: ResourceClass }
  | { type: 'resource-class-updated'; name: string; entitled: ResourceSetText; notAfter: string }
  | { type: 'resource-class-removed'; name: string }
  | { type: 'certificate-requested'; className: string; keyId: string; time: string }
  | { type: 'certificate-received'; className: string; keyId: string; cert: IncomingCert }
  | { type: 'child-added'; handle: string; idCert: string; resources: ResourceSetText; selfService?: true }
  | { type: 'child-resources-updated'; handle: string; resources: ResourceSetText }
  | { type: 'child-id-cert-updated'; handle: string; idCert: string }
  | { type: 'child-removed'; handle: string }
  | { type: 'child-certificate-issued'; child: string; cert: IssuedCert }
  | { type: 'child-key-revoked'; child: string; keyId: string }
  | { type: 'child-suspended'; handle: string; inactive: boolean }
  | { type: 'child-unsuspended'; handle: string }
  | { type: 'roas-updated'; changes: RoaChanges }
  | { type: 'change-control-updated'; fourEyes: boolean }
  | { type: 'key-roll-initiated'; className: string; keyId: string }
  | { type: 'key-roll-activated'; className: string }
  | { type: 'key-roll-finished'; className: string }
  | AspaEvent
  | BgpSecEvent
  | RscEvent
  | TaKeyRollEvent
  | IdRollEvent

/** The kinds of event, by their `type`. */
export type CaEventType = CaEvent['type']

/**
 * Every kind of event the aggregate emits, at run time (tables keyed by kind are checked against it: app/ca/follow-ups.ts).
 * A Record, so the compiler refuses a kind left out of it or one that is no event.
 */
const EVENT_TYPES: Record<CaEventType, true> = {
  'repo-updated': true, 'old-repo-cleaned': true,
  'parent-added': true, 'parent-updated': true, 'parent-removed': true,
  'resource-class-added': true, 'resource-class-updated': true, 'resource-class-removed': true,
  'certificate-requested': true, 'certificate-received': true,
  'child-added': true, 'child-resources-updated': true, 'child-id-cert-updated': true, 'child-removed': true,
  'child-certificate-issued': true, 'child-key-revoked': true, 'child-suspended': true, 'child-unsuspended': true,
  'roas-updated': true,
  'change-control-updated': true,
  'key-roll-initiated': true, 'key-roll-activated': true, 'key-roll-finished': true,
  'aspa-config-added': true, 'aspa-config-updated': true, 'aspa-config-removed': true,
  'bgpsec-definition-added': true, 'bgpsec-definition-removed': true,
  'rsc-signed': true,
  'ta-key-roll-initiated': true, 'ta-key-roll-activated': true, 'ta-key-roll-finished': true,
  'id-key-roll-initiated': true, 'id-key-roll-finished': true, 'child-previous-id-cert-retired': true,
}
export const CA_EVENT_TYPES: readonly CaEventType[] = Object.keys(EVENT_TYPES) as CaEventType[]

/** Fold one event into the state (mutates `s`). */
export function applyEvent(s: CaState, e: CaEvent): void {
  switch (e.type) {
    case 'repo-updated':
      s.repo = e.repo
      if (e.previous) s.oldRepo = e.previous
      return
    case 'old-repo-cleaned':
      delete s.oldRepo
      return
    case 'parent-added':
    case 'parent-updated':
      s.parents[e.parent.name] = e.parent
      return
    case 'parent-removed':
      delete s.parents[e.name]
      return
    case 'resource-class-added':
      s.classes[e.rc.name] = e.rc
      s.nextClass = Math.max(s.nextClass, Number(e.rc.name) + 1 || s.nextClass + 1)
      return
    case 'resource-class-updated':
      Object.assign(s.classes[e.name], { entitled: e.entitled, notAfter: e.notAfter })
      return
    case 'resource-class-removed':
      delete s.classes[e.name]
      return
    default:
      return applyKeyOrChildEvent(s, e)
  }
}

/**
 * A copy of `s` that `events` can be applied to: children and routes, which grow with the CA (a parent of a thousand
 * children), are new maps that share every entry the events leave alone; the entries they change are copied, and so
 * is the rest of the state. A deep copy of everything cost a parent with many children more than the command did.
 */
export function copyForEvents(s: CaState, events: readonly CaEvent[]): CaState {
  const { children, routes, ...rest } = s
  const copy = structuredClone(rest) as CaState
  copy.children = { ...children }
  copy.routes = { ...routes }
  for (const e of events) {
    // Every child event names its child (as `handle` or `child`): that entry is copied, whatever the event changes.
    const child = e.type.startsWith('child-') ? ('handle' in e ? e.handle : 'child' in e ? e.child : undefined) : undefined
    if (child !== undefined && children[child] && copy.children[child] === children[child]) copy.children[child] = structuredClone(children[child])
    if (e.type === 'roas-updated') for (const { key } of e.changes.comments) if (routes[key] && copy.routes[key] === routes[key]) copy.routes[key] = structuredClone(routes[key])
  }
  return copy
}

function applyKeyOrChildEvent(s: CaState, e: CaEvent): void {
  switch (e.type) {
    case 'certificate-requested':
      for (const k of keysOf(s.classes[e.className])) if (k.keyId === e.keyId) k.requested = e.time
      return
    case 'certificate-received':
      for (const k of keysOf(s.classes[e.className])) {
        if (k.keyId !== e.keyId) continue
        k.cert = e.cert
        delete k.requested
      }
      return
    case 'child-added':
      s.children[e.handle] = { handle: e.handle, idCert: e.idCert, resources: e.resources, issued: {}, ...(e.selfService ? { selfService: true as const } : {}) }
      return
    case 'child-resources-updated':
      s.children[e.handle].resources = e.resources
      return
    case 'child-id-cert-updated': {
      // Issue 25: the previous certificate is accepted until the child's first message signed with the new one.
      const ch = s.children[e.handle]
      if (ch.idCert !== e.idCert) ch.prevIdCert = ch.idCert
      ch.idCert = e.idCert
      return
    }
    case 'child-removed':
      delete s.children[e.handle]
      return
    case 'child-certificate-issued':
      s.children[e.child].issued[e.cert.keyId] = e.cert
      return
    case 'child-key-revoked':
      delete s.children[e.child].issued[e.keyId]
      return
    case 'child-suspended':
      s.children[e.handle].suspended = true
      return
    case 'child-unsuspended':
      delete s.children[e.handle].suspended
      return
    case 'roas-updated':
      applyRoaChanges(s.routes, e.changes)
      return
    case 'change-control-updated':
      s.changeControl = { fourEyes: e.fourEyes }
      return
    case 'aspa-config-added':
    case 'aspa-config-updated':
    case 'aspa-config-removed':
      applyAspaEvent((s.aspas ??= {}), e)
      return
    case 'bgpsec-definition-added':
    case 'bgpsec-definition-removed':
      applyBgpSecEvent((s.bgpsec ??= {}), e)
      return
    default:
      return applyKeyRollEvent(s, e)
  }
}

function applyKeyRollEvent(s: CaState, e: CaEvent): void {
  switch (e.type) {
    case 'key-roll-initiated':
      s.classes[e.className].next = { keyId: e.keyId }
      return
    case 'key-roll-activated': {
      const rc = s.classes[e.className]
      rc.old = rc.current
      rc.current = rc.next
      delete rc.next
      return
    }
    case 'key-roll-finished':
      delete s.classes[e.className].old
      return
    case 'ta-key-roll-initiated':
    case 'ta-key-roll-activated':
    case 'ta-key-roll-finished':
      return applyTaKeyRollEvent(s, e)
    case 'id-key-roll-initiated':
    case 'id-key-roll-finished':
    case 'child-previous-id-cert-retired':
      return applyIdRollEvent(s, e)
    default:
      return
  }
}

function keysOf(rc: ResourceClass | undefined) {
  return rc ? [rc.current, rc.next, rc.old].filter((k) => k !== undefined) : []
}

/** A one-line description of an event, for `svcc action` (krill-reference.md §4 `CommandDetails.effect.events`). */
export function eventSummary(e: CaEvent): string {
  switch (e.type) {
    case 'repo-updated': return `repository set to ${e.repo.serviceUri} (jail ${e.repo.siaBase})${e.previous ? `; ${e.previous.serviceUri} to be cleaned up` : ''}`
    case 'old-repo-cleaned': return 'previous repository cleaned up'
    case 'parent-added': return `added parent '${e.parent.name}' (${e.parent.parentHandle} at ${e.parent.serviceUri}, child handle ${e.parent.childHandle})`
    case 'parent-updated': return `updated contact of parent '${e.parent.name}'`
    case 'parent-removed': return `removed parent '${e.name}'`
    case 'resource-class-added': return `added resource class '${e.rc.name}' under parent '${e.rc.parent}' (class '${e.rc.parentClass}') with key ${e.rc.current?.keyId}`
    case 'resource-class-updated': return `entitlements of resource class '${e.name}': ${describe(e.entitled)}, not after ${e.notAfter}`
    case 'resource-class-removed': return `removed resource class '${e.name}'`
    case 'certificate-requested': return `requested a certificate for key ${e.keyId} in resource class '${e.className}'`
    case 'certificate-received': return `received a certificate for key ${e.keyId} in resource class '${e.className}': ${describe(e.cert.resources)}, not after ${e.cert.notAfter}`
    case 'child-added': return `added child '${e.handle}' with ${describe(e.resources)}`
    case 'child-resources-updated': return `resources of child '${e.handle}': ${describe(e.resources)}`
    case 'child-id-cert-updated': return `new identity certificate for child '${e.handle}'`
    case 'child-removed': return `removed child '${e.handle}'`
    case 'child-certificate-issued': return `issued certificate to child '${e.child}' for key ${e.cert.keyId}: ${describe(e.cert.resources)}, serial ${e.cert.serial}`
    case 'child-key-revoked': return `revoked key ${e.keyId} of child '${e.child}'`
    case 'child-suspended': return `suspended child '${e.handle}'${e.inactive ? ' (inactive)' : ''}: its certificates are withdrawn`
    case 'child-unsuspended': return `unsuspended child '${e.handle}'`
    case 'roas-updated': return `ROAs: added ${e.changes.added.length}, removed ${e.changes.removed.length}, comments changed ${e.changes.comments.length}`
    case 'change-control-updated': return `four-eyes approval of ROA and ASPA changes ${e.fourEyes ? 'required' : 'not required'}`
    case 'key-roll-initiated': return `key roll: new key ${e.keyId} in resource class '${e.className}'`
    case 'key-roll-activated': return `key roll: activated the new key in resource class '${e.className}'`
    case 'key-roll-finished': return `key roll: the old key in resource class '${e.className}' is revoked`
    case 'aspa-config-added':
    case 'aspa-config-updated':
    case 'aspa-config-removed':
      return aspaEventSummary(e)
    case 'bgpsec-definition-added':
    case 'bgpsec-definition-removed':
      return bgpSecEventSummary(e)
    case 'rsc-signed':
      return rscEventSummary(e)
    case 'ta-key-roll-initiated':
    case 'ta-key-roll-activated':
    case 'ta-key-roll-finished':
      return taKeyRollEventSummary(e)
    case 'id-key-roll-initiated':
    case 'id-key-roll-finished':
    case 'child-previous-id-cert-retired':
      return idRollEventSummary(e)
  }
}

function describe(r: ResourceSetText): string {
  return [r.asn && `asn ${r.asn}`, r.ipv4 && `ipv4 ${r.ipv4}`, r.ipv6 && `ipv6 ${r.ipv6}`].filter(Boolean).join(', ') || 'no resources'
}
