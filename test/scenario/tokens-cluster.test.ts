/**
 * Scoped API tokens on a cluster (issue 24 item 3, design.md §7): three svcd instances on one PostgreSQL database; a
 * token created on A works on B and C at once; revoked on B, it is refused at once on A and C (no instance caches a
 * token: each request reads the store).
 *
 *   svcd A, B, C ── PostgreSQL (own cluster)
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { NewTokenJson, TokenListJson } from '../../src/api/tokens.js'
import { freePort, httpsRequest, startDaemon, svcc, tempDir, type Daemon } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'

const pg = await startPostgres(t)
const uri = pg.createDatabase('svc_tokens')
const kek = join(tempDir(t), 'kek')
writeFileSync(kek, '5a'.repeat(32) + '\n', { mode: 0o600 })

async function cli(d: Daemon, args: string[]): Promise<string> {
  const r = await svcc(args, { env: d.env })
  if (r.code !== 0) throw new Error(`svcc ${args.join(' ')} at ${d.url} failed (${r.code}): ${r.stderr}`)
  return r.stdout
}
const authorized = async (d: Daemon, token: string) => (await httpsRequest(`${d.url}api/v1/authorized`, { headers: { Authorization: `Bearer ${token}` } })).status

t.test('a token made on A works on B and C; revoked on B, refused at once on A and C', async (t) => {
  const ports = await Promise.all([freePort(), freePort(), freePort()])
  const shared = [`storage_uri = "${uri}"`, `key_encryption_key_file = "${kek}"`, 'cluster_poll_ms = 200', `service_uri = "https://localhost:${ports[0]}/"`].join('\n')
  const [a, b, c] = (await Promise.all(ports.map((port) => startDaemon(t, { port, toml: shared, logLevel: 'info', token: 'cluster-test-token' })))) as [Daemon, Daemon, Daemon]

  const made = JSON.parse(await cli(a, ['tokens', 'add', '--name', 'ci', '--role', 'readonly', '--format', 'json'])) as NewTokenJson
  for (const [name, d] of [['A', a], ['B', b], ['C', c]] as const) t.equal(await authorized(d, made.token), 200, `the token works on ${name} at once`)
  const onC = (JSON.parse(await cli(c, ['tokens', 'list', '--format', 'json'])) as TokenListJson).tokens
  t.same(onC.map((x) => [x.id, x.name, x.role]), [[made.id, 'ci', 'readonly']], 'C lists the token made on A')
  t.ok(onC[0]!.last_used, 'with its last use')

  await cli(b, ['tokens', 'revoke', made.id])
  t.equal(await authorized(a, made.token), 401, 'revoked on B: refused on A at once')
  t.equal(await authorized(c, made.token), 401, 'and on C')
  t.equal(await authorized(b, made.token), 401, 'and on B')
  t.ok((JSON.parse(await cli(a, ['tokens', 'list', '--format', 'json'])) as TokenListJson).tokens[0]!.revoked, 'A lists it as revoked')
  t.equal(await authorized(a, a.token), 200, 'the admin token still works')
})
