/**
 * One bounded HTTPS GET for the relying-party view (issue 26 §1): TLS verified except for loopback hosts (a
 * self-signed certificate there, as protocol-client.ts and svcc accept), no redirects followed (a 3xx is an error), at
 * most `maxBytes` read (counted while reading), and a deadline of `timeoutMs` for the whole exchange on the injected
 * Clock. Failures are GetErrors with a one-line reason ("unreachable: connection refused", "HTTP 404").
 */
import https from 'node:https'
import type { Clock } from '../../util/clock.js'
import { isLoopbackHost } from '../../util/uri.js'

export class GetError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'GetError'
  }
}

export interface GetOptions {
  timeoutMs: number
  maxBytes: number
  clock: Clock
}

/** GET `uri` (https only); resolves to the body of a 200 answer. */
export function httpsGet(uri: string, o: GetOptions): Promise<Uint8Array> {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return Promise.reject(new GetError(`not a URI: ${uri.slice(0, 100)}`))
  }
  if (url.protocol !== 'https:') return Promise.reject(new GetError(`not an https URI: ${uri.slice(0, 100)}`))
  return new Promise((resolve, reject) => {
    let done = false
    const finish = (e: Error | undefined, body?: Uint8Array) => {
      if (done) return
      done = true
      o.clock.clear(deadline)
      if (e) reject(e instanceof GetError ? e : new GetError(`unreachable: ${e.message}`))
      else resolve(body!)
    }
    const req = https.get(url, { rejectUnauthorized: !isLoopbackHost(url.hostname), headers: { 'User-Agent': 'svc liveness' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return finish(new GetError(`HTTP ${res.statusCode}${res.statusCode! >= 300 && res.statusCode! < 400 ? ' (redirects are not followed)' : ''}`))
      }
      const declared = Number(res.headers['content-length'])
      if (declared > o.maxBytes) {
        res.destroy()
        return finish(new GetError(`${url.pathname} is ${declared} bytes, more than ${o.maxBytes} bytes`))
      }
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > o.maxBytes) {
          res.destroy()
          finish(new GetError(`${url.pathname} is more than ${o.maxBytes} bytes`))
        } else chunks.push(c)
      })
      res.on('end', () => finish(undefined, new Uint8Array(Buffer.concat(chunks))))
      res.on('error', (e) => finish(e))
      res.on('aborted', () => finish(new GetError('unreachable: the answer was cut off')))
    })
    req.on('error', (e: NodeJS.ErrnoException) => finish(new GetError(`unreachable: ${reason(e)}`)))
    const deadline = o.clock.setTimeout(() => {
      req.destroy()
      finish(new GetError(`unreachable: no complete answer within ${Math.round(o.timeoutMs / 1000)} s`))
    }, o.timeoutMs, { background: true })
  })
}

function reason(e: NodeJS.ErrnoException): string {
  if (e.code === 'ECONNREFUSED') return 'connection refused'
  if (e.code === 'ENOTFOUND') return 'host not found'
  return e.message.split('\n')[0]
}
