/**
 * The CA side of timed work (design.md "Scheduler"): what a scheduled task does, and at start the tasks every CA
 * must have (a 'republish' task: kept at its stored due time, so renewals due while svcd was stopped happen at once
 * and the others when due; created due now when missing, and moved to now for a CA whose last repository sync
 * failed, or for every CA when asked (a signer back); a 'sync-parent' task per parent, due within a jittered minute).
 * A start with 10,000 CAs thus does not republish them all right after it (issue 28).
 */
import type { Task, TaskKind } from '../../store/interfaces.js'
import { WIRE_HANDLE } from '../../util/handle.js'
import { StoredDataError, storedDataError } from '../../util/stored-data.js'
import type { CaCommands } from './ca-commands.js'
import type { CaPublisher } from './ca-publisher.js'
import type { ParentService } from './parent-service.js'
import type { TaskScheduling } from './ports.js'

export interface CaTasksDeps {
  commands: Pick<CaCommands, 'exists' | 'handles' | 'state'>
  publisher: Pick<CaPublisher, 'publishNow' | 'nextRepublish'>
  /** Parent syncs, and when a parent is next due (interval with jitter: ParentService.refreshDelay). */
  parents: Pick<ParentService, 'sync' | 'refreshDelay'>
  tasks: Pick<TaskScheduling, 'schedule'>
  /** Whether the CA's last repository sync failed (the task is then retried with back-off). */
  repoFailure: (ca: string) => string | undefined
  now: () => Date
  /** Suspend the CA's inactive children, when configured (ChildService.suspendInactive), every this many ms. */
  suspendInactive?: { run: (ca: string) => Promise<void>; everyMs: number }
  /** Retire the embedded trust anchor's old key when due (ta/ta-keyroll-service.ts); answers when to look again. */
  taKeyRollFinish?: (ca: string) => Promise<number | undefined>
  /** One transaction around many task writes. */
  transaction: <T>(fn: () => T) => T
  /** Issue 26 §5: whether a CA is set aside (its tasks wait), and where a CA that does not decode is set aside. */
  quarantine?: { has(what: 'ca', ca: string): boolean; put(e: StoredDataError): void }
}

/** Tasks wait this long when their CA is set aside (it is looked at again then: an operator may have repaired it). */
const QUARANTINED_CA_WAIT_MS = 3600_000
/** Every TaskKind (the type makes a new kind a compile error here until it is listed). */
const KIND_LIST: Record<TaskKind, true> = { republish: true, 'sync-parent': true, 'suspend-children': true, 'ta-keyroll-finish': true }
const KINDS: ReadonlySet<string> = new Set(Object.keys(KIND_LIST))

/** A task row that does not decode: an unknown kind, or an argument its kind does not take (issue 26 §5). */
export function checkTask(task: Task): void {
  const raw = JSON.stringify(task)
  if (!KINDS.has(task.kind)) throw new StoredDataError('task', task.key, `unknown task kind ${JSON.stringify(String(task.kind).slice(0, 80))}`, raw)
  const argOk = task.kind === 'sync-parent' ? WIRE_HANDLE.test(task.arg) : task.arg === ''
  if (!argOk) throw new StoredDataError('task', task.key, `the argument of a ${task.kind} task does not decode`, raw)
}

export class CaTasks {
  constructor(private readonly d: CaTasksDeps) {}

  /**
   * Every CA has its tasks (created if missing: a CA made by an older version, or a task lost), in one transaction.
   * With `republishAll` every CA's republish is due now (what failed while a signer was away is redone).
   */
  resume(opts: { republishAll?: boolean } = {}): void {
    const d = this.d
    const now = d.now().getTime()
    d.transaction(() => {
      for (const ca of d.commands.handles()) {
        let parents: string[]
        try {
          parents = Object.keys(d.commands.state(ca).parents)
        } catch (e) {
          // A CA whose stored state does not decode is set aside; every other CA resumes (issue 26 §5).
          const stored = storedDataError(e)
          if (!stored || !d.quarantine) throw e
          d.quarantine.put(stored)
          continue
        }
        const republishNow = opts.republishAll === true || d.repoFailure(ca) !== undefined
        d.tasks.schedule('republish', ca, '', now, republishNow ? { earlier: true } : { ifMissing: true })
        if (d.suspendInactive) d.tasks.schedule('suspend-children', ca, '', now + d.suspendInactive.everyMs, { earlier: true })
        for (const p of parents) d.tasks.schedule('sync-parent', ca, p, now + d.parents.refreshDelay(true), { earlier: true })
      }
    })
  }

  /** Run a scheduled task and say when it is next due (undefined: drop it). Throws on failure (retried later). */
  async run(task: Task): Promise<number | undefined> {
    const d = this.d
    checkTask(task)
    if (!d.commands.exists(task.ca)) return undefined
    if (d.quarantine?.has('ca', task.ca)) return d.now().getTime() + QUARANTINED_CA_WAIT_MS
    if (task.kind === 'republish') {
      await d.publisher.publishNow(task.ca)
      const failure = d.repoFailure(task.ca)
      if (failure !== undefined) throw new Error(`repository sync failed: ${failure}`)
      return d.publisher.nextRepublish(task.ca)
    }
    if (task.kind === 'suspend-children') {
      if (!d.suspendInactive) return undefined
      await d.suspendInactive.run(task.ca)
      return d.now().getTime() + d.suspendInactive.everyMs
    }
    if (task.kind === 'ta-keyroll-finish') return d.taKeyRollFinish?.(task.ca)
    if (!d.commands.state(task.ca).parents[task.arg]) return undefined
    await d.parents.sync(task.ca, task.arg)
    return d.now().getTime() + d.parents.refreshDelay(false)
  }
}
