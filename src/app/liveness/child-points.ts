/**
 * Where a delegated child that publishes outside this svcd can be seen (design.md §11, issue 26 §2): the SIA of the
 * certificate its parent issued it (RFC 6487 §4.8.8.1: caRepository, rpkiManifest, rpkiNotify). A child whose
 * caRepository is a directory of a CA of this svcd is checked as that CA, not here. Used by liveness-service.ts.
 */
import type { CaState, IssuedCert } from '../../ca/state.js'
import { classDir } from '../../ca/locations.js'
import * as oids from '../../asn1/oids.js'
import { decodeCert } from '../../objects/cert.js'
import type { BelievedPoint } from '../../liveness/model.js'
import { fromBase64 } from '../../util/base64.js'

export interface ChildPoint {
  child: string
  /** What is known of the child's point: its directory, manifest and notification; `files` is empty (the child's manifest says). */
  point: BelievedPoint
  certExpires?: number
}

/** Every class directory of the CAs of this svcd (a child publishing there is one of them). */
export function localDirs(states: Iterable<CaState>): Set<string> {
  const out = new Set<string>()
  for (const s of states) {
    if (!s.repo) continue
    for (const rc of Object.values(s.classes)) out.add(classDir(s, rc.name))
  }
  return out
}

/** The CA's children that publish elsewhere, each by the latest-ending certificate it was issued (suspended ones too: they still publish). */
export function childPoints(s: CaState, local: ReadonlySet<string>): ChildPoint[] {
  const out: ChildPoint[] = []
  for (const child of Object.values(s.children)) {
    const issued = Object.values(child.issued).sort((a, b) => Date.parse(b.notAfter) - Date.parse(a.notAfter))[0]
    if (!issued) continue
    const sia = readSia(issued)
    if (!sia || local.has(sia.caRepository)) continue
    const point: BelievedPoint = { ca: s.handle, keyId: issued.keyId, dir: sia.caRepository, rrdpNotificationUri: sia.rpkiNotify ?? '', manifestUri: sia.rpkiManifest, crlUri: '', files: new Map(), caCert: fromBase64(issued.der) }
    const ends = Date.parse(issued.notAfter)
    out.push({ child: child.handle, point, ...(Number.isNaN(ends) ? {} : { certExpires: ends }) })
  }
  return out
}

/** The certificate's SIA (RFC 6487 §4.8.8.1), when it decodes and names a caRepository and rpkiManifest. */
function readSia(c: IssuedCert): { caRepository: string; rpkiManifest: string; rpkiNotify?: string } | undefined {
  try {
    const sia = decodeCert(fromBase64(c.der)).extensions.sia ?? []
    const uri = (m: string) => sia.find((a) => a.method === m)?.uri
    const caRepository = uri(oids.idAdCaRepository)
    const rpkiManifest = uri(oids.idAdRpkiManifest)
    if (!caRepository || !rpkiManifest) return undefined
    const rpkiNotify = uri(oids.idAdRpkiNotify)
    return { caRepository, rpkiManifest, ...(rpkiNotify ? { rpkiNotify } : {}) }
  } catch {
    return undefined
  }
}
