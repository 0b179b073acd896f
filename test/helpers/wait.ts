/** Polling for scenario tests: one `waitFor` for every test that waits for a daemon, a tree or a file to catch up. */

/**
 * Poll `fn` every `stepMs` until it returns something other than undefined or false, and return that; fail after `ms`
 * with what was awaited and the last error `fn` threw (a throw counts as not yet).
 */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 30_000, stepMs = 200): Promise<T> {
  const end = Date.now() + ms
  let last: unknown
  while (Date.now() < end) {
    try {
      const v = await fn()
      if (v !== undefined && v !== false) return v
    } catch (e) {
      last = e
    }
    await new Promise((r) => setTimeout(r, stepMs))
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`)
}
