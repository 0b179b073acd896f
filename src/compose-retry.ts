/**
 * Start-up work that needs a signature while the default signer cannot sign (issue 25 "absent at start"): svcd starts,
 * serves /health and reads, answers /ready 503 with the signer's problem, and finishes the work (the publication
 * server's identity, the testbed) once the token answers, retried with back-off. Only the signers' own failures
 * (sys-signer-*) are retried; anything else is logged and retried at the longest interval.
 */
import { AppError } from './errors.js'
import type { Logger } from './log.js'
import type { Clock, TimerHandle } from './util/clock.js'

/** A signer's failure: the token absent, its login refused, too slow. */
export function isSignerFailure(e: unknown): e is AppError {
  return e instanceof AppError && e.label.startsWith('sys-signer')
}

/** Run `f` now and again with back-off (firstMs × 2 up to maxMs) until it succeeds or `stop()` is called. */
export function retryUntilSigned(what: string, f: () => Promise<void>, o: { clock: Clock; log: Logger; firstMs?: number; maxMs?: number }): { stop(): void; done: Promise<void> } {
  const first = o.firstMs ?? 1000
  const max = o.maxMs ?? 30_000
  let timer: TimerHandle | undefined
  let stopped = false
  let resolve!: () => void
  const done = new Promise<void>((r) => (resolve = r))
  const attempt = (waitMs: number) => {
    f().then(() => {
      o.log.info(`${what}: done`)
      resolve()
    }, (e: unknown) => {
      if (stopped) return resolve()
      const next = isSignerFailure(e) ? Math.min(max, waitMs * 2) : max
      o.log.warn(`${what}: waiting for the signer`, { label: e instanceof AppError ? e.label : 'error', err: e instanceof AppError ? e.message : String(e), retry_ms: waitMs })
      timer = o.clock.setTimeout(() => attempt(next), waitMs, { background: true })
    })
  }
  attempt(first)
  return {
    stop() {
      stopped = true
      o.clock.clear(timer)
      resolve()
    },
    done,
  }
}
