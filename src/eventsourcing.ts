/**
 * Commands → events → apply (style.md §9, Krill's AggregateStore): `process` checks a command against the current
 * state and returns events (or throws an AppError); `apply` folds events into a copy of the state and must not fail.
 * `runCommand` stores the command with its events (or its error) and the new snapshot in one transaction.
 */
import { AppError, reasonOf } from './errors.js'

/** How a command is shown in the history (krill-reference.md §4 `summary`). */
export interface CommandSummary {
  /** Machine label, e.g. 'cmd-ca-roas-update'. */
  label: string
  /** Human text, e.g. "Update ROAs: add 2, remove 1". */
  msg: string
  args: Record<string, string>
}

/** Stored in the history table: changing this shape needs a migration. `seq` is the history key. */
export interface StoredCommand<C = unknown, E = unknown> {
  handle: string
  /** Position in the CA's history (1, 2, …): successes and errors alike; stable, unique per CA. */
  seq: number
  time: string
  /** Who: a user id, `admin-token`, `svc` (svcd's own work), `child:<handle>` (a child's RFC 6492 request). */
  actor: string
  /** How the actor authenticated (api/access.ts Actor.provider, or `svc`); absent in records before issue 24. */
  provider?: string
  /** With an API token: the token's name (never its secret). */
  token?: string
  kind: string
  summary: CommandSummary
  details: C
  effect: { result: 'success'; events: E[] } | { result: 'error'; label: string; msg: string }
}

/** What an aggregate type provides: pure functions over plain JSON state. */
export interface AggregateType<S, C, E> {
  /** Check `cmd` against `state`; return the events it causes (empty: nothing to do) or throw an AppError. */
  process(state: S, cmd: C): E[] | Promise<E[]>
  /** Fold one event into the state (mutating the given copy). Never throws for events `process` produced. */
  apply(state: S, event: E): void
  summary(cmd: C): CommandSummary
  kind(cmd: C): string
  /** A mutable copy of `state` for applying `events` (default: a deep copy); it may share what they leave alone. */
  copy?(state: S, events: readonly E[]): S
}

/** Where aggregates live: the current snapshot, and the history of commands. */
export interface AggregateStore<S> {
  load(handle: string): { version: number; state: S } | undefined
  /**
   * In one transaction: append the command (the store assigns `seq`) and, on success, save the snapshot with
   * version + 1; refuses (throws) when the snapshot is no longer at `expectedVersion` (optimistic check).
   */
  save(cmd: Omit<StoredCommand, 'seq'>, state: S | undefined, expectedVersion: number, prepared?: unknown): number
  /**
   * Optional: work out a save of `state` beforehand, awaiting `pause` between slices (a state with 100,000 rows), so
   * that save() (given what this returns) only writes. A store whose state changed meanwhile ignores it.
   */
  prepareSave?(cmd: Omit<StoredCommand, 'seq'>, state: S, expectedVersion: number, pause: () => Promise<void>): Promise<unknown>
}

export interface RunResult<S, E> {
  state: S
  events: E[]
  version: number
}

/**
 * Run one command: load, process, then append and apply in one transaction. An error is recorded in the history
 * and rethrown; a command without events changes nothing and is not stored. Callers serialise commands per
 * aggregate (CaCommands' per-CA lock); the store's version check catches any slip.
 */
export async function runCommand<S, C, E>(
  type: AggregateType<S, C, E>,
  store: AggregateStore<S>,
  handle: string,
  cmd: C,
  ctx: { actor: string; provider?: string; token?: string; now: Date; pause?: () => Promise<void> },
): Promise<RunResult<S, E>> {
  const current = store.load(handle)
  if (!current) throw new AppError('ca-unknown', { ca: handle })
  const who = { actor: ctx.actor, ...(ctx.provider === undefined ? {} : { provider: ctx.provider }), ...(ctx.token === undefined ? {} : { token: ctx.token }) }
  const base = { handle, time: ctx.now.toISOString(), ...who, kind: type.kind(cmd), summary: type.summary(cmd), details: cmd }
  let events: E[]
  try {
    // The loaded state is read-only (the store may hand out its cached copy): `process` only reads it.
    events = await type.process(current.state, cmd)
  } catch (e) {
    const label = e instanceof AppError ? e.label : 'sys-internal'
    store.save({ ...base, effect: { result: 'error', label, msg: reasonOf(e) } }, undefined, current.version)
    throw e
  }
  if (events.length === 0) return { state: current.state, events, version: current.version }
  const state = type.copy ? type.copy(current.state, events) : structuredClone(current.state)
  for (const e of events) type.apply(state, e)
  const cmdRecord = { ...base, effect: { result: 'success' as const, events } }
  const prepared = ctx.pause && store.prepareSave ? await store.prepareSave(cmdRecord, state, current.version, ctx.pause) : undefined
  store.save(cmdRecord, state, current.version, prepared)
  return { state, events, version: current.version + 1 }
}
