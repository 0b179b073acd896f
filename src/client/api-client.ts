/**
 * The HTTP client of the svc JSON API (Krill's KrillClient): `ApiCall`s describe one request each (built by the
 * functions in calls.ts); `ApiClient.send` performs it, `describe` prints it for `svcc --api`. TLS is verified,
 * except that a loopback server's self-signed certificate is accepted (spec §4.1 rule 5).
 */
import https from 'node:https'
import type { IncomingMessage } from 'node:http'
import { JSON_CONTENT_TYPE } from '../api/media-types.js'
import { isErrorBody, type ErrorBody } from '../api/status.js'
import type { Clock } from '../util/clock.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** One API request, not yet sent. `T` is the type of the JSON answer (void when the answer is empty). */
export interface ApiCall<T> {
  readonly method: HttpMethod
  readonly path: string
  readonly body?: unknown
  /** A non-JSON body (RFC 8183 XML) with its content type. */
  readonly rawBody?: { contentType: string; text: string }
  /** What the answer holds: JSON, nothing, or text (XML documents). */
  readonly expect: 'json' | 'empty' | 'text'
  /** Only carries the type parameter. */
  readonly __type?: T
}

export type ClientErrorKind = 'unreachable' | 'tls' | 'protocol' | 'server'

/** A failed call: `kind` decides the exit code (design.md §4), `body` is the server's error body if any. */
export class ClientError extends Error {
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    readonly status?: number,
    readonly body?: ErrorBody,
  ) {
    super(message)
    this.name = 'ClientError'
  }
}

export interface ClientOptions {
  /** `https://<host>:<port>/` */
  server: string
  token: string
  userAgent?: string
  timeoutMs?: number
  /** The timers of the client (the grace for an answer after a failed upload); cli.ts hands in the system's. */
  clock: Pick<Clock, 'setTimeout'>
}

/** Bytes written at a time while uploading, so that an early answer stops the upload. */
const UPLOAD_SLICE = 64 * 1024

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_CERT|EPROTO)/

