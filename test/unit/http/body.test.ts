/** The HTTP edge in-process: body limits, JSON errors, content types, and the error middleware's 5xx rule. */
import t from 'tap'
import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import { errorMiddleware } from '../../../src/http/errors.js'
import { readBytes, readJson } from '../../../src/http/body.js'
import { silentLogger } from '../../../src/log.js'
import { systemClock } from '../../../src/clock.js'

async function serve(t: { teardown(fn: () => unknown): void }, handler: (ctx: Koa.Context) => Promise<void>): Promise<string> {
  const app = new Koa()
  app.silent = true
  Object.assign(app.context, { clock: systemClock }) // as createApp does: the body readers' time bound
  app.use(errorMiddleware(silentLogger(), systemClock))
  app.use(handler)
  const server = http.createServer(app.callback())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', body, headers })
  return { status: res.status, body: (await res.json().catch(() => undefined)) as { label: string; [k: string]: unknown } }
}

t.test('JSON bodies: limit, malformed, invalid UTF-8, shape', async (t) => {
  const url = await serve(t, async (ctx) => {
    const v = await readJson<{ handle: string }>(ctx, 100, (x) => (typeof (x as { handle?: unknown })?.handle === 'string' ? undefined : 'handle must be a string'))
    ctx.body = { got: v.handle }
  })
  t.same(await post(url, '{"handle":"ca1"}'), { status: 200, body: { got: 'ca1' } })
  const big = await post(url, JSON.stringify({ handle: 'x'.repeat(200) }))
  t.equal(big.status, 413)
  t.same(big.body, { label: 'api-post-body-exceeds-limit', msg: 'Request body exceeds the limit of 100 bytes', args: { limit: '100' } })
  const bad = await post(url, '{"handle":')
  t.equal(bad.status, 400)
  t.equal(bad.body.label, 'api-json')
  const empty = await post(url, '')
  t.equal(empty.body.label, 'api-json')
  const utf8 = await post(url, Buffer.from([0x7b, 0xff, 0x7d]))
  t.equal(utf8.body.label, 'api-invalid-utf8')
  const shape = await post(url, '{"handle":1}')
  t.same(shape.body, { label: 'api-invalid-body', msg: 'Invalid request body: handle must be a string', args: { reason: 'handle must be a string' } })
})

t.test('a chunked body over the limit is cut off', async (t) => {
  let read = -1
  const url = await serve(t, async (ctx) => {
    ctx.body = { size: (read = (await readBytes(ctx, 1000)).length) }
  })
  // Stream 10 kB without Content-Length: the server must stop reading at the limit and answer 413 (or, having
  // answered, drop the connection while we are still sending).
  const status = await new Promise<number>((resolve) => {
    const req = http.request(url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', () => resolve(-1))
    for (let i = 0; i < 100; i++) req.write(Buffer.alloc(100))
    req.end()
  })
  t.ok(status === 413 || status === -1, `refused (status ${status})`)
  t.equal(read, -1, 'the handler never got the body')
})

/**
 * POST `size` bytes `times` times from another process (so that client and server do not take turns on one event
 * loop), each on a new connection; the statuses, or the error codes of connections dropped before an answer.
 */
function uploads(url: string, size: number, times: number, headers: Record<string, string>): Promise<string[]> {
  const client = `
    const http = require('node:http')
    const [url, size, times, headers] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), JSON.parse(process.argv[4])]
    const one = () => new Promise((resolve) => {
      let answered = false
      const req = http.request(url, { method: 'POST', agent: false, headers }, (res) => {
        answered = true
        res.resume()
        res.on('end', () => resolve(String(res.statusCode)))
        res.on('error', (e) => resolve(e.code))
      })
      req.on('error', (e) => { if (!answered) resolve(e.code) })
      for (let i = 0; i < size; i += 65536) req.write(Buffer.alloc(Math.min(65536, size - i)))
      req.end()
    })
    ;(async () => { const out = []; for (let i = 0; i < times; i++) out.push(await one()); console.log(JSON.stringify(out)) })()`
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', client, url, String(size), String(times), JSON.stringify(headers)], (e, stdout) => (e ? reject(e) : resolve(JSON.parse(stdout) as string[])))
  })
}

t.test('a body somewhat over the limit, or of the wrong type: the client gets the answer, every time', async (t) => {
  const url = await serve(t, async (ctx) => {
    ctx.body = { size: (await readBytes(ctx, 4_000_000, 'application/rpki-updown')).length }
  })
  const type = { 'Content-Type': 'application/rpki-updown' }
  const declared = await uploads(url, 6_000_000, 10, { ...type, 'Content-Length': '6000000' })
  t.same(new Set(declared), new Set(['413']), `with Content-Length: 413 every time (${declared.join(' ')})`)
  const chunked = await uploads(url, 6_000_000, 10, { ...type, 'Transfer-Encoding': 'chunked' })
  t.same(new Set(chunked), new Set(['413']), `chunked: 413 every time (${chunked.join(' ')})`)
  const wrong = await uploads(url, 3_000_000, 10, { 'Content-Type': 'text/plain', 'Content-Length': '3000000' })
  t.same(new Set(wrong), new Set(['415']), `a wrong content type: 415 every time (${wrong.join(' ')})`)
})

t.test('content types are checked where a protocol requires one', async (t) => {
  const url = await serve(t, async (ctx) => {
    ctx.body = { size: (await readBytes(ctx, 1000, 'application/rpki-updown')).length }
  })
  t.equal((await post(url, 'x', { 'Content-Type': 'application/rpki-updown' })).status, 200)
  const wrong = await post(url, 'x', { 'Content-Type': 'text/plain' })
  t.equal(wrong.status, 415)
  t.equal(wrong.body.label, 'api-unsupported-media-type')
})

t.test('an unexpected error becomes a bare 500 without internals', async (t) => {
  const url = await serve(t, async () => {
    throw new Error('secret internal detail at /var/lib/x')
  })
  const res = await post(url, '')
  t.equal(res.status, 500)
  t.same(res.body, { label: 'sys-internal', msg: 'Internal Server Error', args: {} })
})
