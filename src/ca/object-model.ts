/**
 * The CA object model (domain, pure): what a CA has made and published per key. Services plan with it
 * (ca/ and app/ca/), stores keep it (store/interfaces.ts). Shapes marked "stored" need a migration to change.
 */

/** Stored in ca_keys.state: changing this shape needs a migration. */

export interface KeyObjectsState {
  className: string
  /** The directory the objects were made for (the class dir in the CA's jail): all objects change when it moves. */
  dir: string
  /** The shared manifest number and CRL number (krill-reference.md §3), as a decimal string. */
  revision: string
  thisUpdate: string
  nextUpdate: string
  /** Serials to list on the CRL until the revoked certificate expires. */
  revocations: { serial: string; date: string; expires: string }[]
  roaMode: 'simple' | 'aggregate'
}
/** A published file of a key. `meta` is kind-specific (ROA payload keys, ASPA providers, child handle, serial). */

export interface StoredCaObject {
  name: string
  kind: 'mft' | 'crl' | 'roa' | 'asa' | 'cer' | 'router' | 'tak'
  der: Uint8Array
  hash: string
  notAfter: string
  /** Stored in ca_objects.meta: changing this shape needs a migration. */
  meta: { serial: string; payloads?: string[]; providers?: number[]; child?: string }
}

export interface CaKeyObjects {
  keyId: string
  state: KeyObjectsState
  objects: StoredCaObject[]
}

/** An object without its bytes: what views and the renewal rule need (the store reads no DER for it). */
export type StoredObjectSummary = Omit<StoredCaObject, 'der'>

/** A key's objects without their bytes. */
export interface CaKeySummary {
  keyId: string
  state: KeyObjectsState
  objects: StoredObjectSummary[]
}

/** A file to publish: its rsync URI and bytes. */
export interface PublishedFile {
  uri: string
  der: Uint8Array
  hash: string
}
