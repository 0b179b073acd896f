/**
 * The one clock and the one source of randomness of svcd (issue 23), as interfaces. The system's implementation is
 * src/clock.ts; compose.ts builds them once (the system's, or a test's fake) and hands them to everything that reads
 * the time, waits, schedules or draws jitter: no other file in src/ calls Date.now, setTimeout, setInterval or
 * Math.random.
 */

/** A timer handle; only the clock that made it can clear it. */
export type TimerHandle = { readonly __timer: unique symbol }

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** The same instant as a Date. */
  date(): Date
  /** Run `f` once after `ms` (never keeps the process alive: unref'd). */
  setTimeout(f: () => void, ms: number): TimerHandle
  /** Run `f` every `ms` until cleared (unref'd). */
  setInterval(f: () => void, ms: number): TimerHandle
  /** Clear a timer of either kind; undefined is ignored. */
  clear(handle: TimerHandle | undefined): void
  /** Resolve after `ms`. */
  sleep(ms: number): Promise<void>
}

export interface Random {
  /** n uniformly random bytes (keys' serials, file names, nonces). */
  bytes(n: number): Uint8Array
  /** A uniform number in [0, 1) (jitter). */
  fraction(): number
}
