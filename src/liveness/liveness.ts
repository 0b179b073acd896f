/**
 * Liveness rules (design.md §11, issue 26 §2): from what each transport showed of a publication point (point-check.ts
 * findings and PointSeen) to the point's, the CA's and each delegated child's liveness, and the conditions the alert
 * service raises and clears. Pure: the time is passed in, what must be remembered between checks (when a manifest was
 * first seen over each transport, since when transports disagree, since when a child is non-functional) goes in and
 * comes out. Used by app/liveness/liveness-service.ts.
 */
import type { AlarmKind, CaLiveness, ChildLiveness, Condition, Finding, PointLiveness, PointSeen, Transport } from './model.js'

const HOUR = 3600_000

/** The rules' settings ([liveness] in the config). */
export interface LivenessRules {
  /** expiry_margin_hours: a manifest or CRL closer than this to its nextUpdate raises manifest-expiring. */
  expiryMarginMs: number
  /** disagreement_seconds: RRDP and rsync may differ this long (rsync trails RRDP) before it is a finding. */
  disagreementMs: number
  /** child_revoke_days: how long a registry policy lets a delegated child stay non-functional (RIPE NCC 2025-02: 90 days). */
  childRevokeMs: number
}

/**
 * Stored with the CA's liveness (liveness_state.state): changing this shape needs a migration. What the rules remember
 * of one publication point between checks.
 */
export interface PointMemory {
  /** The most recent manifests seen (SHA-256 hex), with when each transport first served it (ms). */
  manifests: { hash: string; first: Partial<Record<Transport, number>> }[]
  /** Since when RRDP and rsync have disagreed without a break (ms). */
  disagreementSince?: number
  /** The last measured rsync lag (ms). */
  rsyncLagMs?: number
}

/** Manifests remembered per point: enough for rsync to catch up with a few RRDP serials. */
const MANIFESTS_KEPT = 8

/** What one check observed of one point: each transport's PointSeen and every finding (point-check.ts). */
export interface PointObservation {
  dir: string
  keyId?: string
  role?: PointLiveness['role']
  seen: Partial<Record<Transport, PointSeen>>
  findings: readonly Finding[]
  /** When the point's own certificate ends (ms), when known. */
  certExpires?: number
}

//------------ Points ------------------------------------------------------------------------------------------------

/**
 * One point's liveness at `now`, and what to remember for the next check. Functional as registries define it (RIPE NCC
 * 2025-02, APNIC prop-166): a current, valid manifest and CRL over at least one transport. A transport disagreement
 * counts only once it lasted `disagreementMs` (rsync trails RRDP by design); the rsync lag is when rsync first served a
 * manifest minus when RRDP first served it (never below 0).
 */
export function pointLiveness(o: PointObservation, memory: PointMemory | undefined, now: number, rules: LivenessRules): { liveness: PointLiveness; memory: PointMemory } {
  const seen = Object.values(o.seen)
  const functional = seen.some((s) => s.reachable && s.valid)
  const disagreeing = o.findings.some((f) => f.kind === 'transport-disagreement')
  const disagreementSince = disagreeing ? (memory?.disagreementSince ?? now) : undefined
  const lasted = disagreementSince !== undefined && now - disagreementSince >= rules.disagreementMs
  const findings = o.findings.filter((f) => f.kind !== 'transport-disagreement' || lasted)
  const next: PointMemory = { manifests: rememberManifests(memory?.manifests ?? [], o.seen), ...(disagreementSince !== undefined ? { disagreementSince } : {}) }
  const lag = rsyncLag(next.manifests, o.seen.rsync?.manifestHash)
  const rsyncLagMs = lag ?? memory?.rsyncLagMs
  if (rsyncLagMs !== undefined) next.rsyncLagMs = rsyncLagMs
  const liveness: PointLiveness = { dir: o.dir, seen: o.seen, findings, functional }
  if (o.keyId !== undefined) liveness.keyId = o.keyId
  if (o.role !== undefined) liveness.role = o.role
  const mft = earliest(seen.filter((s) => s.reachable).map((s) => s.manifestNextUpdate))
  const crl = earliest(seen.filter((s) => s.reachable).map((s) => s.crlNextUpdate))
  if (mft !== undefined) liveness.manifestExpires = mft
  if (crl !== undefined) liveness.crlExpires = crl
  if (o.certExpires !== undefined) liveness.certExpires = o.certExpires
  if (rsyncLagMs !== undefined) liveness.rsyncLagMs = rsyncLagMs
  return { liveness, memory: next }
}

