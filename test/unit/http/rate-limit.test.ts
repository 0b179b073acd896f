/**
 * The per-source token bucket of the testbed self-service (http/rate-limit.ts), on the FakeClock the test moves, with
 * the source function svcd's root hands it (resources/address-source.ts).
 */
import t from 'tap'
import type { Context } from 'koa'
import { AppError } from '../../../src/errors.js'
import { rateLimit, type RateLimitOptions } from '../../../src/http/rate-limit.js'
import { addressSource as sourceKey } from '../../../src/resources/address-source.js'
import { FakeClock } from '../../helpers/fake-clock.js'

/** A limit on a fake clock at 1,000,000 ms, with svcd's source function. */
function limiter(o: Omit<RateLimitOptions, 'clock' | 'source'>) {
  const clock = new FakeClock(1_000_000)
  return { clock, limit: rateLimit({ ...o, clock, source: sourceKey }) }
}

function ctx(ip: string, headers: Record<string, string>): Context {
  return { ip, set: (k: string, v: string) => void (headers[k] = v) } as unknown as Context
}

t.test('each address gets its own bucket: perMinute at once, then one more every 60/perMinute seconds; 429 with Retry-After', async (t) => {
  const { clock, limit } = limiter({ perMinute: 3 })
  let ran = 0
  const next = async () => void ran++
  const headers: Record<string, string> = {}
  for (let i = 0; i < 3; i++) await limit(ctx('192.0.2.1', headers), next)
  t.equal(ran, 3, 'the burst passes')
  const refused = await limit(ctx('192.0.2.1', headers), next).catch((e: unknown) => e)
  t.ok(refused instanceof AppError && refused.label === 'api-rate-limited' && refused.status === 429, 'the fourth is refused: 429 api-rate-limited')
  t.same((refused as AppError).args, { limit: '3', retry_after: '20' })
  t.equal(headers['Retry-After'], '20', 'Retry-After says when the next one passes')
  t.equal(ran, 3, 'a refused request does nothing')
  await limit(ctx('192.0.2.2', {}), next)
  t.equal(ran, 4, 'another address has its own bucket')
  await clock.advance(19_000)
  t.ok(await limit(ctx('192.0.2.1', {}), next).catch((e: unknown) => e) instanceof AppError, 'still refused before the refill')
  await clock.advance(1_000)
  await limit(ctx('192.0.2.1', {}), next)
  t.equal(ran, 5, 'one more after 20 s')
  await clock.advance(3_600_000)
  for (let i = 0; i < 3; i++) await limit(ctx('192.0.2.1', {}), next)
  t.equal(ran, 8, 'an idle hour refills to the burst, not beyond')
  t.ok(await limit(ctx('192.0.2.1', {}), next).catch((e: unknown) => e) instanceof AppError)
})

t.test('sources: an IPv4 address, an IPv4-mapped IPv6 address as its IPv4 address, an IPv6 address by its /64', async (t) => {
  t.equal(sourceKey('192.0.2.1'), '192.0.2.1')
  t.equal(sourceKey('::ffff:192.0.2.1'), '192.0.2.1')
  t.equal(sourceKey('::FFFF:192.0.2.1'), '192.0.2.1')
  t.equal(sourceKey('::ffff:c000:201'), '192.0.2.1', 'mapped, written in hex')
  t.equal(sourceKey('2001:db8:1:2::1'), '2001:db8:1:2::/64')
  t.equal(sourceKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64')
  t.equal(sourceKey('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64', 'however the address is written')
  t.equal(sourceKey('2001:db8::1'), '2001:db8:0:0::/64')
  t.equal(sourceKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
  t.equal(sourceKey('::1'), '0:0:0:0::/64')
  t.not(sourceKey('2001:db8:1:2::1'), sourceKey('2001:db8:1:3::1'), 'another /64 is another source')
  t.equal(sourceKey(undefined), 'unknown')
  t.equal(sourceKey('not an address'), 'not an address', 'anything else counts as itself')
})

t.test('all addresses of one IPv6 /64 share one bucket; IPv4 and its mapped form too (issue 22, defect 7)', async (t) => {
  const { limit } = limiter({ perMinute: 3 })
  let ran = 0
  const next = async () => void ran++
  for (let i = 1; i <= 3; i++) await limit(ctx(`2001:db8:1:2::${i.toString(16)}`, {}), next)
  const refused = await limit(ctx('2001:db8:1:2:abcd::99', {}), next).catch((e: unknown) => e)
  t.ok(refused instanceof AppError && refused.label === 'api-rate-limited', 'a fourth address of the same /64 is refused')
  await limit(ctx('2001:db8:1:3::1', {}), next)
  t.equal(ran, 4, 'the next /64 has its own bucket')
  for (let i = 0; i < 3; i++) await limit(ctx('::ffff:198.51.100.7', {}), next)
  t.ok((await limit(ctx('198.51.100.7', {}), next).catch((e: unknown) => e)) instanceof AppError, 'an IPv4 address and its mapped form are one source')
})

t.test('a budget over all sources: 30 addresses get no more than the total a minute (issue 22, defect 7)', async (t) => {
  const { clock, limit } = limiter({ perMinute: 20, totalPerMinute: 60 })
  let ran = 0
  const next = async () => void ran++
  const refusals: string[] = []
  const headers: Record<string, string> = {}
  for (let a = 1; a <= 30; a++) {
    for (let i = 0; i < 20; i++) {
      await limit(ctx(`127.0.0.${a}`, headers), next).catch((e: unknown) => refusals.push((e as AppError).label))
    }
  }
  t.equal(ran, 60, '600 requests from 30 addresses: 60 pass (the total), not 600')
  t.equal(refusals.length, 540)
  t.ok(refusals.every((l) => l === 'api-rate-limited-total'), 'refused with api-rate-limited-total (429)')
  t.equal(headers['Retry-After'], '1', 'Retry-After: a second later the total has refilled one request')
  await clock.advance(1_000)
  await limit(ctx('127.0.0.99', {}), next)
  t.equal(ran, 61, 'the total refills at its rate')
})
