/**
 * [alerts] and [[alerts.webhooks]] (config-alerts.ts): accepted as documented in config/svcd.toml; every mistake
 * refused with the key it concerns; the secret file must be 0600 and long enough, and its content is in no message.
 */
import t, { type Test } from 'tap'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { applyToml, defaults, verifyConfig, type Config } from '../../src/config.js'
import { readWebhookSecret } from '../../src/config-alerts.js'
import { tempDir } from '../helpers/daemon.js'

const SECRET = 'f00dfeedf00dfeedf00dfeedf00dfeed'

function load(text: string): Config {
  const c = defaults()
  applyToml(c, text, 'test.toml')
  verifyConfig(c, 'test.toml')
  return c
}

function secretFile(t: Test, mode = 0o600, content = `${SECRET}\n`): string {
  const f = join(tempDir(t), 'hook.secret')
  writeFileSync(f, content)
  chmodSync(f, mode)
  return f
}

t.test('defaults: no webhook, the documented back-off', async (t) => {
  t.same(defaults().alerts, { webhooks: [], retry_seconds: 10, max_retry_seconds: 3600, max_attempts: 12, timeout_seconds: 10 })
})

t.test('webhooks as documented', async (t) => {
  const f = secretFile(t)
  const c = load(`[alerts]\nretry_seconds = 5\nmax_attempts = 3\n\n[[alerts.webhooks]]\nname = "ops"\nurl = "https://hooks.example.net/svc"\nevents = ["repository-check-failed", "publish-stalled"]\nsecret_file = "${f}"\n\n[[alerts.webhooks]]\nname = "local"\nurl = "http://127.0.0.1:9000/x"\nsecret_file = "${f}"\n`)
  t.same(c.alerts.webhooks, [
    { name: 'ops', url: 'https://hooks.example.net/svc', events: ['repository-check-failed', 'publish-stalled'], secret_file: f },
    { name: 'local', url: 'http://127.0.0.1:9000/x', events: [], secret_file: f },
  ])
  t.same([c.alerts.retry_seconds, c.alerts.max_attempts], [5, 3])
  t.equal(new TextDecoder().decode(readWebhookSecret(f)), SECRET, 'the final newline is not part of the secret')
})

t.test('mistakes are refused with the key they concern, and never show the secret', async (t) => {
  const f = secretFile(t)
  const hook = (extra: string) => `[[alerts.webhooks]]\nname = "ops"\nsecret_file = "${f}"\n${extra}`
  const cases: [string, RegExp][] = [
    ['[alerts]\nretries = 3\n', /key 'alerts.retries' is not an option of \[alerts\]/],
    ['[alerts]\nretry_seconds = 0\n', /key 'alerts.retry_seconds' must be an integer from 1/],
    ['[alerts]\nretry_seconds = 100\nmax_retry_seconds = 10\n', /key 'alerts.max_retry_seconds' must be at least alerts.retry_seconds/],
    [hook('url = "ftp://x/"\n'), /key 'alerts.webhooks\[0\].url' must be an https:\/\/ URL/],
    [hook('url = "http://hooks.example.net/"\n'), /http:\/\/ only to a loopback address/],
    [hook('url = "https://user:pw@hooks.example.net/"\n'), /must not carry a user or password/],
    [hook('url = "https://h.example/"\nevents = ["everything"]\n'), /key 'alerts.webhooks\[0\].events' must be an array of alarm kinds/],
    [hook('url = "https://h.example/"\ntoken = "x"\n'), /key 'alerts.webhooks\[0\].token' is not an option of a webhook/],
    [`[[alerts.webhooks]]\nname = "ops"\nurl = "https://h.example/"\n`, /key 'alerts.webhooks\[0\].secret_file' must be set/],
    [hook('url = "https://h.example/"\n') + hook('url = "https://i.example/"\n').replace('[[alerts.webhooks]]', '\n[[alerts.webhooks]]'), /"ops" names two webhooks/],
    [`[[alerts.webhooks]]\nname = "a b"\nurl = "https://h.example/"\nsecret_file = "${f}"\n`, /key 'alerts.webhooks\[0\].name' must be at most 100 characters/],
    [`[[alerts.webhooks]]\nname = "ops"\nurl = "https://h.example/"\nsecret_file = "${join(tempDir(t), 'none')}"\n`, /secret_file' cannot be read: ENOENT/],
  ]
  for (const [text, re] of cases) t.throws(() => load(text), re, text.split('\n').find((l) => l.includes('=') && !l.includes('name')) ?? text)
  const loose = secretFile(t, 0o644)
  t.throws(() => load(`[[alerts.webhooks]]\nname = "ops"\nurl = "https://h.example/"\nsecret_file = "${loose}"\n`), /must not be readable by group or others \(mode 644; chmod 600\)/)
  const short = secretFile(t, 0o600, 'short')
  let message = ''
  try {
    load(`[[alerts.webhooks]]\nname = "ops"\nurl = "https://h.example/"\nsecret_file = "${short}"\n`)
  } catch (e) {
    message = (e as Error).message
  }
  t.match(message, /must hold at least 16 bytes/)
  t.notMatch(message, /short/, 'the secret is not in the message')
})
