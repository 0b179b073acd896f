/**
 * The system's clock, timers and randomness (src/util/clock.ts has the interfaces): the one implementation in src/ that
 * reads the machine's time and arms its timers. Only the roots (compose.ts, main.ts, cli.ts) import it.
 */
import { randomBytes } from 'node:crypto'
import type { Clock, Random, TimerHandle } from './util/clock.js'

/** The machine's clock and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
  setTimeout: (f, ms, o) => {
    const timer = setTimeout(f, ms)
    if (o?.background) timer.unref()
    return timer as unknown as TimerHandle
  },
  setInterval: (f, ms) => setInterval(f, ms).unref() as unknown as TimerHandle,
  clear: (h) => {
    if (h !== undefined) clearTimeout(h as unknown as NodeJS.Timeout)
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}

/** The operating system's cryptographic randomness. */
export const systemRandom: Random = {
  bytes: (n) => new Uint8Array(randomBytes(n)),
  fraction: () => randomBytes(6).readUIntBE(0, 6) / 2 ** 48,
}

/** A clock whose `now` is shifted or fixed by a function (ComposeOptions.now), with the system's timers. */
export function clockAt(now: () => Date): Clock {
  return { ...systemClock, now: () => now().getTime(), date: now }
}
