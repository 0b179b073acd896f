/**
 * A per-source-address token bucket for the unauthenticated write routes (the testbed self-service,
 * http/routes/testbed.ts): each address may make `perMinute` requests a minute, `perMinute` at once at most. Beyond
 * that the answer is 429 `api-rate-limited` with a Retry-After header, and the request does nothing. The address is
 * the TCP peer's (svcd trusts no proxy header: the Koa app runs with `proxy: false`).
 */
import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'

/** Addresses kept at most; beyond this, buckets that have filled up again (idle addresses) are dropped. */
const MAX_ADDRESSES = 10_000

interface Bucket {
  tokens: number
  at: number
}

export function rateLimit(perMinute: number, now: () => number = Date.now) {
  const buckets = new Map<string, Bucket>()
  const perMs = perMinute / 60_000
  const refill = (b: Bucket, t: number) => {
    b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * perMs)
    b.at = t
  }
  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    const t = now()
    const key = ctx.ip || 'unknown'
    let b = buckets.get(key)
    if (!b) {
      if (buckets.size >= MAX_ADDRESSES) prune(buckets, t, refill, perMinute)
      b = { tokens: perMinute, at: t }
      buckets.set(key, b)
    }
    refill(b, t)
    if (b.tokens < 1) {
      const retry = Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000))
      ctx.set('Retry-After', String(retry))
      throw new AppError('api-rate-limited', { limit: String(perMinute), retry_after: String(retry) })
    }
    b.tokens -= 1
    await next()
  }
}

/** Drop the buckets that are full again (their addresses have been quiet); if none are, the oldest half. */
function prune(buckets: Map<string, Bucket>, t: number, refill: (b: Bucket, t: number) => void, full: number): void {
  for (const [k, b] of buckets) {
    refill(b, t)
    if (b.tokens >= full) buckets.delete(k)
  }
  if (buckets.size < MAX_ADDRESSES) return
  let drop = Math.floor(buckets.size / 2)
  for (const k of buckets.keys()) {
    if (drop-- <= 0) break
    buckets.delete(k)
  }
}
