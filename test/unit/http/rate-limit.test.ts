/** The per-address token bucket of the testbed self-service (http/rate-limit.ts), on a clock the test moves. */
import t from 'tap'
import type { Context } from 'koa'
import { AppError } from '../../../src/errors.js'
import { rateLimit } from '../../../src/http/rate-limit.js'

function ctx(ip: string, headers: Record<string, string>): Context {
  return { ip, set: (k: string, v: string) => void (headers[k] = v) } as unknown as Context
}

t.test('each address gets its own bucket: perMinute at once, then one more every 60/perMinute seconds; 429 with Retry-After', async (t) => {
  let now = 1_000_000
  const limit = rateLimit(3, () => now)
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
  now += 19_000
  t.ok(await limit(ctx('192.0.2.1', {}), next).catch((e: unknown) => e) instanceof AppError, 'still refused before the refill')
  now += 1_000
  await limit(ctx('192.0.2.1', {}), next)
  t.equal(ran, 5, 'one more after 20 s')
  now += 3_600_000
  for (let i = 0; i < 3; i++) await limit(ctx('192.0.2.1', {}), next)
  t.equal(ran, 8, 'an idle hour refills to the burst, not beyond')
  t.ok(await limit(ctx('192.0.2.1', {}), next).catch((e: unknown) => e) instanceof AppError)
})
