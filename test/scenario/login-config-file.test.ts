/**
 * Config-file users against a real svcd (issue 24 items 1 and 4, acceptance "Krill's own web UI still logs in with
 * the admin token, and with a config-file user"): the entries come from the real `svcc config user`; Krill's web UI
 * sequence (GET /auth/login, POST /auth/login with Basic credentials or the admin token, then GET /api/v1/authorized
 * and GET /stats/info with the token it got) works for both auth types; a readonly user reads and is refused every
 * write; logout ends the session at once; a wrong password and an unknown user get the same 401; failed logins are
 * limited (429 with Retry-After); the audit table and /metrics show it all, and never a password.
 */
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_ROLES, PERMISSIONS, type Role } from '../../src/api/access.js'
import { isPublic } from '../../src/http/auth.js'
import { compile, ROUTE_PERMISSIONS, routePermission, allowed } from '../../src/http/route-permissions.js'
import { Db } from '../../src/store/db.js'
import { httpsRequest, startDaemon, svcc, type Daemon } from '../helpers/daemon.js'

const VIEWER: Role = { name: 'viewer', permissions: new Set(['ca-list'] as const) }
const ROLES: Record<string, Role> = { ...DEFAULT_ROLES, viewer: VIEWER }

/** What svcd's route table answers a role for a request, today (the table grows as routes get entries). */
function expected(method: string, path: string, role: string): 200 | 403 {
  if (isPublic(method, path)) return 200
  const r = ROLES[role]!
  const hit = routePermission(ROUTE_PERMISSIONS.map(compile), method, path)
  const ok = hit ? allowed({ id: 'x', provider: 'config-file', role: r }, hit.entry.need, hit.ca) : PERMISSIONS.every((p) => r.permissions.has(p))
  return ok ? 200 : 403
}

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` })
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })
const json = (body: string) => JSON.parse(body) as Record<string, unknown>

/** An [auth_users] entry from the real svcc (password on standard input). */
async function entry(args: string[], password: string): Promise<string> {
  const r = await svcc(['config', 'user', ...args], { stdin: `${password}\n${password}\n` })
  if (r.code !== 0) throw new Error(`svcc config user: ${r.code} ${r.stderr}`)
  return r.stdout.replace(/^\[auth_users\]\n/, '')
}

/**
 * Krill's web UI logging in (krill-ui: the login page, then the token it keeps): what GET /auth/login says, the
 * LoggedInUser, and the two calls it makes next with the token.
 */
async function krillUiLogin(d: Daemon, headers: Record<string, string>) {
  const page = await httpsRequest(d.url + 'auth/login')
  const login = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers })
  const user = login.status === 200 ? json(login.body) : undefined
  const token = typeof user?.token === 'string' ? user.token : ''
  const authorized = await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(token) })
  const info = await httpsRequest(d.url + 'stats/info', { headers: bearer(token) })
  return { page, login, user, token, authorized, info }
}

t.test('config-file users: the Krill UI login, roles, logout, refusals, limits, audit and metrics', async (t) => {
  const users = [await entry(['--id', 'ro@example.com', '--role', 'readonly'], 'ro-password'), await entry(['--id', 'rw@example.com', '-a', 'role=readwrite'], 'rw p\u00e4ssword'), await entry(['--id', 'vic', '--role', 'viewer'], 'vic-password')]
  const toml = ['auth_type = "config-file"', '[auth_roles]', 'viewer = { permissions = ["ca-list"] }', '[auth_users]', ...users].join('\n')
  const d = await startDaemon(t, { toml, logLevel: 'info' })

  // Krill's web UI with a config-file user.
  const ro = await krillUiLogin(d, basic('ro@example.com', 'ro-password'))
  t.equal(ro.page.status, 200)
  t.equal(ro.page.body, '/login?withId=true', "GET /auth/login: Krill's user/password form")
  t.match(ro.page.headers['content-type'], /^text\/plain/)
  t.equal(ro.login.status, 200, 'POST /auth/login with Basic credentials')
  t.equal(ro.login.headers['cache-control'], 'no-store')
  t.same({ id: ro.user?.id, attributes: ro.user?.attributes }, { id: 'ro@example.com', attributes: { role: 'readonly' } })
  t.match(ro.token, /^svcs_/, 'a session secret, not the admin token')
  t.equal(ro.authorized.status, 200, 'GET /api/v1/authorized with the session')
  t.equal(ro.info.status, expected('GET', '/stats/info', 'readonly'), `GET /stats/info: ${ro.info.body}`)

  // A read, and every write refused with nothing changed.
  const before = await httpsRequest(d.url + 'api/v1/cas', { headers: bearer(d.token) })
  const list = await httpsRequest(d.url + 'api/v1/cas', { headers: bearer(ro.token) })
  t.equal(list.status, expected('GET', '/api/v1/cas', 'readonly'), `readonly GET /api/v1/cas: ${list.body}`)
  const add = await httpsRequest(d.url + 'api/v1/cas', { method: 'POST', headers: { ...bearer(ro.token), 'Content-Type': 'application/json' }, body: JSON.stringify({ handle: 'intruder' }) })
  t.equal(add.status, 403, 'readonly POST /api/v1/cas')
  t.equal(json(add.body).label, 'api-insufficient-rights')
  const cli = await svcc(['add', '-c', 'intruder2'], { env: { ...d.env, SVC_CLI_TOKEN: ro.token } })
  t.equal(cli.code, 1, 'svcc with the session token: the write is refused')
  t.match(cli.stderr, /api-insufficient-rights/)
  const health = await svcc(['health'], { env: { ...d.env, SVC_CLI_TOKEN: ro.token } })
  t.same([health.code, /^Healthy/.test(health.stdout)], [0, true], 'svcc with the session token works')
  t.equal((await httpsRequest(d.url + 'api/v1/cas', { headers: bearer(d.token) })).body, before.body, 'no CA was added')

  // The admin token logs in too (Krill's CLI and UI), whatever the auth_type.
  const admin = await krillUiLogin(d, bearer(d.token))
  t.same([admin.login.status, admin.user?.id, admin.user?.attributes], [200, 'admin-token', { role: 'admin' }])
  t.same([admin.authorized.status, admin.info.status], [200, 200])

  // A user whose role lacks `login`: the right password, and still no session.
  const vic = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('vic', 'vic-password') })
  t.same([vic.status, json(vic.body).label], [403, 'api-insufficient-rights'])

  // Logout ends the session at once; a second logout (or of nothing) still answers '/'.
  const rw = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('rw@example.com', ' rw p\u00e4ssword ') })
  t.equal(rw.status, 200, 'readwrite logs in (non-ASCII password, surrounding blanks trimmed as Krill does)')
  const rwToken = json(rw.body).token as string
  // No session fixation: the client never names its session; every login answers a fresh secret, even one made
  // while presenting another session.
  const again = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: { ...basic('rw@example.com', 'rw p\u00e4ssword'), Cookie: `svc_login=x; session=${rwToken}` } })
  const againToken = json(again.body).token as string
  t.equal(again.status, 200)
  t.not(againToken, rwToken, 'a second login of the same user is a new session')
  t.notOk(again.headers['set-cookie'], 'no session cookie is set')
  for (const token of [ro.token, ro.token, 'svcs_nosuchsession']) {
    const out = await httpsRequest(d.url + 'auth/logout', { method: 'POST', headers: bearer(token) })
    t.same([out.status, out.body], [200, '/'], 'POST /auth/logout → /')
  }
  t.equal((await httpsRequest(d.url + 'auth/logout', { method: 'POST' })).status, 200, 'without any token')
  const after = await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(ro.token) })
  t.same([after.status, json(after.body).label], [401, 'api-invalid-credentials'], 'the ended session is refused')
  t.equal((await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(rwToken) })).status, 200, "another user's session lives on")

  // A wrong password and an unknown user: the same answer. No credentials at all: 401, counted as no guess.
  const wrong = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('ro@example.com', 'guess') })
  const unknown = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('nobody@example.com', 'ro-password') })
  t.equal(wrong.status, 401)
  t.same(json(unknown.body), json(wrong.body), 'no user enumeration')
  t.equal(json(wrong.body).label, 'api-invalid-credentials')
  for (let i = 0; i < 3; i++) t.equal((await httpsRequest(d.url + 'auth/login', { method: 'POST' })).status, 401, 'no credentials')

  // Five failures for one user (2 so far from this source + 3 more for rw): the sixth is refused unchecked.
  for (let i = 0; i < 5; i++) t.equal((await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('rw@example.com', `guess${i}`) })).status, 401)
  const limited = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('rw@example.com', 'rw p\u00e4ssword') })
  t.same([limited.status, json(limited.body).label], [429, 'api-rate-limited-login'], 'rw is held back, even with the right password')
  t.match(limited.headers['retry-after'], /^[1-9]\d*$/)
  t.ok(Number(limited.headers['retry-after']) <= 60)
  // Seven failures from 127.0.0.1 so far: three more and the source is held back for every user.
  for (let i = 0; i < 3; i++) t.equal((await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic(`x${i}`, 'y') })).status, 401)
  const bySource = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('ro@example.com', 'ro-password') })
  t.same([bySource.status, json(bySource.body).label], [429, 'api-rate-limited-login'], 'ten failures from this source')

  // The audit table: logins, failures (with the name tried) and logouts; no password, no session secret.
  const db = Db.openSecondary(join(d.dataDir, 'svcd.db'))
  t.teardown(() => db.close())
  const rows = db.prepare("SELECT actor, provider, kind, success, source, details FROM audit_log WHERE kind IN ('login', 'login-failed', 'logout') ORDER BY seq").all() as { actor: string; provider: string; kind: string; success: number; source: string; details: string }[]
  const seen = rows.map((r) => `${r.kind} ${r.actor} ${r.provider}`)
  t.same(seen.filter((s) => s.startsWith('login ')), ['login ro@example.com config-file', 'login admin-token admin-token', 'login rw@example.com config-file', 'login rw@example.com config-file'])
  t.same(seen.filter((s) => s.startsWith('logout')), ['logout ro@example.com config-file'], 'the one session that ended')
  t.same(seen.filter((s) => s.startsWith('login-failed')).length, 1 + 2 + 5 + 3, 'vic, wrong and unknown, five guesses for rw, three more')
  t.ok(rows.every((r) => /^(::ffff:)?127\.0\.0\.1$/.test(r.source)), 'each names its source')
  const dump = JSON.stringify(db.prepare('SELECT * FROM audit_log').all())
  for (const secret of ['ro-password', 'rw p\u00e4ssword', 'vic-password', 'guess', ro.token.slice(5), rwToken.slice(5), againToken.slice(5), d.token]) t.notOk(dump.includes(secret), 'no secret in the audit table')

  // /metrics counts them (the admin token reads it).
  const metrics = (await httpsRequest(d.url + 'metrics', { headers: bearer(d.token) })).body
  const count = (name: string, provider: string) => Number(new RegExp(`^${name}\\{provider="${provider}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0)
  t.equal(count('svc_auth_logins_total', 'config-file'), 3)
  t.equal(count('svc_auth_logins_total', 'admin-token'), 1)
  t.equal(count('svc_auth_login_failures_total', 'config-file'), 11)
  t.equal(count('svc_auth_login_rate_limited_total', 'config-file'), 2)
  t.notMatch(d.output(), /ro-password|vic-password|guess\d/, 'no password in the log')

  // Hostile requests to the login door: a labelled refusal each, and no session started.
  const sessions = () => (db.prepare('SELECT count(*) AS n FROM auth_sessions').get() as { n: number }).n
  const sessionsBefore = sessions()
  const big = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: { ...basic('ro@example.com', 'ro-password'), 'Content-Type': 'application/json' }, body: 'x'.repeat(17 * 1024) })
  t.same([big.status, json(big.body).label], [413, 'api-post-body-exceeds-limit'], 'an oversized body')
  for (const authorization of ['Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Digest username="ro@example.com"']) {
    const r = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: { Authorization: authorization } })
    t.same([r.status, json(r.body).label], [401, 'api-invalid-credentials'], `malformed credentials: ${authorization.slice(0, 12)}`)
  }
  t.equal(sessions(), sessionsBefore, 'no session was started')
})

