/**
 * Liveness (design.md §11, issue 26): the repository as relying parties see it. The shapes shared by the pure rules of
 * this folder (what a fetched publication point proves, when a CA is functional, which alarms are raised and cleared)
 * and the application services that fetch, schedule and alert (app/liveness/). Types and small pure helpers only.
 */

/** How relying parties fetch: RRDP (RFC 8182) over HTTPS, or rsync. */
export type Transport = 'rrdp' | 'rsync'
export const TRANSPORTS: readonly Transport[] = ['rrdp', 'rsync']

/**
 * What is wrong with a CA's publication point as fetched:
 * - `missing`: the CA published it, the transport does not have it;
 * - `extra`: the transport has a file in the CA's directory the CA did not publish;
 * - `changed`: the transport has other bytes than the CA published under that name;
 * - `stale`: the manifest or CRL the transport serves is past its nextUpdate, or older than the CA's current one for
 *   longer than the output bound;
 * - `invalid`: an object fails the strict checks (the finding's `rule` names the RFC section or rpki-client rule);
 * - `unreachable`: the transport could not be fetched (the finding's `detail` says why);
 * - `transport-disagreement`: RRDP and rsync serve different bytes for the same URI for longer than the output bound;
 * - `expiring`: a manifest, CRL or certificate is within the configured margin of its end.
 */
export type FindingKind = 'missing' | 'extra' | 'changed' | 'stale' | 'invalid' | 'unreachable' | 'transport-disagreement' | 'expiring'

export interface Finding {
  kind: FindingKind
  /** The transport it was seen over; absent when it concerns both (expiry, disagreement). */
  transport?: Transport
  /** The rsync URI of the object concerned; absent for a whole repository (unreachable). */
  uri?: string
  /** The rule broken, as the objects layer names it ("RFC 9286 §4.2.1", "rpki-client: exactly one CRL on the manifest"). */
  rule?: string
  detail: string
}

/** What one transport returned for one repository at one time: rsync URI → bytes; `error` when the fetch failed. */
export interface FetchedRepository {
  transport: Transport
  /** What was fetched: the notification URI (RRDP) or the rsync base URI (rsync). */
  source: string
  /** When the fetch ended (ms since the epoch). */
  at: number
  /** Why the fetch failed (no files then); absent on success. */
  error?: string
  files: ReadonlyMap<string, Uint8Array>
  /** RRDP: the session and serial the files are from. */
  session?: string
  serial?: number
}

/**
 * What a CA believes it published in one publication point (one key's directory, RFC 6481): every file with its
 * SHA-256 (hex, lowercase), and the certificate of that key (to check the manifest and CRL against).
 */
export interface BelievedPoint {
  ca: string
  /** The key (RFC 6487 key identifier, hex) whose directory this is. */
  keyId: string
  /** The rsync URI of the directory, ending in '/'. */
  dir: string
  /** The RRDP notification URI relying parties find in the key's certificate (SIA id-ad-rpkiNotify). */
  rrdpNotificationUri: string
  manifestUri: string
  crlUri: string
  /** rsync URI → SHA-256 hex of what the CA published last. */
  files: ReadonlyMap<string, string>
  /** The key's resource certificate (DER), when the key is certified. */
  caCert?: Uint8Array
}

/** What a publication point looked like over one transport at one check. */
export interface PointSeen {
  transport: Transport
  at: number
  reachable: boolean
  /** The manifest number (decimal string: RFC 9286 numbers go to 2^159) and its window, when a manifest decoded. */
  manifestNumber?: string
  manifestThisUpdate?: number
  manifestNextUpdate?: number
  crlNextUpdate?: number
  /** SHA-256 hex of the manifest served (to measure when rsync serves what RRDP served). */
  manifestHash?: string
  /** True when the manifest and its CRL are present, current and valid (and so every file they list is as listed). */
  valid: boolean
}

/** Liveness of one publication point (a key of a CA, or a delegated child's point in another repository). */
export interface PointLiveness {
  dir: string
  keyId?: string
  seen: Partial<Record<Transport, PointSeen>>
  findings: Finding[]
  /** Functional as registries define it (RIPE NCC 2025-02, APNIC prop-166): a current, valid manifest and CRL reachable by relying parties over at least one transport. */
  functional: boolean
  /** Earliest end among the manifest and CRL served, and among the certificates (ms), when known. */
  manifestExpires?: number
  crlExpires?: number
  certExpires?: number
  /** How long rsync trailed RRDP in serving the current manifest (ms), the last time it was measured. */
  rsyncLagMs?: number
  /** Which of the CA's keys the point is (RFC 6489): only `current` keys decide whether the CA is functional; absent: current. */
  role?: 'current' | 'next' | 'old'
}

/** A delegated child that publishes outside this svcd, as its parent sees it (read from the SIA of the certificate it issued). */
export interface ChildLiveness {
  child: string
  point: PointLiveness
  /** Since when it has been non-functional without a break (ms), as observed by this svcd. */
  nonFunctionalSince?: number
  /** When a registry policy of `revoke_after_days` would revoke it (nonFunctionalSince + the days), when non-functional. */
  revokeAt?: number
}

/** A CA's liveness: each of its publication points, its children elsewhere, and the summary. */
export interface CaLiveness {
  ca: string
  checkedAt?: number
  /** The last fetch per transport that reached the repository (ms). */
  lastGoodFetch: Partial<Record<Transport, number>>
  points: PointLiveness[]
  children: ChildLiveness[]
  functional: boolean
  /**
   * How many checks in a row, this one included, found something wrong in the CA's points (absent: none). An alarm
   * waits for the second: a check that races a publication (the CA already believes a CRL the repository serves a
   * moment later) finds a difference once and not again.
   */
  failingChecks?: number
}

/**
 * The alarms (issue 26 §3), each raised by a condition and cleared when it no longer holds. The webhook event names,
 * the `kind` of GET /api/v1/alerts and the `alarm` label of svc_alarm_active are these strings.
 */
export type AlarmKind =
  | 'repository-check-failed' // the relying-party view found a problem in the CA's publication point (missing, extra, changed, stale, invalid, unreachable, disagreement)
  | 'manifest-expiring' // a manifest or CRL the relying parties see is within [liveness] expiry_margin_hours of its nextUpdate
  | 'publish-stalled' // accepted changes have not reached RRDP within [liveness] stall_seconds
  | 'child-nonfunctional' // a delegated child that publishes elsewhere is not functional
  | 'task-quarantined' // a task or stored row could not be decoded or run and was set aside
  | 'service-stalled' // the scheduler, a pacer or leadership made no progress within its bound
export const ALARM_KINDS: readonly AlarmKind[] = ['repository-check-failed', 'manifest-expiring', 'publish-stalled', 'child-nonfunctional', 'task-quarantined', 'service-stalled']

/** A condition that holds now: an alarm of `kind` about `subject` (a CA handle, `ca/child`, a task key or a component). */
export interface Condition {
  kind: AlarmKind
  /** The CA concerned, when there is one. */
  ca?: string
  /** What within the kind the alarm is about: a CA handle, "ca1/child" for a child, a task key, "scheduler". */
  subject: string
  /** Why, in one line (the first finding, the hours left, the task's decode error). */
  reason: string
}

/** The identity of an alarm: one per kind and subject. */
export function alarmKey(c: Pick<Condition, 'kind' | 'subject'>): string {
  return `${c.kind}:${c.subject}`
}
