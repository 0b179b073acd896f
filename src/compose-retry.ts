/**
 * Start-up work that needs a signature while the default signer cannot sign (issue 25 "absent at start"): svcd starts,
 * serves /health and reads, answers /ready 503 with the signer's problem, and finishes the work (the publication
 * server's identity, the testbed) once the token answers: retried with back-off, and at once when the signer tells it
 * is back (`now()`). Only the signers' own failures (sys-signer-*) back off from the first interval; anything else is
 * logged and retried at the longest interval.
 */
import { AppError } from './errors.js'
import type { Logger } from './log.js'
import type { Clock, TimerHandle } from './util/clock.js'

/** A signer's failure: the token absent, its login refused, too slow. */
export function isSignerFailure(e: unknown): e is AppError {
  return e instanceof AppError && e.label.startsWith('sys-signer')
}

export interface Retry {
  /** Try again now (the signer is back), unless an attempt is running or it succeeded. */
  now(): void
  stop(): void
  /** Resolves once `f` succeeded (never when stopped before). */
  done: Promise<void>
}

/** Run `f` now and again with back-off (firstMs × 2 up to maxMs) until it succeeds or `stop()` is called. */
export function retryUntilSigned(what: string, f: () => Promise<void>, o: { clock: Clock; log: Logger; firstMs?: number; maxMs?: number }): Retry {
  const first = o.firstMs ?? 1000
  const max = o.maxMs ?? 30_000
  let timer: TimerHandle | undefined
  let state: 'waiting' | 'running' | 'done' | 'stopped' = 'waiting'
  let waitMs = first
  let resolve!: () => void
  const done = new Promise<void>((r) => (resolve = r))
  const attempt = () => {
    if (state !== 'waiting') return
    o.clock.clear(timer)
    state = 'running'
    f().then(() => {
      if (state === 'stopped') return
      state = 'done'
      o.log.info(`${what}: done`)
      resolve()
    }, (e: unknown) => {
      if (state === 'stopped') return
      state = 'waiting'
      o.log.warn(`${what}: waiting for the signer`, { label: e instanceof AppError ? e.label : 'error', err: e instanceof AppError ? e.message : String(e), retry_ms: waitMs })
      timer = o.clock.setTimeout(attempt, waitMs, { background: true })
      waitMs = isSignerFailure(e) ? Math.min(max, waitMs * 2) : max
    })
  }
  attempt()
  return {
    now() {
      waitMs = first
      attempt()
    },
    stop() {
      state = 'stopped'
      o.clock.clear(timer)
    },
    done,
  }
}
