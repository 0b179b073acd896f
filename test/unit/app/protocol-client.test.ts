/**
 * The RFC 6492/8181 transport (src/app/shared/protocol-client.ts) against a plain HTTP peer on loopback: answers, the
 * content-type and size checks, and a kept-alive connection that the peer drops as idle just as the next message
 * goes out (the message is sent once more on a new connection, and only then).
 */
import t, { type Test } from 'tap'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { postMessage, TransportError } from '../../../src/app/shared/protocol-client.js'

const TYPE = 'application/rpki-publication'
const opts = { contentType: TYPE, timeoutMs: 5_000, maxBytes: 1024 }

/** A peer that echoes the body; `dropSecond` drops the socket instead of answering its second request. */
async function peer(t: Test, behaviour: { dropSecond?: boolean; type?: string; size?: number } = {}) {
  const perSocket = new Map<Socket, number>()
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1
    perSocket.set(req.socket, n)
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (behaviour.dropSecond && n === 2) return req.socket.destroy()
      seen.push(body.toString())
      res.writeHead(200, { 'Content-Type': behaviour.type ?? TYPE })
      res.end(behaviour.size ? Buffer.alloc(behaviour.size) : body)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rfc8181/x`
  return { url, seen, connections: () => perSocket.size }
}

t.test('answers are returned; a wrong content type or an oversized answer is an error', async (t) => {
  const p = await peer(t)
  t.equal(Buffer.from(await postMessage(p.url, Buffer.from('one'), opts)).toString(), 'one')
  const wrongType = await peer(t, { type: 'text/plain' })
  await t.rejects(postMessage(wrongType.url, Buffer.from('x'), opts), /content type 'text\/plain'/)
  const big = await peer(t, { size: 4096 })
  await t.rejects(postMessage(big.url, Buffer.from('x'), opts), /exceeds 1024 bytes/)
})

t.test('a kept connection dropped by the peer: the message is sent again on a new connection', async (t) => {
  const p = await peer(t, { dropSecond: true })
  t.equal(Buffer.from(await postMessage(p.url, Buffer.from('first'), opts)).toString(), 'first')
  // The second message goes out on the kept connection, which the peer drops without reading it to an answer.
  t.equal(Buffer.from(await postMessage(p.url, Buffer.from('second'), opts)).toString(), 'second')
  t.same(p.seen, ['first', 'second'], 'each message answered exactly once')
  t.equal(p.connections(), 2, 'the retry used a new connection')
})

t.test('nothing listening: no retry, a TransportError that says so', async (t) => {
  const e = await postMessage('http://127.0.0.1:1/rfc8181/x', Buffer.from('x'), opts).then(() => undefined, (err: unknown) => err)
  t.ok(e instanceof TransportError)
  t.match(String(e), /cannot reach http:\/\/127\.0\.0\.1:1/)
  t.notOk((e as TransportError).resetOnReuse)
})
