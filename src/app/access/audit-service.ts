/**
 * The audit trail (design.md §9): who did what, across CAs and the publication server. `record` names the current
 * actor (app/shared/acting.ts) unless told otherwise (a failed login has no actor yet: it names the user id tried).
 * Never a secret: callers pass what was done and on what, not the credentials.
 */
import type { AuditQuery, AuditRecord, AuditStore } from '../../store/interfaces.js'
import type { Clock } from '../../util/clock.js'
import { currentActor, type ActingAs } from '../shared/acting.js'

export interface AuditEntry {
  kind: string
  ca?: string
  success?: boolean
  details?: Record<string, unknown>
  /** Who, when not the current actor. */
  actor?: ActingAs
}

export class AuditService {
  constructor(private readonly d: { store: AuditStore; clock: Clock }) {}

  record(e: AuditEntry): number {
    const a = e.actor ?? currentActor()
    return this.d.store.append({ time: this.d.clock.now(), actor: a.id, provider: a.provider, token: a.token, kind: e.kind, ca: e.ca, success: e.success ?? true, source: a.source, details: e.details ?? {} })
  }

  list(q: AuditQuery): { total: number; records: AuditRecord[] } {
    return this.d.store.list(q)
  }
}