t.test("Krill's web UI still logs in with the admin token (auth_type admin-token, the default)", async (t) => {
  const d = await startDaemon(t, { logLevel: 'info' })
  const ui = await krillUiLogin(d, bearer(d.token))
  t.same([ui.page.status, ui.page.body], [200, '/login'], "Krill's token form")
  t.same([ui.login.status, ui.user], [200, { token: d.token, id: 'admin-token', attributes: { role: 'admin' } }])
  t.same([ui.authorized.status, ui.info.status], [200, 200])
  const wrong = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: bearer(`${d.token}x`) })
  t.same([wrong.status, json(wrong.body).label], [401, 'api-invalid-credentials'])
  const password = await httpsRequest(d.url + 'auth/login', { method: 'POST', headers: basic('ro@example.com', 'ro-password') })
  t.same([password.status, json(password.body).label], [401, 'api-invalid-credentials'], 'no user logs in with a password here')
  t.same([(await httpsRequest(d.url + 'auth/logout', { method: 'POST', headers: bearer(d.token) })).body], ['/'])
  t.equal((await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(d.token) })).status, 200, 'the admin token is no session: logging out does not end it')
})

/**
 * `svcc config user` on a terminal (a pseudo-terminal from Python's pty module): it asks twice, echoes nothing of
 * what is typed (backspace edits), and the entry it prints verifies; two different answers exit 1 with nothing printed.
 */
