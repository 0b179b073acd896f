/**
 * When a CA's objects need work (design.md §3 "Timing defaults", krill-reference.md §3, §5), pure rules: a
 * manifest and CRL are re-signed `mftReissueSeconds` after their thisUpdate (spread by up to the jitter), a ROA, ASPA, TAK or router certificate
 * `roaReissueBeforeSeconds` before it expires; keys whose certificate from the parent expired have nothing to renew (their new
 * certificate, when it comes, publishes at once). The one home of the "still fresh" rule, which the object builders
 * (app/ca/*-objects.ts), the child certificates (children.ts) and the requests to parents (parents.ts) all use.
 */
import type { CaKeySummary } from './object-model.js'
import { certifiedKeys, type CaState, type IncomingCert } from './state.js'

export interface RenewalTiming {
  mftReissueSeconds: number
  roaReissueBeforeSeconds: number
  /**
   * Manifests and CRLs are re-signed up to this much earlier than `mftReissueSeconds` after their thisUpdate, by a
   * share fixed per key and revision (manifestSpread), at most a quarter of `mftReissueSeconds`; default 0.
   */
  mftReissueJitterSeconds?: number
}

/** What the manifest due time is computed from: the key's manifest and CRL state (CaKeyObjects). */
export interface ManifestIssue {
  keyId: string
  state: { thisUpdate: string; revision: string }
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

/**
 * A manifest's place in the spread, in [0, 1): a hash (FNV-1a) of its key and revision. Fixed for one manifest, so
 * every reading of the same state agrees on its due time; new at each re-issue, so CAs created together (10,000 in an
 * hour) drift apart instead of renewing in the same hour every interval, as Krill's `timing_publish_next_jitter_hours` does.
 */
export function manifestSpread(keyId: string, revision: string): number {
  let h = 0x811c9dc5
  const text = `${keyId}/${revision}`
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0) / 2 ** 32
}

/** How much earlier than `mftReissueSeconds` after thisUpdate a manifest may be re-signed (ms): the jitter, capped. */
export function manifestJitterMs(t: Pick<RenewalTiming, 'mftReissueSeconds' | 'mftReissueJitterSeconds'>): number {
  return Math.min(t.mftReissueJitterSeconds ?? 0, t.mftReissueSeconds / 4) * 1000
}

/**
 * When a key's manifest and CRL are re-signed, even when nothing changed: `mftReissueSeconds` after their thisUpdate,
 * less the manifest's share of the jitter.
 */
export function manifestDueAt(m: ManifestIssue, t: Pick<RenewalTiming, 'mftReissueSeconds' | 'mftReissueJitterSeconds'>): number {
  const jitter = manifestJitterMs(t)
  const early = jitter > 0 ? Math.floor(manifestSpread(m.keyId, m.state.revision) * jitter) : 0
  return Date.parse(m.state.thisUpdate) + t.mftReissueSeconds * 1000 - early
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
    due = Math.min(due, manifestDueAt(k, t))
    for (const o of k.objects) if (o.kind === 'roa' || o.kind === 'asa' || o.kind === 'router' || o.kind === 'tak') due = Math.min(due, reissueAt(o.notAfter, t.roaReissueBeforeSeconds))
  }
  return Math.max(due, at + 1000)
}
