/**
 * svcd and svcc end to end (issue: foundation): start-up, auth, errors, svcc's global options, config errors,
 * the data-dir lock, the admin token file, TLS certificate reuse and reload, graceful shutdown.
 *
 *   svcc ──HTTPS──► svcd (free loopback port, temporary data dir)
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync, copyFileSync } from 'node:fs'
import { X509Certificate } from 'node:crypto'
import tls from 'node:tls'
import { join } from 'node:path'
import { freePort, HEALTHY_MS, httpsRequest, startDaemon, svcc, svcdOnce, tempDir } from '../helpers/daemon.js'
import { SHARED } from '../helpers/paths.js'
import { waitFor } from '../helpers/wait.js'

t.test('svcc info, health and --api against a running svcd', async (t) => {
  const d = await startDaemon(t)
  const info = await svcc(['info'], { env: d.env })
  t.equal(info.code, 0, info.stderr)
  t.match(info.stdout, /^Version: \d+\.\d+\.\d+\nStarted: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d\n$/)
  const json = await svcc(['info', '--format', 'json'], { env: d.env })
  t.match(JSON.parse(json.stdout), { version: String, started: Number })

  const health = await svcc(['health'], { env: d.env })
  t.equal(health.code, 0, health.stderr)
  const none = await svcc(['health', '-f', 'none'], { env: d.env })
  t.equal(none.stdout, '')

  const wrong = await svcc(['health'], { env: { ...d.env, SVC_CLI_TOKEN: 'wrong-token' } })
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /refused the token/)
  t.match(wrong.stderr, /api-invalid-credentials/)

  const byArg = await svcc(['health', '--token', d.token, '--server', d.url], { env: { SVC_CLI_TOKEN: 'wrong', SVC_CLI_SERVER: 'https://localhost:1/' } })
  t.equal(byArg.code, 0, 'arguments beat the environment')
})

t.test('svcc health failures: nothing listening, bad server URI, missing values', async (t) => {
  const port = await freePort()
  const down = await svcc(['health'], { env: { SVC_CLI_SERVER: `https://localhost:${port}/`, SVC_CLI_TOKEN: 'x' } })
  t.equal(down.code, 3)
  t.match(down.stderr, /cannot connect/)

  const http = await svcc(['health'], { env: { SVC_CLI_SERVER: 'http://x', SVC_CLI_TOKEN: 'x' } })
  t.equal(http.code, 2)
  t.match(http.stderr, /SVC_CLI_SERVER 'http:\/\/x' is invalid/)
  t.match(http.stderr, /https:\/\/<host:port>\//)

  const path = await svcc(['health'], { env: { SVC_CLI_SERVER: 'https://localhost:3000/api/', SVC_CLI_TOKEN: 'x' } })
  t.equal(path.code, 2)

  const noServer = await svcc(['health'], { env: { SVC_CLI_TOKEN: 'x' } })
  t.equal(noServer.code, 2)
  t.match(noServer.stderr, /--server.*SVC_CLI_SERVER/)
  const noToken = await svcc(['health'], { env: { SVC_CLI_SERVER: 'https://localhost:3000/' } })
  t.equal(noToken.code, 2)
  t.match(noToken.stderr, /--token.*SVC_CLI_TOKEN/)
  const badCa = await svcc(['show'], { env: { SVC_CLI_MY_CA: 'bad/ca', SVC_CLI_SERVER: 'https://localhost:3000/', SVC_CLI_TOKEN: 'x' } })
  t.equal(badCa.code, 2)
  t.match(badCa.stderr, /SVC_CLI_MY_CA 'bad\/ca' is not a valid CA name/)
})

t.test('svcc --api prints the call with a masked token and sends nothing', async (t) => {
  const port = await freePort()
  const env = { SVC_CLI_SERVER: `https://localhost:${port}/`, SVC_CLI_TOKEN: 'secret-token-value' }
  const r = await svcc(['--api', 'info'], { env })
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, new RegExp(`^GET https://localhost:${port}/stats/info\\n`))
  t.match(r.stdout, /Authorization: Bearer \*\*\*/)
  t.notMatch(r.stdout, /secret-token-value/)
  const viaEnv = await svcc(['health'], { env: { ...env, SVC_CLI_API: '1' } })
  t.equal(viaEnv.code, 0)
  t.match(viaEnv.stdout, /^GET https:\/\/localhost:\d+\/api\/v1\/health\/cas\?/)
})

