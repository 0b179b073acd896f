/**
 * When a CA's objects need work (design.md §3 "Timing defaults", krill-reference.md §3, §5), pure rules: a
 * manifest and CRL are re-signed `mftReissueSeconds` after their thisUpdate, a ROA, ASPA, TAK or router certificate
 * `roaReissueBeforeSeconds` before it expires; keys whose certificate from the parent expired have nothing to renew (their new
 * certificate, when it comes, publishes at once). The one home of the "still fresh" rule, which the object builders
 * (app/ca/*-objects.ts), the child certificates (children.ts) and the requests to parents (parents.ts) all use.
 */
import type { CaKeySummary } from './object-model.js'
import { certifiedKeys, type CaState, type IncomingCert } from './state.js'

export interface RenewalTiming {
  mftReissueSeconds: number
  roaReissueBeforeSeconds: number
}

/**
 * The one "still fresh" rule (design.md §3 "Timing defaults"): an object (a ROA, ASPA, TAK or router certificate, a
 * child's certificate, our certificate from a parent) is re-issued `reissueBeforeSeconds` before its notAfter, and
 * kept until then.
 */
export function reissueAt(notAfter: string, reissueBeforeSeconds: number): number {
  return Date.parse(notAfter) - reissueBeforeSeconds * 1000
}

/** Whether an object valid until `notAfter` is kept at `now` (reissueAt has not come). */
export function stillFresh(notAfter: string, now: Date, reissueBeforeSeconds: number): boolean {
  return now.getTime() < reissueAt(notAfter, reissueBeforeSeconds)
}

/** When a key's manifest and CRL (issued at `thisUpdate`) are re-signed, even when nothing changed. */
export function manifestDueAt(thisUpdate: string, mftReissueSeconds: number): number {
  return Date.parse(thisUpdate) + mftReissueSeconds * 1000
}

/** Whether a key's certificate from its parent has expired at `now` (nothing signed under it would be valid). */
export function certificateExpired(cert: IncomingCert, now: Date): boolean {
  return Date.parse(cert.notAfter) <= now.getTime()
}

/**
 * When the CA's objects next need work (ms since the epoch), never sooner than a second from `now`; a CA without
 * objects (or whose certificates all expired) is looked at again after one manifest interval.
 */
export function nextRenewal(state: CaState, keys: readonly CaKeySummary[], now: Date, t: RenewalTiming): number {
  const at = now.getTime()
  let due = at + t.mftReissueSeconds * 1000
  const expired = new Set(Object.values(state.classes).flatMap((rc) => certifiedKeys(rc)).filter((k) => certificateExpired(k.key.cert, now)).map((k) => k.key.keyId))
  for (const k of keys) {
    if (expired.has(k.keyId)) continue
    due = Math.min(due, manifestDueAt(k.state.thisUpdate, t.mftReissueSeconds))
    for (const o of k.objects) if (o.kind === 'roa' || o.kind === 'asa' || o.kind === 'router' || o.kind === 'tak') due = Math.min(due, reissueAt(o.notAfter, t.roaReissueBeforeSeconds))
  }
  return Math.max(due, at + 1000)
}
