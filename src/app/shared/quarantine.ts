/**
 * The quarantine (issue 26 §5, Krill #1384): a task, a CA or a publication object that cannot be decoded or run
 * because of what is stored is set aside here, with the error and the raw row: logged once, reported (the bulk issues'
 * `quarantined` list, the `task-quarantined` condition, `svc_quarantined{what}`), and never retried in a loop. Every
 * other task, CA and publisher goes on. An operator lists and drops items (GET/DELETE /api/v1/quarantine); dropping a
 * CA that still does not decode sets it aside again when next read.
 */
import type { QuarantinedJson } from '../../api/quarantine.js'
import type { Logger } from '../../log.js'
import type { Condition } from '../../liveness/model.js'
import type { QuarantineStore, QuarantinedItem } from '../../store/quarantine-interfaces.js'
import type { Clock } from '../../util/clock.js'
import type { QuarantineWhat, StoredDataError } from '../../util/stored-data.js'

export class Quarantine {
  /** (what, subject) of every item, read once and kept in step (the store is the truth across restarts). */
  private readonly known = new Set<string>()

  constructor(private readonly d: { store: QuarantineStore; clock: Clock; log: Logger; changed?: () => void }) {
    for (const i of d.store.list()) this.known.add(key(i.what, i.subject))
  }

  /** Set aside what `e` names; logged the first time only. True when it was not set aside before. */
  put(e: StoredDataError, raw = e.raw): boolean {
    const k = key(e.what, e.subject)
    if (this.known.has(k)) return false
    this.d.store.put({ what: e.what, subject: e.subject, reason: e.message.slice(0, 1000), raw: raw.slice(0, 4096), at: this.d.clock.now() })
    this.known.add(k)
    this.d.log.error(`${e.what} quarantined: it cannot be decoded or run; everything else goes on`, { what: e.what, subject: e.subject, reason: e.message })
    this.d.changed?.()
    return true
  }

  has(what: QuarantineWhat, subject: string): boolean {
    return this.known.has(key(what, subject))
  }

  list(): QuarantinedJson[] {
    return this.d.store.list().map(json)
  }

  /** Forget an item (the operator repaired or gave up on it); false when there is none with this id. */
  drop(id: number): boolean {
    const item = this.d.store.get(id)
    if (!item || !this.d.store.drop(id)) return false
    this.known.delete(key(item.what, item.subject))
    this.d.log.info('quarantined item dropped', { what: item.what, subject: item.subject })
    this.d.changed?.()
    return true
  }

  /** How many items of each kind (svc_quarantined{what}). */
  counts(): Record<QuarantineWhat, number> {
    const out: Record<QuarantineWhat, number> = { task: 0, ca: 0, publication: 0 }
    for (const k of this.known) out[k.slice(0, k.indexOf('\0')) as QuarantineWhat]++
    return out
  }

  /** The `task-quarantined` conditions (source "queues"): one per item, subject the task key (or CA, or object). */
  conditions(): Condition[] {
    return this.d.store.list().map((i) => ({ kind: 'task-quarantined' as const, ...(i.what === 'ca' ? { ca: i.subject } : {}), subject: i.what === 'task' ? i.subject : `${i.what}:${i.subject}`, reason: i.reason }))
  }
}

function key(what: string, subject: string): string {
  return `${what}\0${subject}`
}

function json(i: QuarantinedItem): QuarantinedJson {
  return { id: i.id, what: i.what, subject: i.subject, reason: i.reason, ...(i.what === 'task' ? { raw: i.raw } : {}), at: new Date(i.at).toISOString() }
}
