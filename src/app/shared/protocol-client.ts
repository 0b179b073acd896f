/**
 * HTTPS transport of RFC 6492 and RFC 8181 messages (one POST of a CMS body, one CMS answer). TLS is verified;
 * only for loopback peers is a self-signed certificate accepted, as svcc does. A size limit and a timeout bound
 * what a peer can make us read. Connections are kept alive between messages to the same peer; a message sent on a
 * kept connection that the peer closed as idle at that moment is sent once more on a new one.
 */
import http from 'node:http'
import https from 'node:https'
import { isLoopbackHost } from '../../util/uri.js'

export class TransportError extends Error {
  /** `resetOnReuse`: a kept-alive connection was reset before any answer (the peer never read the message). */
  constructor(message: string, readonly resetOnReuse = false) {
    super(message)
    this.name = 'TransportError'
  }
}

export interface PostOptions {
  contentType: string
  timeoutMs: number
  maxBytes: number
}


/** Kept-alive connections, shorter-lived than the usual server idle timeout (5 s in Node, svcd included). */
const agents = {
  http: new http.Agent({ keepAlive: true, timeout: 4_000 }),
  https: new https.Agent({ keepAlive: true, timeout: 4_000 }),
}

/** POST `body` to `uri`; resolves to the answer's bytes for a 200 with the expected content type. */
export async function postMessage(uri: string, body: Uint8Array, o: PostOptions): Promise<Uint8Array> {
  try {
    return await postOnce(uri, body, o)
  } catch (e) {
    // The peer closed a kept connection as idle just as the message went out: nothing was read, so send it again.
    if (e instanceof TransportError && e.resetOnReuse) return postOnce(uri, body, o)
    throw e
  }
}

function postOnce(uri: string, body: Uint8Array, o: PostOptions): Promise<Uint8Array> {
  const url = new URL(uri)
  const lib = url.protocol === 'http:' ? http : https
  const agent = url.protocol === 'http:' ? agents.http : agents.https
  const options = { method: 'POST', agent, headers: { 'Content-Type': o.contentType, 'Content-Length': String(body.length), 'User-Agent': 'svc' }, timeout: o.timeoutMs, ...(url.protocol === 'https:' ? { rejectUnauthorized: !isLoopbackHost(url.hostname) } : {}) }
  return new Promise((resolve, reject) => {
    let answered = false
    const req = lib.request(url, options, (res) => {
      answered = true
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size > o.maxBytes) res.destroy(new TransportError(`the answer from ${url.origin} exceeds ${o.maxBytes} bytes`))
        else chunks.push(c)
      })
      res.on('end', () => {
        const text = Buffer.concat(chunks)
        if (res.statusCode !== 200) return reject(new TransportError(`${url.href} answered HTTP ${res.statusCode}${text.length < 500 ? `: ${text.toString('utf8').trim()}` : ''}`))
        const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
        if (type !== o.contentType) return reject(new TransportError(`${url.href} answered with content type '${type}', not '${o.contentType}'`))
        resolve(new Uint8Array(text))
      })
      res.on('error', (e) => reject(new TransportError(`reading the answer from ${url.origin}: ${e.message}`)))
    })
    req.on('timeout', () => req.destroy(new TransportError(`no answer from ${url.origin} within ${Math.round(o.timeoutMs / 1000)} s`)))
    req.on('error', (e) => {
      if (e instanceof TransportError) return reject(e)
      const resetOnReuse = req.reusedSocket && !answered && (e as NodeJS.ErrnoException).code === 'ECONNRESET'
      reject(new TransportError(`cannot reach ${url.origin}: ${e.message}`, resetOnReuse))
    })
    req.end(body)
  })
}
