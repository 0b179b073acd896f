/**
 * The error middleware and answers that cannot be serialised (issue 10, defect 5: "HTTP 500 at 12,000 ROAs, logged
 * as 200"): the JSON body becomes text inside the middleware, so a failure there is the labelled, logged 500 and
 * the request log sees 500, not the 200 the status was before Koa's own serialisation failed after every
 * middleware had run. A BigInt stands in for a body too large for a string (both make JSON.stringify throw).
 */
import t from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { AppError, internalErrorBody } from '../../../src/errors.js'
import { errorMiddleware } from '../../../src/http/errors.js'
import { systemClock } from '../../../src/clock.js'
import type { Logger } from '../../../src/log.js'

function recordingLogger(lines: { level: string; msg: string }[]): Logger {
  const log = (level: string) => (msg: string) => void lines.push({ level, msg })
  const logger: Logger = { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug'), child: () => logger, flush: () => undefined }
  return logger
}

async function serve(t: { teardown(fn: () => unknown): void }, handler: (ctx: Koa.Context) => void, seen: number[], lines: { level: string; msg: string }[]): Promise<string> {
  const app = new Koa()
  app.silent = true
  // What http/app.ts's request log sees: the status once every inner middleware has run.
  app.use(async (ctx, next) => {
    await next()
    seen.push(ctx.status)
  })
  app.use(errorMiddleware(recordingLogger(lines), systemClock))
  app.use(async (ctx) => handler(ctx))
  const server = http.createServer(app.callback())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

t.test('a body that cannot be serialised: a logged, labelled 500, and the request log sees 500', async (t) => {
  const seen: number[] = []
  const lines: { level: string; msg: string }[] = []
  const url = await serve(t, (ctx) => void (ctx.body = [{ asn: 65000, serial: 1n }]), seen, lines)
  const res = await fetch(url)
  t.equal(res.status, 500)
  t.equal(res.headers.get('content-type'), 'application/json', 'exactly, as Krill sends it (no charset)')
  t.same(await res.json(), internalErrorBody())
  t.same(seen, [500], 'the request log sees the status that was sent')
  t.ok(lines.some((l) => l.level === 'error'), 'the failure is logged as an error')
})

t.test('ordinary JSON bodies are unchanged: the same text as Koa would send, typed exactly application/json (Krill)', async (t) => {
  const seen: number[] = []
  const url = await serve(t, (ctx) => void (ctx.body = [{ asn: 65000, prefix: '10.0.0.0/24', comment: null }]), seen, [])
  const res = await fetch(url)
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'application/json')
  t.equal(await res.text(), '[{"asn":65000,"prefix":"10.0.0.0/24","comment":null}]')
  t.same(seen, [200])
})

t.test('an error after the handler chose another type is answered as JSON, typed exactly application/json', async (t) => {
  const url = await serve(t, (ctx) => {
    ctx.type = 'application/xml'
    throw new AppError('ca-unknown', { ca: 'x' })
  }, [], [])
  const res = await fetch(url)
  t.equal(res.status, 404)
  t.equal(res.headers.get('content-type'), 'application/json')
  t.same(await res.json(), { label: 'ca-unknown', msg: "CA 'x' is unknown", args: { ca: 'x' } })
})

t.test('a type the handler chose for a JSON body stays (application/ld+json, say); Koa\'s default becomes exact', async (t) => {
  const url = await serve(t, (ctx) => {
    ctx.type = 'application/ld+json'
    ctx.body = { a: 1 }
  }, [], [])
  const res = await fetch(url)
  t.equal(res.headers.get('content-type'), 'application/ld+json')
  t.equal(await res.text(), '{"a":1}')
})
