/** Polling for scenario tests: one `waitFor` for every test that waits for a daemon, a tree or a file to catch up. */

/** The shortest pause between two polls when the caller names none. */
const MIN_STEP_MS = 200
/** The longest. */
const MAX_STEP_MS = 2000

/**
 * Poll `fn` until it returns something other than undefined or false, and return that; fail after `ms` with what was
 * awaited and the last error `fn` threw (a throw counts as not yet). `ms` is a deadline only a hang crosses (derive it
 * from the configuration's timings); how long the wait took is not judged.
 *
 * With `stepMs`, polls are that far apart (for a caller that measures when the thing happened). Without, the pause
 * after a poll is twice as long as the poll took (at least 200 ms, at most 2 s): a poll that runs svcc, a process of
 * its own, then spends at most a third of the time on the CPU, which its own daemon and the tests beside it need on a
 * loaded machine, and a cheap poll still answers quickly.
 */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000, stepMs?: number): Promise<T> {
  const end = Date.now() + ms
  let last: unknown
  while (Date.now() < end) {
    const started = Date.now()
    try {
      const v = await fn()
      if (v !== undefined && v !== false) return v
    } catch (e) {
      last = e
    }
    const pause = stepMs ?? Math.min(MAX_STEP_MS, Math.max(MIN_STEP_MS, 2 * (Date.now() - started)))
    await new Promise((r) => setTimeout(r, pause))
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`)
}
