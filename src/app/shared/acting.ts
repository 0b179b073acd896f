/**
 * Who a piece of work is done for (design.md §9: "every command carries its actor into the CA's history"). The HTTP
 * edge runs each authenticated request inside `actingAs(actor, …)`; whatever the request sets off (a command, the
 * follow-ups of its events, an audit record) reads the actor with `currentActor()` without every service method
 * taking it as an argument. Background work (the scheduler, a parent's refresh, renewals) runs outside any request
 * and has no actor: it is svcd's own (`SYSTEM_ACTOR`).
 *
 * AsyncLocalStorage follows timers and promises made during a request: a pacer or scheduler timer armed while a user's
 * command ran would carry that user into every later background run. So whatever is long-lived (pacer runs, scheduler
 * ticks and tasks, cluster heartbeats, the follow-ups of a command) starts its work through `detached`, as svcd.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

/** Who did something, as history and the audit record it: never a secret. */
export interface ActingAs {
  /** The user id, `admin-token`, or `svc` for svcd's own work. */
  readonly id: string
  /** How they authenticated: `admin-token`, `config-file`, `openid-connect`, `api-token`, or `svc`. */
  readonly provider: string
  /** With an API token: its name. */
  readonly token?: string
  /** The peer address the request came from. */
  readonly source?: string
}

/** svcd's own work: schedules, renewals, refreshes, follow-ups of background events. */
export const SYSTEM_ACTOR: ActingAs = { id: 'svc', provider: 'svc' }

const storage = new AsyncLocalStorage<ActingAs>()

/** Run `fn` (and everything it sets off) on behalf of `actor`. */
export function actingAs<T>(actor: ActingAs, fn: () => T): T {
  return storage.run(actor, fn)
}

/** Who the current work is done for: the request's actor, or svcd itself. */
export function currentActor(): ActingAs {
  return storage.getStore() ?? SYSTEM_ACTOR
}

/**
 * Run `fn` (and everything it sets off: timers, promises) as svcd itself, outside any request's actor. Long-lived
 * loops and timers start their work through this, so a timer armed during a request never runs as its user.
 */
export function detached<T>(fn: () => T): T {
  return storage.exit(fn)
}

/** The actor as a history record names it: the id (a user, `admin-token`, `svc`), the provider, and a token's name. */
export function actorFields(a: ActingAs = currentActor()): { actor: string; provider: string; token?: string } {
  return { actor: a.id, provider: a.provider, ...(a.token === undefined ? {} : { token: a.token }) }
}
