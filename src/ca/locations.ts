/**
 * Where a CA's objects live (RFC 6487 §4.8.8, krill-reference.md §3 "Publisher paths"): each resource class has
 * its own directory `<sia_base><class>/` with `<KEYID>.mft`, `<KEYID>.crl`, the ROAs and the child certificates.
 */
import { crlFileName, manifestFileName } from '../objects/naming.js'
import type { CaState } from './state.js'

export function classDir(s: CaState, rcName: string): string {
  if (!s.repo) throw new Error(`CA '${s.handle}' has no repository`)
  return `${s.repo.siaBase}${rcName}/`
}

export function crlUri(s: CaState, rcName: string, keyId: string): string {
  return classDir(s, rcName) + crlFileName(keyId)
}

export function mftUri(s: CaState, rcName: string, keyId: string): string {
  return classDir(s, rcName) + manifestFileName(keyId)
}

/** The SIA a CA key asks its parent for (RFC 6487 §4.8.8.1): its class directory, manifest and RRDP notification. */
export function keySia(s: CaState, rcName: string, keyId: string): { caRepository: string; rpkiManifest: string; rpkiNotify: string } {
  return { caRepository: classDir(s, rcName), rpkiManifest: mftUri(s, rcName, keyId), rpkiNotify: s.repo!.rrdpNotificationUri }
}