t.test('svcc config user on a terminal: asked twice, never echoed', async (t) => {
  const py = [
    'import os, pty, sys, time',
    'pid, fd = pty.fork()',
    'if pid == 0:',
    '    os.execvp(sys.argv[1], sys.argv[1:])',
    'out = b""',
    'def until(pat):',
    '    global out',
    '    end = time.time() + 60',
    '    while pat not in out and time.time() < end:',
    '        try: out += os.read(fd, 1024)',
    '        except OSError: return',
    'until(b"password: ")',
    'os.write(fd, b"tty-p\\x7fpass\\r")',
    'until(b"again: ")',
    'os.write(fd, os.environ["SECOND"].encode() + b"\\r")',
    'until(b"\\x00never")',
    'code = os.waitpid(pid, 0)[1] >> 8',
    'sys.stdout.write(out.decode() + "\\nexit " + str(code) + "\\n")',
  ].join('\n')
  const { spawnSync } = await import('node:child_process')
  const { SVCC } = await import('../helpers/paths.js')
  const run = (second: string) => spawnSync('python3', ['-c', py, process.execPath, SVCC, 'config', 'user', '--id', 'tty@example.com', '--role', 'readonly'], { encoding: 'utf8', env: { ...process.env, SECOND: second }, timeout: 120_000 })
  const ok = run('tty-pass')
  if (ok.error || ok.status !== 0) return t.skip(`python3 with pty is not available: ${ok.error?.message ?? ok.stderr}`, async () => undefined)
  t.match(ok.stdout, /Enter the password: \r?\nEnter it again: \r?\n\[auth_users\]/, 'two prompts, then the entry')
  t.notMatch(ok.stdout, /tty-p|pass\r/, 'nothing typed is echoed')
  t.match(ok.stdout, /\nexit 0\n$/)
  const m = /password_hash = "([0-9a-f]{64})", salt = "([0-9a-f]{64})"/.exec(ok.stdout)
  const { krillPasswordHash } = await import('../../src/crypto/password-hash.js')
  t.equal(m && (await krillPasswordHash('tty@example.com', 'tty-pass', Buffer.from(m[2]!, 'hex'))).toString('hex'), m?.[1], 'the hash of what was typed, backspace applied')
  const differ = run('something else')
  t.match(differ.stdout, /the two passwords differ/)
  t.notMatch(differ.stdout, /auth_users/)
  t.match(differ.stdout, /\nexit 1\n$/)
})
