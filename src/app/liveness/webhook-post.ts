/**
 * One webhook POST (design.md §11): a JSON body with its headers, answered by any status. TLS is verified; only for a
 * loopback receiver is a self-signed certificate accepted (as protocol-client.ts does for RFC 6492/8181 peers).
 * Redirects are not followed (a receiver that moved is a failed delivery, visible in svcc alerts); at most 64 KiB of
 * the answer is read and then dropped; the whole exchange is bounded by `timeoutMs`.
 */
import http from 'node:http'
import https from 'node:https'
import { isLoopbackHost } from '../../util/uri.js'

const MAX_ANSWER = 64 * 1024

/** Resolves to the HTTP status; rejects with a one-line reason on a transport error or a timeout. */
export function postWebhook(uri: string, body: Uint8Array, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  const url = new URL(uri)
  const lib = url.protocol === 'http:' ? http : https
  const options = {
    method: 'POST', timeout: timeoutMs,
    headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'User-Agent': 'svc-alerts' },
    ...(url.protocol === 'https:' ? { rejectUnauthorized: !isLoopbackHost(url.hostname) } : {}),
  }
  return new Promise((resolve, reject) => {
    let read = 0
    const req = lib.request(url, options, (res) => {
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER) res.destroy()
      })
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('close', () => resolve(res.statusCode ?? 0))
      res.on('error', () => resolve(res.statusCode ?? 0))
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code ? `${e.code}: ${e.message}` : e.message)))
    req.end(body)
  })
}
