/**
 * svcd on PostgreSQL (issue 14 items 1 and 3): `storage_uri = "postgresql://…"` keeps the whole state in a database
 * of a cluster the test starts itself (test/helpers/postgres.ts), nothing in <data_dir>/svcd.db, and the private keys
 * in it sealed under the key-encryption key, nothing in <data_dir>/keys; the state and the RRDP session survive a
 * restart; a bad storage_uri, an unreachable database, a KEK file open to others and a wrong KEK stop start-up with
 * a clear message and exit code 1 (a wrong KEK writes nothing).
 *
 *   ta ── testbed ── alice (ROAs)        svcd ── PostgreSQL (own cluster, loopback port)
 */
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { freePort, svcdOnce, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { readRrdp } from '../helpers/repo.js'

const cluster = await startPostgres(t)
const kekDir = tempDir(t)

/** A key-encryption key file holding `hex` (64 hex digits) with `mode`. */
function kekFile(name: string, hex: string, mode = 0o600): string {
  const file = join(kekDir, name)
  writeFileSync(file, hex + '\n')
  chmodSync(file, mode)
  return file
}
const KEK = kekFile('kek', '5a'.repeat(32))

t.test('the whole state in PostgreSQL, across a restart', async (t) => {
  const uri = cluster.createDatabase('svc_state')
  const toml = `storage_uri = "${uri}"\nkey_encryption_key_file = "${KEK}"\n`
  const ports = { port: await freePort(), rsync: await freePort() }
  const dataDir = join(tempDir(t), 'data/')
  const d = await repoDaemon(t, { toml, ports, dataDir })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file('alice.txt', 'A: 10.1.0.0/16 => 65000\nA: 10.2.0.0/16-20 => 65000\n')])
  await waitPublished(d, (uris) => uris.some((u) => u.endsWith('.roa')))
  const list = await d.cli(['list'])
  const show = await d.cli(['show', '-c', 'alice'])
  const roas = await d.cli(['roas', 'list', '-c', 'alice'])
  const before = await readRrdp(d.url)
  t.notOk(existsSync(join(dataDir, 'svcd.db')), 'no SQLite database in the data directory')
  t.notOk(existsSync(join(dataDir, 'keys')) && readdirSync(join(dataDir, 'keys')).length > 0, 'no key files in the data directory')
  t.ok(Number(cluster.psql('svc_state', 'SELECT count(*) FROM signer_keys')) >= 3, 'the keys (ta, testbed, alice, pubd) are in the database')
  t.match(cluster.psql('svc_state', 'SELECT string_agg(handle, \',\' ORDER BY handle) FROM ca_snapshots'), /alice,ta,testbed/, 'the CAs are rows in PostgreSQL')
  t.equal(await d.stop(), 0)

  const again = await repoDaemon(t, { toml, ports, dataDir })
  t.equal(await again.cli(['list']), list, 'the same CAs')
  t.equal(await again.cli(['show', '-c', 'alice']), show, 'the same CA')
  t.equal(await again.cli(['roas', 'list', '-c', 'alice']), roas, 'the same ROAs')
  const after = await readRrdp(again.url)
  t.equal(after.notification.sessionId, before.notification.sessionId, 'the RRDP session continues')
  t.ok(Number(after.notification.serial) >= Number(before.notification.serial), 'its serial never goes back')
  t.equal(await again.stop(), 0)
})

t.test('a bad storage_uri or an unreachable database stops start-up with exit code 1', async (t) => {
  const dir = tempDir(t)
  const run = async (storage: string, kek = KEK) => {
    const file = join(dir, 'svcd.toml')
    writeFileSync(file, `data_dir = "${join(dir, 'data')}/"\nport = ${await freePort()}\nadmin_token = "test-token-xyz-0123"\nstorage_uri = "${storage}"\nkey_encryption_key_file = "${kek}"\n`)
    return svcdOnce(['-c', file], { cwd: dir, timeoutMs: 60_000 })
  }
  const scheme = await run('mysql://svc@127.0.0.1/svc')
  t.equal(scheme.code, 1)
  t.match(scheme.stderr, /key 'storage_uri' storage URI scheme 'mysql' is not supported: use sqlite:\/\/<file> or postgresql:\/\//)
  const nodb = await run(`postgresql://svc@127.0.0.1:${cluster.port}`)
  t.equal(nodb.code, 1)
  t.match(nodb.stderr, /storage URI 'postgresql:\/\/svc@127\.0\.0\.1:\d+' names no database/)
  const down = await run(`postgresql://svc:secret-pw@127.0.0.1:${await freePort()}/svc`)
  t.equal(down.code, 1)
  t.match(down.stderr, /^svcd: cannot connect to database postgresql:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/svc: .*ECONNREFUSED/m)
  t.notMatch(down.stderr, /secret-pw/, 'the password is not shown')
  t.notMatch(down.stderr, /fatal|    at /, 'a message, no stack trace')
})

t.test('the key-encryption key: refused when open to others, and when wrong (nothing written)', async (t) => {
  const uri = cluster.createDatabase('svc_kek')
  const dir = tempDir(t)
  const run = async (kek: string) => {
    const file = join(dir, 'svcd.toml')
    writeFileSync(file, `data_dir = "${join(dir, 'data')}/"\nport = ${await freePort()}\nadmin_token = "test-token-xyz-0123"\nstorage_uri = "${uri}"\nkey_encryption_key_file = "${kek}"\n`)
    return svcdOnce(['-c', file], { cwd: dir, timeoutMs: 60_000 })
  }
  const open = await run(kekFile('open', '5a'.repeat(32), 0o644))
  t.equal(open.code, 1)
  t.match(open.stderr, /^svcd: the key-encryption key file '.*open' has mode 0644; it must be 0600/m)
  t.equal(cluster.psql('svc_kek', "SELECT to_regclass('properties') IS NULL"), 't\n', 'refused before the database is touched')

  // A first start with the right key (stopped by SIGTERM once healthy), then a start with another.
  const d = await repoDaemon(t, { toml: `storage_uri = "${uri}"\nkey_encryption_key_file = "${KEK}"\n` })
  t.equal(await d.stop(), 0)
  const snapshot = () => cluster.psql('svc_kek', "SELECT (SELECT count(*) FROM signer_keys) || '/' || (SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM properties) || '/' || (SELECT count(*) FROM ca_history)")
  const before = snapshot()
  const wrong = await run(kekFile('wrong', 'a5'.repeat(32)))
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /^svcd: the key-encryption key in '.*wrong' is not the one this database's private keys are sealed with; refusing to start \(nothing was written\)/m)
  t.equal(snapshot(), before, 'nothing written')
  t.notMatch(wrong.stderr, /a5a5a5|5a5a5a/, 'no key shown')
})
