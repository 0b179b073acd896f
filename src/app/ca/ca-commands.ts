/**
 * CA commands and state (design.md §6): the one way the CA service reads a CA and changes it. Commands on one CA
 * run one at a time (a keyed lock); each is checked, applied and stored with its history entry in one transaction
 * (eventsourcing.ts). The state handed out is the store's read-only copy.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { certAuthType } from '../../ca/cert-auth.js'
import type { CaCommand } from '../../ca/commands.js'
import type { CaContext } from '../../ca/context.js'
import type { CaEvent } from '../../ca/events.js'
import type { CaState } from '../../ca/state.js'
import type { Signer } from '../../crypto/signer.js'
import { AppError } from '../../errors.js'
import { runCommand, type RunResult, type StoredCommand } from '../../eventsourcing.js'
import type { CaStore, SharedLocks } from '../../store/interfaces.js'
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
}

export class CaCommands {
  /** Serialises commands per CA (and, with `locks`, among the instances). */
  private readonly lock: KeyedMutex

  constructor(private readonly d: CaCommandsDeps) {
    this.lock = new KeyedMutex(d.locks)
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

  /** Run a command on a CA under its lock; records it in the history. */
  run(handle: string, cmd: CaCommand, actor = 'admin-token'): Promise<RunResult<CaState, CaEvent>> {
    return this.lock.run(handle, () => runCommand(certAuthType(() => this.context()), this.d.store, handle, cmd, { actor, now: this.d.now(), pause: () => yieldToLoop() }))
  }

  /** Run `fn` under the CA's command lock (creating or removing a CA). */
  locked<T>(handle: string, fn: () => Promise<T> | T): Promise<T> {
    return this.lock.run(handle, async () => fn())
  }

  /** Store a new CA with its first history entry (under `locked`). */
  create(first: Omit<StoredCommand, 'seq'>, state: CaState): void {
    this.d.store.create(first, state)
  }

  /** Remove a CA with its history, objects and status (under `locked`). */
  remove(handle: string): void {
    this.d.store.remove(handle)
  }

  /** What command processing may use besides the state. */
  context(): CaContext {
    return { now: this.d.now(), signer: this.d.signer, random: this.d.random, timing: this.d.timing, pause: () => yieldToLoop() }
  }
}
