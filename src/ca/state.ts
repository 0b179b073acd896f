/**
 * The state of one CA (Krill's CertAuth): identity, repository, parents with their resource classes and keys,
 * children with the certificates issued to them, and the configured ROAs. Plain JSON (snapshots are JSON),
 * certificates as base64 DER, resource sets in their canonical text form (style.md §2 rule 4).
 */
import type { ResourceSetText } from '../resources/resource-set.js'
import type { AspaConfig } from './aspas.js'
import type { BgpSecDefinition } from './bgpsec.js'
import type { RoaConfig } from './roas.js'

/** Stored in the CA snapshot: changing this shape needs a migration. */
export interface CaState {
  handle: string
  /** The BPKI identity key (RFC 8183 §4) and its self-signed certificate. */
  idKey: string
  idCert: string
  /** An identity key roll under way (ca/id-roll.ts): the new key and certificate, used once the roll is finished. */
  idNext?: { idKey: string; idCert: string }
  repo: RepoInfo | undefined
  /** After a repository change: the previous repository, cleaned up once every key is certified with the new SIA. */
  oldRepo?: RepoInfo
  parents: Record<string, ParentInfo>
  classes: Record<string, ResourceClass>
  /** The next local resource class name ("0", "1", …). */
  nextClass: number
  children: Record<string, ChildInfo>
  routes: Record<string, RoaConfig>
  /** ASPA definitions by customer AS (decimal); absent until the first one (CAs stored before ASPAs had none). */
  aspas?: Record<string, AspaConfig>
  /** BGPsec router keys by Krill's key (ROUTER-<asn hex>-<key id>); absent until the first one. */
  bgpsec?: Record<string, BgpSecDefinition>
  /** Change control (design.md §12): whether ROA/ASPA changes need a second user's approval; absent: off. */
  changeControl?: { fourEyes: boolean }
  /** Only for the embedded trust anchor: its self-signed certificate and where it is published. */
  ta?: TaInfo
}

/** Stored in the CA snapshot. Where the CA publishes (RFC 8183 repository_response). */
export interface RepoInfo {
  /** True for the embedded publication server (in-process publishing). */
  embedded: boolean
  publisherHandle: string
  serviceUri: string
  siaBase: string
  rrdpNotificationUri: string
  /** The repository's BPKI identity certificate (base64 DER). */
  serverIdCert: string
}

/** Stored in the CA snapshot. A parent, by its local name (RFC 8183 parent_response). */
export interface ParentInfo {
  name: string
  parentHandle: string
  childHandle: string
  serviceUri: string
  idCert: string
}

/** Stored in the CA snapshot. A resource class received from a parent, with its keys (RFC 6489 key states). */
export interface ResourceClass {
  name: string
  parent: string
  /** The class name the parent uses. */
  parentClass: string
  /** What the parent says we are entitled to, and until when. */
  entitled: ResourceSetText
  notAfter: string
  /** The active key (state `pending` while it has no certificate yet). */
  current?: CaKey
  /** A key roll's new key (`roll_pending` without certificate, `roll_new` with). */
  next?: CaKey
  /** A key roll's old key after activation, until the parent confirmed its revocation (`roll_old`). */
  old?: CaKey
}

/** Stored in the CA snapshot. */
export interface CaKey {
  keyId: string
  cert?: IncomingCert
  /** When a certificate was last requested for this key, if one is outstanding. */
  requested?: string
}

/** Stored in the CA snapshot. A certificate we received from our parent. */
export interface IncomingCert {
  der: string
  /** Where the parent publishes it (cert_url). */
  uri: string
  resources: ResourceSetText
  notBefore: string
  notAfter: string
}

/** Stored in the CA snapshot. A child, by the handle we gave it. */
export interface ChildInfo {
  handle: string
  idCert: string
  /** After an id cert update: the previous one, accepted until the child's first message signed with the new one. */
  prevIdCert?: string
  resources: ResourceSetText
  /** Certificates issued to it, by the child's key id. */
  issued: Record<string, IssuedCert>
  /** Suspended (inactive, or by an operator): its certificates are not published. Absent when active. */
  suspended?: true
  /** Registered through the testbed self-service (/testbed/children, no token): only it may be removed that way. */
  selfService?: true
}

/** Stored in the CA snapshot. */
export interface IssuedCert {
  keyId: string
  className: string
  der: string
  uri: string
  serial: string
  notAfter: string
  resources: ResourceSetText
  /** Our key that signed it. */
  signedBy: string
}

/** Stored in the CA snapshot. The current key's self-signed certificate and where it is published (both URIs in the TAL). */
export interface TaInfo extends TaCertInfo {
  /** RFC 9691 key roll (ca/ta-keyroll.ts): the successor's certificate, published beside the current one. */
  next?: TaCertInfo
  /** After activation: the predecessor's certificate, published until the old key is retired. */
  old?: TaCertInfo
  /** When the last TA key roll was activated (the old key is retired a configured time later). */
  activatedAt?: string
}

/** Stored in the CA snapshot. One TA key's certificate: base64 DER, its rsync URI and its https URI. */
export interface TaCertInfo {
  certDer: string
  rsyncUri: string
  httpsUri: string
}

export type KeyStateName = 'pending' | 'active' | 'roll_pending' | 'roll_new' | 'roll_old'

/** The key-roll state of a class as the API shows it (krill-reference.md §6). */
export function keyState(rc: ResourceClass): KeyStateName {
  if (rc.old) return 'roll_old'
  if (rc.next) return rc.next.cert ? 'roll_new' : 'roll_pending'
  return rc.current?.cert ? 'active' : 'pending'
}

/** The keys of a class that hold a certificate, with their role. */
export function certifiedKeys(rc: ResourceClass): { role: 'current' | 'next' | 'old'; key: CaKey & { cert: IncomingCert } }[] {
  const out: { role: 'current' | 'next' | 'old'; key: CaKey & { cert: IncomingCert } }[] = []
  for (const role of ['current', 'next', 'old'] as const) {
    const k = rc[role]
    if (k?.cert) out.push({ role, key: k as CaKey & { cert: IncomingCert } })
  }
  return out
}
