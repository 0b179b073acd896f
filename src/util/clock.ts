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
  /**
   * Run `f` once after `ms`. Like Node's setTimeout it keeps the process alive until it fires (a wait someone awaits,
   * such as svcc's grace for an answer or a Pacer's next run); with `background` it does not (periodic housekeeping:
   * a scheduler's tick, a heartbeat, a retry), as an unref'd Node timer.
   */
  setTimeout(f: () => void, ms: number, o?: { background?: boolean }): TimerHandle
  /** Run `f` every `ms` until cleared; never keeps the process alive (background). */
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