t.test('HTTP errors: 401 with WWW-Authenticate, 404, 405, labelled JSON bodies', async (t) => {
  const d = await startDaemon(t)
  const auth = { Authorization: `Bearer ${d.token}` }
  const noToken = await httpsRequest(d.url + 'api/v1/authorized')
  t.equal(noToken.status, 401)
  t.equal(noToken.headers['www-authenticate'], 'Bearer')
  t.same(JSON.parse(noToken.body), { label: 'api-invalid-credentials', msg: 'Invalid credentials: no bearer token', args: { reason: 'no bearer token' } })
  const wrong = await httpsRequest(d.url + 'api/v1/authorized', { headers: { Authorization: 'Bearer nope' } })
  t.equal(wrong.status, 401)
  t.equal(JSON.parse(wrong.body).args.reason, 'token refused')
  const unknownNoAuth = await httpsRequest(d.url + 'api/v1/nothing-here')
  t.equal(unknownNoAuth.status, 401, 'unknown API paths reveal nothing without a token')
  const unknown = await httpsRequest(d.url + 'api/v1/nothing-here', { headers: auth })
  t.equal(unknown.status, 404)
  t.equal(JSON.parse(unknown.body).label, 'api-unknown-resource')
  t.equal((await httpsRequest(d.url + 'no/such/path')).status, 401, 'default deny: any path that is not public needs the token')
  const elsewhere = await httpsRequest(d.url + 'no/such/path', { headers: auth })
  t.equal(elsewhere.status, 404)
  t.equal((await httpsRequest(d.url + 'health', { method: 'DELETE' })).status, 401, 'only GET and HEAD of /health are public')
  const method = await httpsRequest(d.url + 'health', { method: 'DELETE', headers: auth })
  t.equal(method.status, 405)
  t.equal(JSON.parse(method.body).label, 'api-unknown-method')
  const health = await httpsRequest(d.url + 'health')
  t.equal(health.status, 200)
})

t.test('config errors stop start-up with a message naming the key and the file', async (t) => {
  const dir = tempDir(t)
  const cases: [string, RegExp][] = [
    ['bogus_key = 1\n', /unknown key 'bogus_key'/],
    ['port = "3000"\n', /key 'port' must be an integer/],
    ['data_dir = "/tmp/x"\n', /key 'data_dir' must end with '\/'/],
    ['[repository]\nwhatever = true\n', /unknown key 'repository.whatever'/],
    ['https_mode = "maybe"\n', /key 'https_mode' must be one of/],
    ['port = \n', /invalid TOML/],
  ]
  for (const [text, message] of cases) {
    const file = join(dir, 'bad.toml')
    writeFileSync(file, text)
    const r = await svcdOnce(['-c', file], { cwd: dir })
    t.equal(r.code, 1, text)
    t.match(r.stderr, message, text)
    t.match(r.stderr, file, 'names the file')
  }
  const missing = await svcdOnce(['-c', join(dir, 'missing.toml')], { cwd: dir })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /cannot read config file/)
  const help = await svcdOnce(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /Usage: svcd \[-c <file>\]/)
  const version = await svcdOnce(['--version'])
  t.match(version.stdout, /^svcd \d+\.\d+\.\d+/)
})

