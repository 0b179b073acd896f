/**
 * The alerts of config.ts (design.md §11, issue 26 §3): `[alerts]` with the delivery back-off, and one
 * `[[alerts.webhooks]]` table per receiver: `name`, `url`, `events` (alarm kinds; empty or absent: every kind),
 * `secret_file` (the HMAC-SHA256 key, mode 0600 or stricter; the secret itself is never part of the config or of a
 * message). A webhook URL is https, or http to a loopback address only (a receiver on the same host).
 */
import { readFileSync, statSync } from 'node:fs'
import { ALARM_KINDS, type AlarmKind } from './liveness/model.js'
import { isLoopbackHost } from './util/uri.js'

export interface WebhookConfig {
  name: string
  url: string
  events: AlarmKind[]
  secret_file: string
}

export interface AlertsConfig {
  webhooks: WebhookConfig[]
  /** The first retry of a failed delivery waits this long; each further one twice as long, up to max_retry_seconds. */
  retry_seconds: number
  max_retry_seconds: number
  /** A delivery is given up after this many attempts (visible in svcc alerts). */
  max_attempts: number
  timeout_seconds: number
}

export function alertsDefaults(): AlertsConfig {
  return { webhooks: [], retry_seconds: 10, max_retry_seconds: 3600, max_attempts: 12, timeout_seconds: 10 }
}

type Problem = (key: string, what: string) => Error

const SECTION_KEYS: Record<string, [number, number]> = { retry_seconds: [1, 86400], max_retry_seconds: [1, 7 * 86400], max_attempts: [1, 1000], timeout_seconds: [1, 300] }
const WEBHOOK_KEYS = new Set(['name', 'url', 'events', 'secret_file'])

/** `[alerts]` and its `[[alerts.webhooks]]`, checked key by key into `into`. */
export function parseAlerts(value: unknown, into: AlertsConfig, bad: Problem): void {
  if (!isTable(value)) throw bad('alerts', 'must be a table ([alerts])')
  for (const [k, v] of Object.entries(value)) {
    if (k === 'webhooks') {
      into.webhooks = parseWebhooks(v, bad)
      continue
    }
    const range = Object.hasOwn(SECTION_KEYS, k) ? SECTION_KEYS[k] : undefined
    if (!range) throw bad(`alerts.${k}`, 'is not an option of [alerts]')
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range[0] || v > range[1]) throw bad(`alerts.${k}`, `must be an integer from ${range[0]} to ${range[1]}`)
    ;(into as unknown as Record<string, number>)[k] = v
  }
}

function parseWebhooks(value: unknown, bad: Problem): WebhookConfig[] {
  if (!Array.isArray(value)) throw bad('alerts.webhooks', 'must be an array of tables ([[alerts.webhooks]])')
  const out: WebhookConfig[] = []
  value.forEach((v, i) => {
    const at = `alerts.webhooks[${i}]`
    if (!isTable(v)) throw bad(at, 'must be a table')
    for (const k of Object.keys(v)) if (!WEBHOOK_KEYS.has(k)) throw bad(`${at}.${k}`, 'is not an option of a webhook')
    const str = (k: string): string => {
      const x = v[k]
      if (typeof x !== 'string' || x === '') throw bad(`${at}.${k}`, 'must be set to a non-empty string')
      return x
    }
    const name = str('name')
    if (name.length > 100 || !/^[A-Za-z0-9._-]+$/.test(name)) throw bad(`${at}.name`, 'must be at most 100 characters of A-Z, a-z, 0-9, ".", "_" and "-"')
    if (out.some((w) => w.name === name)) throw bad(`${at}.name`, `"${name}" names two webhooks`)
    const url = str('url')
    let u: URL
    try {
      u = new URL(url)
    } catch {
      throw bad(`${at}.url`, 'must be an https:// URL')
    }
    if (u.username || u.password) throw bad(`${at}.url`, 'must not carry a user or password (the body is signed with secret_file)')
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) throw bad(`${at}.url`, 'must be an https:// URL (http:// only to a loopback address)')
    const events = v.events ?? []
    if (!Array.isArray(events) || events.some((e) => typeof e !== 'string' || !(ALARM_KINDS as readonly string[]).includes(e))) {
      throw bad(`${at}.events`, `must be an array of alarm kinds: ${ALARM_KINDS.map((k) => `"${k}"`).join(', ')}`)
    }
    out.push({ name, url, events: [...new Set(events as AlarmKind[])], secret_file: str('secret_file') })
  })
  return out
}

/** Checked at start (verifyConfig): each secret file exists, is 0600 or stricter and holds at least 16 bytes. */
export function verifyAlerts(a: AlertsConfig, fail: (key: string, what: string) => never): void {
  a.webhooks.forEach((w, i) => {
    const key = `alerts.webhooks[${i}].secret_file`
    let mode: number
    try {
      mode = statSync(w.secret_file).mode
    } catch (e) {
      fail(key, `cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
    }
    if ((mode! & 0o077) !== 0) fail(key, `must not be readable by group or others (mode ${(mode! & 0o777).toString(8)}; chmod 600)`)
    if (readWebhookSecret(w.secret_file).length < 16) fail(key, 'must hold at least 16 bytes (a long random string: openssl rand -hex 32)')
  })
  if (a.max_retry_seconds < a.retry_seconds) fail('alerts.max_retry_seconds', 'must be at least alerts.retry_seconds')
}

/** The secret's bytes (surrounding white space and a final newline are not part of it). */
export function readWebhookSecret(file: string): Uint8Array {
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim())
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}
