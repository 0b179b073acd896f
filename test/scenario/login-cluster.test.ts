/**
 * Login sessions in a cluster (issue 24 item 1: "valid on every instance of a cluster", design.md §7 and §9): two
 * svcd instances with `auth_type = "config-file"` on one PostgreSQL database. A user logs in on A and the session
 * works on B at once; a logout on B is refused on A at once (the next request, no cache to wait for).
 *
 *   svcd A ──┐
 *            ├── PostgreSQL (own cluster, loopback port)
 *   svcd B ──┘
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { freePort, httpsRequest, startDaemon, svcc, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'

const pg = await startPostgres(t)

const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` })
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

t.test('a session started on one instance works on the other; a logout on either ends it on both', async (t) => {
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '5a'.repeat(32) + '\n', { mode: 0o600 })
  const user = await svcc(['config', 'user', '--id', 'joe@example.com', '--role', 'readonly'], { stdin: 'joe-password\n' })
  t.equal(user.code, 0, user.stderr)
  const ports = await Promise.all([freePort(), freePort()])
  const toml = [`storage_uri = "${pg.createDatabase('svc_logins')}"`, `key_encryption_key_file = "${kek}"`, 'auth_type = "config-file"', `service_uri = "https://localhost:${ports[0]}/"`, user.stdout].join('\n')
  const [a, b] = await Promise.all(ports.map((port) => startDaemon(t, { port, toml, logLevel: 'info', token: 'cluster-login-token' })))

  const login = await httpsRequest(a!.url + 'auth/login', { method: 'POST', headers: basic('joe@example.com', 'joe-password') })
  t.equal(login.status, 200, 'logged in on A')
  const token = (JSON.parse(login.body) as { token: string }).token
  for (const [name, d] of [['A', a!], ['B', b!]] as const) {
    t.equal((await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(token) })).status, 200, `the session works on ${name}`)
  }

  const out = await httpsRequest(b!.url + 'auth/logout', { method: 'POST', headers: bearer(token) })
  t.same([out.status, out.body], [200, '/'], 'logged out on B')
  for (const [name, d] of [['A', a!], ['B', b!]] as const) {
    const r = await httpsRequest(d.url + 'api/v1/authorized', { headers: bearer(token) })
    t.same([r.status, (JSON.parse(r.body) as { label: string }).label], [401, 'api-invalid-credentials'], `refused on ${name} at once`)
  }

  // Both instances wrote to the one audit trail.
  const rows = pg.psql('svc_logins', "SELECT kind || ' ' || actor FROM audit_log WHERE kind IN ('login', 'logout') ORDER BY seq").trim().split('\n').map((s) => s.trim())
  t.same(rows, ['login joe@example.com', 'logout joe@example.com'])
})