t.test('hostile and careless configs stop start-up with a clear message and exit 1 (issue 22 defect 10)', async (t) => {
  const dir = tempDir(t)
  const base = `data_dir = "${join(dir, 'data')}/"\nport = ${await freePort()}\nadmin_token = "a-token-of-20-chars"\n`
  writeFileSync(join(dir, 'kek'), '5a'.repeat(32) + '\n', { mode: 0o600 })
  const cases: [string, string, Record<string, string>, RegExp][] = [
    ['a [__proto__] table', `${base}[__proto__]\ntoString = "x"\n`, {}, /unknown key '__proto__'/],
    ['a [constructor] table', `${base}[constructor]\nname = "x"\n`, {}, /unknown key 'constructor'/],
    ['a one-character SVC_ADMIN_TOKEN', base, { SVC_ADMIN_TOKEN: 'x' }, /SVC_ADMIN_TOKEN must be at least 16 characters/],
    ['a log_file in a missing directory', `${base}log_type = "file"\nlog_file = "${join(dir, 'no-such-dir', 'svcd.log')}"\n`, {}, /cannot open log_file '.*no-such-dir\/svcd\.log': its directory .* does not exist/],
    ['a storage_uri with a password in the query, database unreachable', `${base}key_encryption_key_file = "${join(dir, 'kek')}"\nstorage_uri = "postgresql://svc@127.0.0.1:1/svc?password=s3cret-pw&connect_timeout=2"\n`, {}, /127\.0\.0\.1:1\/svc\?password=\*\*\*/],
  ]
  for (const [what, text, env, message] of cases) {
    const file = join(dir, 'c.toml')
    writeFileSync(file, text)
    const r = await svcdOnce(['-c', file], { cwd: dir, env })
    t.equal(r.code, 1, `${what}: exit 1`)
    t.match(r.stderr, message, `${what}: says why`)
    t.notMatch(r.stderr, /TypeError|\n\s+at |s3cret-pw/, `${what}: no stack, no secret`)
  }
})

t.test('one svcd per data dir; a stale lock does not block a restart', async (t) => {
  const d = await startDaemon(t)
  const second = await svcdOnce(['-c', d.configFile])
  t.equal(second.code, 1)
  t.match(second.stderr, /another svcd \(pid \d+\) is already using the data directory/)
  t.equal(await d.stop(), 0, 'graceful stop exits 0')
  t.notOk(existsSync(join(d.dataDir, 'svcd.lock')), 'the lock is released')
  // A crashed process leaves a lock with a pid that no longer runs.
  writeFileSync(join(d.dataDir, 'svcd.lock'), '999999 12345\n')
  const again = await startDaemon(t, { dataDir: d.dataDir, token: d.token })
  t.equal((await svcc(['health'], { env: again.env })).code, 0)
  const killed = await again.stop('SIGKILL')
  t.equal(killed, null)
  t.ok(existsSync(join(d.dataDir, 'svcd.lock')), 'kill -9 leaves the lock behind')
  const third = await startDaemon(t, { dataDir: d.dataDir, token: d.token })
  t.equal((await svcc(['health'], { env: third.env })).code, 0, 'the stale lock of a killed svcd is replaced')
})