export class ApiClient {
  private readonly base: URL
  private readonly agent: https.Agent

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.server)
    this.agent = new https.Agent({ keepAlive: false, rejectUnauthorized: !isLoopback(this.base.hostname) })
  }

  /** The `--api` rendering: method and full URL, headers with the token masked, and the body. */
  describe(call: ApiCall<unknown>): string {
    const lines = [`${call.method} ${this.url(call).href}`]
    for (const [k, v] of Object.entries(this.headers(call, true))) lines.push(`${k}: ${v}`)
    if (call.rawBody) lines.push('', call.rawBody.text.trimEnd())
    else if (call.body !== undefined) lines.push('', JSON.stringify(call.body, null, 2))
    return lines.join('\n') + '\n'
  }

  /** Send the call and return the JSON answer (or the text, or nothing). */
  async send<T>(call: ApiCall<T>): Promise<T> {
    const res = await this.request(call)
    if (res.status >= 400) throw this.serverError(res.status, res.text)
    if (call.expect === 'empty') return undefined as T
    if (call.expect === 'text') return res.text as T
    try {
      return JSON.parse(res.text) as T
    } catch {
      throw new ClientError('protocol', `the server at ${this.base.origin} did not answer with JSON (status ${res.status})`, res.status)
    }
  }

  private url(call: ApiCall<unknown>): URL {
    return new URL(call.path.replace(/^\//, ''), this.base)
  }

  private headers(call: ApiCall<unknown>, masked: boolean): Record<string, string> {
    const h: Record<string, string> = { Authorization: `Bearer ${masked ? '***' : this.opts.token}` }
    if (call.rawBody) h['Content-Type'] = call.rawBody.contentType
    else if (call.body !== undefined) h['Content-Type'] = JSON_CONTENT_TYPE
    if (!masked) h['User-Agent'] = this.opts.userAgent ?? 'svcc'
    return h
  }

  /**
   * Send the request and read the answer. The body goes out in slices, and no more of it once an answer arrived: a
   * server refusing the upload (413, wrong type) answers before it has read it all and may then close the
   * connection, so a write that fails (EPIPE, ECONNRESET) after an answer arrived, or while one is arriving, does
   * not hide that answer. Only a failure with no answer at all is a network error.
   */
  private request(call: ApiCall<unknown>): Promise<{ status: number; text: string }> {
    const text = call.rawBody ? call.rawBody.text : call.body !== undefined ? JSON.stringify(call.body) : undefined
    const body = text === undefined ? undefined : Buffer.from(text, 'utf8')
    // A body goes on a connection marked keep-alive (the agent still closes it after the answer): svcd then answers a
    // refused upload and reads the rest of it on, where with `Connection: close` it closes at once and the reset of
    // the still-arriving upload destroys the answer in our socket buffer before we can read it.
    const headers = { ...this.headers(call, false), ...(body ? { 'Content-Length': String(body.length), Connection: 'keep-alive' } : {}) }
    const url = this.url(call)
    return new Promise((resolve, reject) => {
      let answer: IncomingMessage | undefined
      let settled = false
      const chunks: Buffer[] = []
      const settle = (f: () => void) => {
        if (settled) return
        settled = true
        f()
        // An upload cut short by the answer is not finished: drop the connection now that the answer is read.
        if (!req.writableFinished) req.destroy()
      }
      const answered = () => settle(() => resolve({ status: answer!.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      const req = https.request(url, { method: call.method, headers, agent: this.agent, timeout: this.opts.timeoutMs ?? 300_000 }, (res: IncomingMessage) => {
        answer = res
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', answered)
        // The connection went during the answer. An error answer (a refused upload) is what arrived of it (cut short,
        // it reads as "no error body" rather than as a connection failure); any other answer is lost.
        const cut = () => (res.complete || (res.statusCode ?? 0) >= 400 ? answered() : settle(() => reject(new ClientError('unreachable', `the connection to ${this.base.origin} broke during the answer`))))
        res.on('error', cut)
        res.on('close', cut)
      })
      req.on('timeout', () => req.destroy(new ClientError('unreachable', `no answer from ${this.base.origin} in time`)))
      req.on('error', (e) => {
        if (answer) return // the answer's own events settle it
        if (e instanceof ClientError) return settle(() => reject(e))
        // A write that failed because the server closed after answering: the answer may still be in the socket's
        // buffer, being parsed; give it a moment before calling this a network failure.
        const code = (e as NodeJS.ErrnoException).code
        if (body && (code === 'EPIPE' || code === 'ECONNRESET')) this.opts.clock.setTimeout(() => settle(() => reject(this.networkError(e))), 200)
        else settle(() => reject(this.networkError(e)))
      })
      if (!body) return void req.end()
      let at = 0
      const pump = (): void => {
        while (at < body.length) {
          if (answer || req.destroyed) return
          const more = req.write(body.subarray(at, at + UPLOAD_SLICE))
          at += UPLOAD_SLICE
          if (!more) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
  }

  private networkError(e: Error & { code?: string }): ClientError {
    const code = e.code ?? ''
    if (TLS_CODES.test(code) || /SSL|TLS|certificate/i.test(e.message)) {
      return new ClientError('tls', `TLS failure talking to ${this.base.origin}: ${e.message}`)
    }
    const why = code === 'ECONNREFUSED' ? 'connection refused (is svcd running?)' : code === 'ENOTFOUND' ? 'unknown host' : e.message
    return new ClientError('unreachable', `cannot connect to ${this.base.origin}: ${why}`)
  }

  private serverError(status: number, text: string): ClientError {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    if (!isErrorBody(body)) return new ClientError('protocol', `the server answered status ${status} without an error body`, status)
    const prefix = status === 401 ? 'the server refused the token: ' : ''
    return new ClientError('server', `${prefix}${body.msg}`, status, body)
  }
}

/** localhost, 127.0.0.0/8 and ::1: where svcd's self-signed certificate is accepted. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1'
}