function rememberManifests(before: PointMemory['manifests'], seen: Partial<Record<Transport, PointSeen>>): PointMemory['manifests'] {
  const out = before.map((m) => ({ hash: m.hash, first: { ...m.first } }))
  for (const s of Object.values(seen)) {
    if (!s.reachable || s.manifestHash === undefined) continue
    let m = out.find((x) => x.hash === s.manifestHash)
    if (!m) {
      m = { hash: s.manifestHash, first: {} }
      out.push(m)
    }
    m.first[s.transport] ??= s.at
  }
  return out.slice(-MANIFESTS_KEPT)
}

/** rsync's lag for the manifest rsync serves now, when RRDP served it first (or at the same check). */
function rsyncLag(manifests: PointMemory['manifests'], rsyncHash: string | undefined): number | undefined {
  const m = rsyncHash === undefined ? undefined : manifests.find((x) => x.hash === rsyncHash)
  if (m?.first.rrdp === undefined || m.first.rsync === undefined) return undefined
  return Math.max(0, m.first.rsync - m.first.rrdp)
}

function earliest(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined)
  return known.length ? Math.min(...known) : undefined
}

//------------ CAs and children --------------------------------------------------------------------------------------

/** A CA's liveness: functional when every current key's point is (a CA without a certified key has nothing to serve). */
export function caLiveness(ca: string, points: PointLiveness[], children: ChildLiveness[], lastGoodFetch: CaLiveness['lastGoodFetch'], checkedAt: number, previous?: CaLiveness): CaLiveness {
  const functional = points.filter((p) => (p.role ?? 'current') === 'current').every((p) => p.functional)
  const failing = points.some((p) => p.findings.some((f) => f.kind !== 'expiring'))
  return { ca, checkedAt, lastGoodFetch, points, children, functional, ...(failing ? { failingChecks: (previous?.failingChecks ?? 0) + 1 } : {}) }
}

/** Checks in a row that must find a problem before it is an alarm (the second confirms the first: no race with a publication). */
export const CONFIRMING_CHECKS = 2

/**
 * A delegated child's liveness: `nonFunctionalSince` is kept from the previous check while it stays non-functional
 * (and set now when it becomes so), and `revokeAt` is when a registry policy of `childRevokeMs` would revoke it.
 */
export function childLiveness(child: string, point: PointLiveness, previous: ChildLiveness | undefined, now: number, rules: LivenessRules): ChildLiveness {
  if (point.functional) return { child, point }
  const since = previous?.nonFunctionalSince ?? now
  return { child, point, nonFunctionalSince: since, revokeAt: since + rules.childRevokeMs }
}

/** The earliest manifest, CRL and certificate end, and the largest rsync lag, among a CA's current points. */
export function caSummary(c: CaLiveness): { manifestExpires?: number; crlExpires?: number; certExpires?: number; rsyncLagMs?: number } {
  const current = c.points.filter((p) => (p.role ?? 'current') === 'current')
  const out: ReturnType<typeof caSummary> = {}
  const mft = earliest(current.map((p) => p.manifestExpires))
  const crl = earliest(current.map((p) => p.crlExpires))
  const cert = earliest(current.map((p) => p.certExpires))
  const lags = current.map((p) => p.rsyncLagMs).filter((v): v is number => v !== undefined)
  if (mft !== undefined) out.manifestExpires = mft
  if (crl !== undefined) out.crlExpires = crl
  if (cert !== undefined) out.certExpires = cert
  if (lags.length) out.rsyncLagMs = Math.max(...lags)
  return out
}

//------------ Conditions --------------------------------------------------------------------------------------------

/** A finding in one line: "rsync: missing rsync://…/x.roa", "rrdp: unreachable: connection refused". */
export function describeFinding(f: Finding): string {
  const where = f.transport ? `${f.transport}: ` : ''
  const detail = f.kind === 'unreachable' ? f.detail.replace(/^unreachable: /, '') : f.detail
  return f.uri ? `${where}${f.kind} ${f.uri}${f.detail && f.kind !== 'missing' && f.kind !== 'extra' ? ` (${f.detail})` : ''}` : `${where}${f.kind}: ${detail}`
}

function firstReason(findings: readonly Finding[], fallback: string): string {
  const [first] = findings
  if (!first) return fallback
  return findings.length > 1 ? `${describeFinding(first)} (and ${findings.length - 1} more)` : describeFinding(first)
}

