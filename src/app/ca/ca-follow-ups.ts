/**
 * The one component that does what follows a change of a CA (follow-ups.ts has the table): CaCommands tells it of every
 * saved command and of every new CA, whoever ran it, and it asks the publisher, the parent service and the scheduler
 * for what the events call for. Publication is coalesced per CA by the publisher's pacer, so a burst of changes is one
 * publication; parent syncs that come with a publication start once it is done. A follow-up that fails is logged: the
 * command is saved, and the scheduler's tasks (republish, sync-parent) catch up later.
 */
import type { CaEvent } from '../../ca/events.js'
import type { CaState } from '../../ca/state.js'
import { reasonOf } from '../../errors.js'
import type { Logger } from '../../log.js'
import type { AfterCommand, CaCommands } from './ca-commands.js'
import type { CaPublisher } from './ca-publisher.js'
import { createdFollowUps, followUpsOf, tableProblems, FOLLOW_UPS, type FollowUp, type FollowUpTable } from './follow-ups.js'
import type { ParentService } from './parent-service.js'
import type { TaskScheduling } from './ports.js'

export interface CaFollowUpsDeps {
  /** The commands whose follow-ups this component applies (it registers itself with them). */
  commands: Pick<CaCommands, 'follow'>
  publisher: Pick<CaPublisher, 'publish' | 'flushed' | 'nextRepublish'>
  parents: Pick<ParentService, 'syncLater' | 'syncAllLater' | 'syncLocalChildren' | 'scheduleRefresh' | 'forget'>
  tasks: Pick<TaskScheduling, 'schedule'>
  log: Logger
  /** The table (tests hand in others). */
  table?: FollowUpTable
}

export class CaFollowUps implements AfterCommand {
  private readonly table: FollowUpTable
  /** Follow-ups waiting for a publication before they start (parent syncs), until they did. */
  private readonly waiting = new Set<Promise<void>>()

  constructor(private readonly d: CaFollowUpsDeps) {
    this.table = d.table ?? FOLLOW_UPS
    // Checked at start as the unit test checks it: an event kind without an entry would publish nothing.
    const problems = tableProblems(this.table)
    if (problems.length) throw new Error(`the CA follow-up table is incomplete: ${problems.join('; ')}`)
    d.commands.follow(this)
  }

  /** A command changed CA `handle`: do what its events call for. Resolves once the publication, if any, is done. */
  changed(handle: string, events: readonly CaEvent[], state: CaState): Promise<void> {
    return this.apply(handle, followUpsOf(events, state, this.table))
  }

  /** CA `handle` was created. */
  created(handle: string): Promise<void> {
    return this.apply(handle, createdFollowUps())
  }

  /** Resolves when no follow-up waits for a publication (the parent syncs it holds are then asked for). */
  async idle(): Promise<void> {
    while (this.waiting.size) await Promise.all([...this.waiting])
  }

  /** Start every follow-up; parent syncs after the publication when there is one. Never rejects. */
  private apply(ca: string, followUps: readonly FollowUp[]): Promise<void> {
    if (followUps.length === 0) return Promise.resolve()
    const publishes = followUps.some((f) => f.kind === 'publish')
    const isSync = (f: FollowUp) => f.kind === 'sync-parent' || f.kind === 'sync-parents'
    for (const f of followUps) if (!publishes || !isSync(f)) this.run(ca, f)
    if (!publishes) return Promise.resolve()
    const after = followUps.filter(isSync)
    const done = this.d.publisher.flushed(ca).then(
      () => after.forEach((f) => this.run(ca, f)),
      (e: unknown) => this.failed(ca, { kind: 'publish' }, e),
    )
    if (after.length === 0) return done
    this.waiting.add(done)
    return done.finally(() => this.waiting.delete(done))
  }

  /** One follow-up; a failure is logged, never thrown (the command is saved; the scheduled tasks catch up). */
  private run(ca: string, f: FollowUp): void {
    const d = this.d
    try {
      switch (f.kind) {
        case 'publish': return d.publisher.publish(ca)
        case 'sync-parent': return d.parents.syncLater(ca, f.parent)
        case 'sync-parents': return d.parents.syncAllLater(ca)
        case 'sync-child': return d.parents.syncLocalChildren(ca, f.child)
        case 'sync-children': return d.parents.syncLocalChildren(ca)
        case 'refresh-parent': return d.parents.scheduleRefresh(ca, f.parent)
        case 'forget-parent': return d.parents.forget(ca, f.parent)
        case 'schedule-renewal': return d.tasks.schedule('republish', ca, '', d.publisher.nextRepublish(ca))
      }
    } catch (e) {
      this.failed(ca, f, e)
    }
  }

  private failed(ca: string, f: FollowUp, e: unknown): void {
    this.d.log.error('a follow-up of a CA change failed', { ca, follow_up: f.kind, err: reasonOf(e) })
  }
}
