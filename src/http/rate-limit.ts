/**
 * Token buckets for the unauthenticated write routes (the testbed self-service, http/routes/testbed.ts): each source
 * may make `perMinute` requests a minute, `perMinute` at once at most, and all sources together `totalPerMinute`
 * (issue 22: many addresses must not add up to an unbounded budget). A source is an IPv4 address (an IPv4-mapped IPv6
 * address counts as its IPv4 address), or an IPv6 /64: one host or site usually holds a whole /64, so counting each of
 * its 2^64 addresses apart would be no limit at all. Beyond a budget the answer is 429 `api-rate-limited` (the
 * source's) or `api-rate-limited-total` (everyone's) with a Retry-After header, and the request does nothing. The
 * address is the TCP peer's (svcd trusts no proxy header: the Koa app runs with `proxy: false`).
 */
import { isIPv4, isIPv6 } from 'node:net'
import type { Context, Next } from 'koa'
import { AppError } from '../errors.js'

/** Sources kept at most; beyond this, buckets that have filled up again (idle sources) are dropped. */
const MAX_ADDRESSES = 10_000

interface Bucket {
  tokens: number
  at: number
}

export function rateLimit(perMinute: number, now: () => number = Date.now, totalPerMinute: number = Number.POSITIVE_INFINITY) {
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
    const key = sourceKey(ctx.ip)
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

/**
 * The source a request is counted against: an IPv4 address as it is (also when written IPv4-mapped, ::ffff:a.b.c.d),
 * an IPv6 address by its /64 (`2001:db8:1:2::/64`); anything else (no address) as one source.
 */
export function sourceKey(ip: string | undefined): string {
  if (!ip) return 'unknown'
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!
  if (isIPv4(ip)) return ip
  const bare = ip.split('%')[0]!
  if (!isIPv6(bare)) return ip
  const groups = expandIPv6(bare)
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a trailing dotted IPv4 part). */
function expandIPv6(ip: string): number[] {
  let text = ip
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (v4) text = text.slice(0, v4.index) + `${((+v4[1]! << 8) | +v4[2]!).toString(16)}:${((+v4[3]! << 8) | +v4[4]!).toString(16)}`
  const [head, tail] = text.split('::') as [string, string | undefined]
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const h = part(head)
  const tl = part(tail)
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - tl.length).fill(0), ...tl]
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