const hours = (ms: number) => `${Math.max(0, ms / HOUR).toFixed(1)} hours`

/** The findings a CA's repository-check-failed reports: every kind but expiry (manifest-expiring's). */
function checkFindings(c: CaLiveness): Finding[] {
  return c.points.flatMap((p) => p.findings.filter((f) => f.kind !== 'expiring'))
}

/**
 * The liveness alarms (source "liveness"), one row per kind: which CAs' (or children's) state raises it, and why. The
 * one place that decides what follows a check, as Krill's mq.rs decides what follows each event.
 */
const ALARMS: readonly { kind: AlarmKind; of: (c: CaLiveness, now: number, rules: LivenessRules) => Omit<Condition, 'kind'>[] }[] = [
  {
    // The relying-party view found a problem in one of the CA's points (missing, extra, changed, stale, invalid, unreachable, disagreement).
    kind: 'repository-check-failed',
    of: (c) => {
      const found = checkFindings(c)
      return found.length && (c.failingChecks ?? 0) >= CONFIRMING_CHECKS ? [{ ca: c.ca, subject: c.ca, reason: firstReason(found, 'failed') }] : []
    },
  },
  {
    // The manifest or CRL relying parties see ends within the margin (its nextUpdate; RFC 9286 §4.2.1, RFC 6487 §5).
    kind: 'manifest-expiring',
    of: (c, now, rules) => {
      const s = caSummary(c)
      const which = s.crlExpires !== undefined && (s.manifestExpires === undefined || s.crlExpires < s.manifestExpires) ? 'CRL' : 'manifest'
      const ends = which === 'CRL' ? s.crlExpires : s.manifestExpires
      if (ends === undefined || ends - now >= rules.expiryMarginMs) return []
      return [{ ca: c.ca, subject: c.ca, reason: `${which} ${ends <= now ? 'expired' : `expires in ${hours(ends - now)}`} (nextUpdate ${new Date(ends).toISOString()})` }]
    },
  },
  {
    // A delegated child publishing elsewhere is not functional; a registry policy would revoke it at revokeAt.
    kind: 'child-nonfunctional',
    // Non-functional at the previous check too (since before this one): confirmed, as repository-check-failed is.
    of: (c, _now, rules) => c.children.filter((ch) => !ch.point.functional && ch.nonFunctionalSince !== undefined && ch.nonFunctionalSince < (c.checkedAt ?? 0)).map((ch) => {
      const why = firstReason(ch.point.findings.filter((f) => f.kind !== 'expiring'), 'no current, valid manifest and CRL')
      const revoke = ch.revokeAt === undefined ? '' : `; a ${Math.round(rules.childRevokeMs / (24 * HOUR))}-day policy would revoke it at ${new Date(ch.revokeAt).toISOString()}`
      return { ca: c.ca, subject: `${c.ca}/${ch.child}`, reason: `${why}${revoke}` }
    }),
  },
]

/** Every liveness condition that holds now among `all` (CAs never checked raise nothing). */
export function conditions(all: readonly CaLiveness[], now: number, rules: LivenessRules): Condition[] {
  const out: Condition[] = []
  for (const c of all) {
    if (c.checkedAt === undefined) continue
    for (const a of ALARMS) for (const x of a.of(c, now, rules)) out.push({ kind: a.kind, ...x })
  }
  return out
}

/** What changed between two checks of a CA, for the log (one line per change, none when nothing changed). */
export function transitions(before: CaLiveness | undefined, after: CaLiveness): { subject: string; functional: boolean; reason?: string }[] {
  const out: { subject: string; functional: boolean; reason?: string }[] = []
  const was = before?.checkedAt === undefined ? undefined : before.functional
  const why = (ps: readonly PointLiveness[]) => firstReason(ps.flatMap((p) => p.findings), 'no current, valid manifest and CRL')
  if (was !== after.functional && (was !== undefined || !after.functional)) out.push({ subject: after.ca, functional: after.functional, ...(after.functional ? {} : { reason: why(after.points.filter((p) => !p.functional)) }) })
  for (const ch of after.children) {
    const prev = before?.children.find((x) => x.child === ch.child)
    const wasChild = prev?.point.functional
    if (wasChild !== ch.point.functional && (wasChild !== undefined || !ch.point.functional)) out.push({ subject: `${after.ca}/${ch.child}`, functional: ch.point.functional, ...(ch.point.functional ? {} : { reason: why([ch.point]) }) })
  }
  return out
}
