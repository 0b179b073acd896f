/**
 * Token buckets for the unauthenticated write routes (the testbed self-service, http/routes/testbed.ts): each source
 * may make `perMinute` requests a minute, `perMinute` at once at most, and all sources together `totalPerMinute`
 * (issue 22: many addresses must not add up to an unbounded budget). Which source a peer address counts as is the
 * `source` function the root hands in (resources/address-source.ts: an IPv4 address, or an IPv6 /64). Beyond a budget
 * the answer is 429 `api-rate-limited` (the source's) or `api-rate-limited-total` (everyone's) with a Retry-After
 * header, and the request does nothing. The address is the TCP peer's (svcd trusts no proxy header: the Koa app runs
 * with `proxy: false`); the time is the injected clock's.
 */
import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'
import type { Clock } from '../util/clock.js'

/** Sources kept at most; beyond this, buckets that have filled up again (idle sources) are dropped. */
const MAX_ADDRESSES = 10_000

interface Bucket {
  tokens: number
  at: number
}

export interface RateLimitOptions {
  /** Requests a minute per source, and at once at most. */
  perMinute: number
  /** Requests a minute over all sources together (default: no such limit). */
  totalPerMinute?: number
  clock: Pick<Clock, 'now'>
  /** The source a peer address counts against (an unknown address: one source of its own). */
  source: (ip: string | undefined) => string
}

export function rateLimit(o: RateLimitOptions) {
  const { perMinute, totalPerMinute = Number.POSITIVE_INFINITY } = o
  const now = () => o.clock.now()
  const buckets = new Map<string, Bucket>()
  const perMs = perMinute / 60_000
  const refill = (b: Bucket, t: number) => {
    b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * perMs)
    b.at = t
  }
  const total: Bucket = { tokens: totalPerMinute, at: now() }
  const totalPerMs = totalPerMinute / 60_000
  const refuse = (ctx: Context, tokens: number, rate: number, label: 'api-rate-limited' | 'api-rate-limited-total', limit: number): never => {
    const retry = Math.max(1, Math.ceil((1 - tokens) / rate / 1000))
    ctx.set('Retry-After', String(retry))
    throw new AppError(label, { limit: String(limit), retry_after: String(retry) })
  }
  return async function limitRate(ctx: Context, next: Next): Promise<void> {
    const t = now()
    const key = o.source(ctx.ip)
    let b = buckets.get(key)
    if (!b) {
      if (buckets.size >= MAX_ADDRESSES) prune(buckets, t, refill, perMinute)
      b = { tokens: perMinute, at: t }
      buckets.set(key, b)
    }
    refill(b, t)
    total.tokens = Math.min(totalPerMinute, total.tokens + (t - total.at) * totalPerMs)
    total.at = t
    if (b.tokens < 1) refuse(ctx, b.tokens, perMs, 'api-rate-limited', perMinute)
    if (total.tokens < 1) refuse(ctx, total.tokens, totalPerMs, 'api-rate-limited-total', totalPerMinute)
    b.tokens -= 1
    total.tokens -= 1
    await next()
  }
}

/** Drop the buckets that are full again (their sources have been quiet); if none are, the oldest half. */
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
