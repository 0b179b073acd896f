/**
 * A real webhook receiver on loopback for the alert tests (issue 26): an HTTP server that checks each POST's
 * X-Svc-Signature-256 against the shared secret (as an operator's receiver would, liveness/alarms.ts
 * `signatureValid`), records every request, and answers the statuses a test queues (default 204). Tests wait for a
 * delivery with `waitFor` (an event), never for a time. `close()` is registered on the test's teardown.
 */
import { chmodSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { signatureValid, type WebhookBody } from '../../src/liveness/alarms.js'
import { waitFor } from './wait.js'

export interface Received {
  headers: http.IncomingHttpHeaders
  raw: Buffer
  body: WebhookBody
  /** The signature header verified against the secret. */
  signed: boolean
  /** The status this request was answered with. */
  status: number
}

export interface WebhookReceiver {
  url: string
  received: Received[]
  /** Answer the next requests with these statuses, in order (then 204 again). */
  answer(...statuses: number[]): void
  /** The signed deliveries of `event` about `subject` (any when absent). */
  events(event: string, subject?: string): Received[]
  close(): Promise<void>
}

export async function webhookReceiver(t: { teardown(f: () => unknown): void }, secret: string): Promise<WebhookReceiver> {
  const key = new TextEncoder().encode(secret)
  const received: Received[] = []
  const queued: number[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const header = req.headers['x-svc-signature-256']
      const status = queued.shift() ?? 204
      let body: WebhookBody
      try {
        body = JSON.parse(raw.toString('utf8')) as WebhookBody
      } catch {
        body = { delivery: '', event: 'test', at: '', instance: '', service_uri: '' }
      }
      received.push({ headers: req.headers, raw, body, signed: signatureValid(key, raw, typeof header === 'string' ? header : undefined), status })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  t.teardown(close)
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (...statuses) => void queued.push(...statuses),
    events: (event, subject) => received.filter((r) => r.signed && r.status < 300 && r.body.event === event && (subject === undefined || r.body.alarm?.subject === subject)),
    close,
  }
}

/** `[[alerts.webhooks]]` TOML naming `hook` (every kind), with `secret` in a 0600 file of the test's own. */
export function webhookToml(t: { teardown(f: () => unknown): void }, hook: WebhookReceiver, secret: string, dir: string): string {
  const file = join(dir, 'webhook.secret')
  writeFileSync(file, secret, { mode: 0o600 })
  chmodSync(file, 0o600)
  return `\n[[alerts.webhooks]]\nname = "test"\nurl = "${hook.url}"\nsecret_file = "${file}"\n`
}

/** Waits for a signed `event` about `subject` received after `from` (an index of `hook.received`) matching `reason`. */
export function waitAlarm(hook: WebhookReceiver, from: number, event: 'alarm.raised' | 'alarm.cleared', subject: string, reason: RegExp | undefined, ms: number): Promise<Received> {
  return waitFor(`${event} ${subject}${reason ? ` ${reason}` : ''}`, () => hook.received.slice(from).find((r) => r.signed && r.body.event === event && r.body.alarm?.subject === subject && (reason === undefined || reason.test(r.body.alarm.reason))), ms, 100)
}
