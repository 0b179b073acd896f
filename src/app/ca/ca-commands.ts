/**
 * CA commands and state (design.md §6): the one way the CA service reads a CA and changes it. Commands on one CA
 * run one at a time (a keyed lock); each is checked, applied and stored with its history entry in one transaction
 * (eventsourcing.ts), and then what follows it is done by the one listener (ca-follow-ups.ts applies the table of
 * follow-ups.ts): every command, whoever runs it, goes through here. The state handed out is the store's read-only copy.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { certAuthType } from '../../ca/cert-auth.js'
import type { CaCommand } from '../../ca/commands.js'
import type { CaContext } from '../../ca/context.js'
import type { CaEvent } from '../../ca/events.js'
import type { CaState } from '../../ca/state.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError } from '../../errors.js'
import { runCommand, type AggregateStore, type RunResult, type StoredCommand } from '../../eventsourcing.js'
import type { CaStore, SharedLocks } from '../../store/interfaces.js'
import { actorFields, currentActor, detached, SYSTEM_ACTOR, type ActingAs } from '../shared/acting.js'
import { KeyedMutex } from '../shared/keyed-mutex.js'

export interface CaCommandsDeps {
  store: CaStore
  signer: Signer
  now: () => Date
  /** n random bytes (serial numbers). */
  random: (n: number) => Uint8Array
  timing: CaContext['timing']
  /** Several instances on one database: the CA's lock among them, held with the in-process one. */
  locks?: SharedLocks | undefined
  /** One transaction over the CA store and the audit trail's (Stores.transaction): a command and its audit record land together. */
  transaction?: <T>(fn: () => T) => T
}

/** Options of one command. */
export interface RunOptions {
  /**
   * Called with the history version inside the transaction that stores the command, when it succeeded and changed the
   * CA; throwing there rolls the command back.
   */
  onSaved?: (seq: number) => void
}

/** Told of every command stored in a CA's history (the audit trail), inside the transaction that stores it. */
export type CommandAudit = (cmd: Omit<StoredCommand, 'seq'>, seq?: number) => void

/** What follows a saved change (CaFollowUps): told of every command that changed a CA, and of every new CA. */
export interface AfterCommand {
  /** Resolves once the follow-ups are done or under way (the publication done, syncs asked for); never rejects. */
  changed(handle: string, events: readonly CaEvent[], state: CaState): Promise<void>
  created(handle: string): Promise<void>
}

/** A command's result, and its follow-ups: a caller that answers only once the change is published awaits them. */
export interface CommandResult extends RunResult<CaState, CaEvent> {
  followUps: Promise<void>
}

export class CaCommands {
  /** Serialises commands per CA (and, with `locks`, among the instances). */
  private readonly lock: KeyedMutex
  private after: AfterCommand | undefined
  private audit: CommandAudit | undefined

  constructor(private readonly d: CaCommandsDeps) {
    this.lock = new KeyedMutex(d.locks)
  }

  /** Set the one listener that does what follows each change (CaFollowUps registers itself when built). */
  follow(after: AfterCommand): void {
    if (this.after) throw new Error('the CA commands already have their follow-ups')
    this.after = after
  }

  /** Set the one audit hook: every stored command (success or error) is also recorded there, in the same transaction. */
  audited(audit: CommandAudit): void {
    if (this.audit) throw new Error('the CA commands already have their audit')
    this.audit = audit
  }

  handles(): string[] {
    return this.d.store.handles()
  }

  exists(handle: string): boolean {
    return this.d.store.exists(handle)
  }

  /** The current state of a CA (read-only), or 404 `ca-unknown`. */
  state(handle: string): CaState {
    const s = this.d.store.load(handle)
    if (!s) throw new AppError('ca-unknown', { ca: handle })
    return s.state
  }

  /** The state's version, which changes with every command that changed the CA; undefined for an unknown CA. */
  version(handle: string): number | undefined {
    return this.d.store.version(handle)
  }

  /**
   * Run a command on a CA under its lock; records it in the history (and the audit trail) naming its actor: the
   * current one (a request's user or token, app/shared/acting.ts) unless given (`svc`, `child:<handle>`: svcd's own
   * work). Then its events' follow-ups start, as svcd's own work whoever ran the command: a publication, a renewal or a
   * parent's sync that follows a user's change is recorded as `svc`.
   */
  async run(handle: string, cmd: CaCommand, actor?: string | ActingAs, opts: RunOptions = {}): Promise<CommandResult> {
    const a = typeof actor === 'string' ? (actor === SYSTEM_ACTOR.id ? SYSTEM_ACTOR : { id: actor, provider: SYSTEM_ACTOR.provider }) : (actor ?? currentActor())
    const r = await this.lock.run(handle, () => runCommand(certAuthType(() => this.context()), this.auditedStore(opts.onSaved), handle, cmd, { ...actorFields(a), now: this.d.now(), pause: () => yieldToLoop() }))
    const after = this.after
    const followUps = r.events.length && after ? detached(() => after.changed(handle, r.events, r.state)) : Promise.resolve()
    return { ...r, followUps }
  }

  /**
   * The CA store, whose saves also write the audit record in the same transaction (when there is an audit), and do
   * what `onSaved` does there after a successful command (a plan marked applied with the change it applied).
   */
  private auditedStore(onSaved?: (seq: number) => void): AggregateStore<CaState> {
    const store = this.d.store
    const audit = this.audit
    if (!audit && !onSaved) return store
    const transaction = this.d.transaction ?? (<T>(fn: () => T) => fn())
    return {
      load: (handle) => store.load(handle),
      save: (cmd, state, version, prepared) =>
        transaction(() => {
          const seq = store.save(cmd, state, version, prepared)
          audit?.(cmd, seq)
          if (onSaved && cmd.effect.result === 'success') onSaved(seq)
          return seq
        }),
      ...(store.prepareSave ? { prepareSave: store.prepareSave.bind(store) } : {}),
    }
  }

  /** Run `fn` under the CA's command lock (creating or removing a CA). */
  locked<T>(handle: string, fn: () => Promise<T> | T): Promise<T> {
    return this.lock.run(handle, async () => fn())
  }

  /** Store a new CA with its first history entry (under `locked`); then its follow-ups start. */
  create(first: Omit<StoredCommand, 'seq'>, state: CaState): void {
    const transaction = this.d.transaction ?? (<T>(fn: () => T) => fn())
    transaction(() => {
      this.d.store.create(first, state)
      this.audit?.(first, 1)
    })
    const after = this.after
    if (after) void detached(() => after.created(first.handle))
  }

  /** Remove a CA with its history, objects and status (under `locked`). */
  remove(handle: string): void {
    const transaction = this.d.transaction ?? (<T>(fn: () => T) => fn())
    const summary = { label: 'cmd-ca-delete', msg: `Delete CA '${handle}'`, args: { ca: handle } }
    transaction(() => {
      this.d.store.remove(handle)
      this.audit?.({ handle, time: this.d.now().toISOString(), ...actorFields(), kind: 'ca-delete', summary, details: { type: 'ca-delete' }, effect: { result: 'success', events: [] } })
    })
  }

  /** What command processing may use besides the state. */
  context(): CaContext {
    return { now: this.d.now(), signer: this.d.signer, random: this.d.random, timing: this.d.timing, pause: () => yieldToLoop() }
  }
}
