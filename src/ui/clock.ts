/**
 * The console's one clock (as src/clock.ts is svcd's): the time now and the timers the pages use (the pause after
 * typing a search, the publication server's refresh, revoking a saved file's URL). Nothing else in src/ui reads the
 * clock or arms a timer.
 */

/** Milliseconds since the epoch. */
export function now(): number {
  return Date.now()
}

/** Run `fn` once after `ms`; the answer cancels it. */
export function later(fn: () => void, ms: number): () => void {
  const t = setTimeout(fn, ms)
  return () => clearTimeout(t)
}

/** Run `fn` every `ms`; the answer stops it. */
export function every(fn: () => void, ms: number): () => void {
  const t = setInterval(fn, ms)
  return () => clearInterval(t)
}