t.test('a generated admin token is written with mode 0600 and never logged', async (t) => {
  const dir = tempDir(t)
  const port = await freePort()
  const file = join(dir, 'f.toml')
  writeFileSync(file, `data_dir = "${dir}/data/"\nport = ${port}\n`)
  const { spawn } = await import('node:child_process')
  const { SVCD } = await import('../helpers/paths.js')
  const p = spawn(process.execPath, [SVCD, '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => p.kill('SIGKILL'))
  let out = ''
  p.stderr.on('data', (c: Buffer) => (out += c.toString()))
  await waitFor('svcd started', () => /svcd started/.test(out), 60_000, 100)
  const tokenFile = join(dir, 'data', 'admin_token')
  t.equal(statSync(tokenFile).mode & 0o777, 0o600)
  const token = readFileSync(tokenFile, 'utf8').trim()
  t.match(token, /^[0-9a-f]{64}$/)
  t.match(out, /admin_token/, 'the log says where the token is')
  t.notMatch(out, new RegExp(token), 'the log never shows the token')
  const r = await svcc(['health'], { env: { SVC_CLI_SERVER: `https://localhost:${port}/`, SVC_CLI_TOKEN: token } })
  t.equal(r.code, 0)
  t.equal(statSync(join(dir, 'data', 'ssl', 'key.pem')).mode & 0o777, 0o600, 'TLS key is 0600')
})

t.test('the generated TLS certificate is reused across restarts', async (t) => {
  const d = await startDaemon(t)
  const first = await peerFingerprint(d.port)
  const cert = new X509Certificate(readFileSync(join(d.dataDir, 'ssl', 'cert.pem')))
  t.match(cert.subjectAltName ?? '', /DNS:localhost/)
  t.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/)
  t.match(cert.subjectAltName ?? '', /IP Address:(0:0:0:0:0:0:0:1|::1)/)
  await d.stop()
  const again = await startDaemon(t, { dataDir: d.dataDir, token: d.token, port: d.port })
  t.equal(await peerFingerprint(again.port), first)
})

const MAKE_TLS = join(SHARED, 'tools', 'make-tls-cert.sh')
const noTlsTool = existsSync(MAKE_TLS) ? false : `needs ${MAKE_TLS}`

t.test('https_mode = "existing": a renewed certificate is picked up, a broken one is ignored', { skip: noTlsTool }, async (t) => {
  const dir = tempDir(t)
  const mk = (name: string) => {
    execFileSync(MAKE_TLS, [join(dir, name)], { stdio: 'ignore' })
    return { cert: join(dir, name, 'cert.pem'), key: join(dir, name, 'key.pem') }
  }
  const a = mk('a')
  const b = mk('b')
  const live = { cert: join(dir, 'live-cert.pem'), key: join(dir, 'live-key.pem') }
  copyFileSync(a.cert, live.cert)
  copyFileSync(a.key, live.key)
  const d = await startDaemon(t, { toml: `https_mode = "existing"\ntls_cert = "${live.cert}"\ntls_key = "${live.key}"` })
  const fpA = new X509Certificate(readFileSync(a.cert)).fingerprint256
  const fpB = new X509Certificate(readFileSync(b.cert)).fingerprint256
  t.equal(await peerFingerprint(d.port), fpA)
  copyFileSync(b.key, live.key)
  copyFileSync(b.cert, live.cert)
  await waitFor('the new TLS certificate to be served', async () => (await peerFingerprint(d.port)) === fpB, 60_000, 100)
  t.equal(await peerFingerprint(d.port), fpB, 'renewed certificate in use without a restart')
  writeFileSync(live.cert, 'not a certificate\n')
  await waitFor('the ignored TLS change in the log', async () => /TLS certificate change ignored/.test(d.output()), 60_000, 100)
  t.equal(await peerFingerprint(d.port), fpB, 'a broken file leaves the previous certificate in use')
})

t.test('a second daemon with a minimal config runs beside the first', async (t) => {
  const first = await startDaemon(t)
  const dir = tempDir(t)
  const port = await freePort()
  const file = join(dir, 'f.toml')
  writeFileSync(file, `data_dir = "${dir}/data/"\nport = ${port}\nadmin_token = "second-daemon-token"\n`)
  const { spawn } = await import('node:child_process')
  const { SVCD } = await import('../helpers/paths.js')
  const p = spawn(process.execPath, [SVCD, '-c', file], { stdio: 'ignore' })
  t.teardown(() => p.kill('SIGKILL'))
  const env = { SVC_CLI_SERVER: `https://localhost:${port}/`, SVC_CLI_TOKEN: 'second-daemon-token' }
  await waitFor('svcc health to succeed', async () => (await svcc(['health'], { env })).code === 0, HEALTHY_MS)
  t.equal((await svcc(['health'], { env })).code, 0)
  t.equal((await svcc(['health'], { env: first.env })).code, 0)
})

async function peerFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? ''
      s.end()
      resolve(fp)
    })
    s.on('error', reject)
  })
}
