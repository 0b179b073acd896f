/**
 * What each CA believes it published (design.md §11, issue 26 §1): one BelievedPoint per certified key (RFC 6489 key
 * states: current, next, old), read from the CA's state (classes, keys, repository: ca/locations.ts) and the stored
 * objects' names and hashes (CaObjectsStore.summaries: no object bytes read). The embedded TA's own certificates are
 * files of its current point. Used by liveness-service.ts.
 */
import type { CaKeySummary } from '../../ca/object-model.js'
import { classDir } from '../../ca/locations.js'
import { certifiedKeys, type CaState } from '../../ca/state.js'
import { sha256Hex } from '../../crypto/digest.js'
import type { BelievedPoint, PointLiveness } from '../../liveness/model.js'
import { crlFileName, manifestFileName } from '../../objects/naming.js'
import { fromBase64 } from '../../util/base64.js'

/** A believed point with what the service needs beside it: the key's role and when its certificate ends (ms). */
export interface BelievedPointOf {
  point: BelievedPoint
  role: NonNullable<PointLiveness['role']>
  certExpires?: number
}

/** The CA's points: every certified key of every resource class (none without a repository). */
export function believedPoints(s: CaState, summaries: readonly CaKeySummary[]): BelievedPointOf[] {
  if (!s.repo) return []
  const out: BelievedPointOf[] = []
  for (const rc of Object.values(s.classes)) {
    for (const { role, key } of certifiedKeys(rc)) {
      const stored = summaries.find((k) => k.keyId === key.keyId)
      const dir = stored?.state.dir ?? classDir(s, rc.name)
      const files = new Map<string, string>()
      for (const o of stored?.objects ?? []) files.set(dir + o.name, o.hash)
      const caCert = fromBase64(key.cert.der)
      if (s.ta && role === 'current') {
        // The TA's own certificates (current, and a key roll's successor or predecessor) are published beside its tree.
        for (const c of [s.ta, s.ta.next, s.ta.old]) if (c) files.set(c.rsyncUri, sha256Hex(fromBase64(c.certDer)))
      }
      const point: BelievedPoint = {
        ca: s.handle, keyId: key.keyId, dir, rrdpNotificationUri: s.repo.rrdpNotificationUri,
        manifestUri: dir + manifestFileName(key.keyId), crlUri: dir + crlFileName(key.keyId),
        files, caCert,
      }
      const ends = Date.parse(key.cert.notAfter)
      out.push({ point, role, ...(Number.isNaN(ends) ? {} : { certExpires: ends }) })
    }
  }
  return out
}
