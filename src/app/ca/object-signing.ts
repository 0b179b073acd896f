/**
 * What the per-key object planners share (objects.ts for ROAs, child certificates, manifests and CRLs; aspa-objects.ts
 * for ASPAs): the work list of a key's previous objects, the library self-check every new object passes before it may
 * be published, EE validity, and disposal of one-off keys.
 */
import type { StoredCaObject } from '../../ca/object-model.js'
import type { OneOffKey } from '../../crypto/signer.js'
import { errorsOf, formatProblem, type Problem } from '../../objects/problem.js'

/** What a key's previous objects become: kept as they are, replaced (old one revoked), or gone (revoked). */
export interface KeyWork {
  kept: StoredCaObject[]
  /** Previous ROAs, ASPAs and certificates not yet accounted for: what is left at the end is withdrawn. */
  old: Map<string, StoredCaObject>
  revoke(o: StoredCaObject): void
  changed: boolean
}

/** The validity of a one-off EE certificate: from five minutes back (peers' clocks) to `validSeconds` ahead, within the issuer's. */
export function eeValidity(now: Date, validSeconds: number, issuerNotAfter: Date): { notBefore: Date; notAfter: Date } {
  return {
    notBefore: new Date(Math.floor(now.getTime() / 1000) * 1000 - 5 * 60_000),
    notAfter: new Date(Math.min(now.getTime() + validSeconds * 1000, issuerNotAfter.getTime())),
  }
}

/** Run a decode + verify + inspect; undefined when the object is fine, else the problems as text. */
export function selfCheck(check: () => Problem[]): string | undefined {
  try {
    const errors = errorsOf(check())
    return errors.length ? errors.map(formatProblem).join('; ') : undefined
  } catch (e) {
    return (e as Error).message
  }
}

/** Destroy a one-off key, ignoring one that is already gone. */
export function destroy(k: OneOffKey): void {
  try {
    k.destroy()
  } catch {
    /* already gone */
  }
}

