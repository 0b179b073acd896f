/**
 * svcd migrate (issue 14 item 2): a round trip SQLite → PostgreSQL → SQLite shows the same svcc output and RRDP
 * content after each step, keys included (a change after each step is signed and published); a non-empty target, the
 * same storage twice and a running svcd are refused.
 *
 *   ta ── testbed ── alice (ROAs)      data dir D: SQLite ──migrate──► PostgreSQL ──migrate──► SQLite in E
 */
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { freePort, svcdOnce, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { readRrdp } from '../helpers/repo.js'

const cluster = await startPostgres(t)

/** What svcc and RRDP show of the instance: CAs, alice's details and ROAs, the parent's view of alice, the repository. */
async function views(d: RepoDaemon): Promise<Record<string, string>> {
  const rrdp = await readRrdp(d.url)
  const published = [...rrdp.objects].map(([uri, hash]) => `${uri} ${hash}`).sort().join('\n')
  return {
    list: await d.cli(['list']),
    alice: await d.cli(['show', '-c', 'alice']),
    roas: await d.cli(['roas', 'list', '-c', 'alice']),
    child: await d.cli(['children', 'info', '-c', 'testbed', '--child', 'alice']),
    history: await d.cli(['history', '-c', 'alice']),
    publishers: await d.cli(['publishers', 'list']),
    session: `${rrdp.notification.sessionId} ${rrdp.notification.serial}`,
    published,
  }
}

/** Add a ROA and wait until the repository shows a change (signed with the CA's stored key). */
async function addRoa(d: RepoDaemon, line: string): Promise<void> {
  const published = async () => [...(await readRrdp(d.url)).objects.keys()].filter((u) => u.endsWith('.roa')).length
  const before = await published()
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file(`roa-${before}.txt`, `A: ${line}\n`)])
  await waitFor('the new ROA published', async () => (await published()) > before, 60_000)
}

t.test('SQLite → PostgreSQL → SQLite: the same svcc output and RRDP content', async (t) => {
  const dataDir = join(tempDir(t), 'data/')
  const back = join(tempDir(t), 'back')
  const ports = { port: await freePort(), rsync: await freePort() }
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '3c'.repeat(32))
  chmodSync(kek, 0o600)
  const uri = cluster.createDatabase('svc_migrate')
  const migrateConfig = join(tempDir(t), 'migrate.toml')
  writeFileSync(migrateConfig, `data_dir = "${dataDir}"\nkey_encryption_key_file = "${kek}"\n`)
  const migrate = (from: string, to: string) => svcdOnce(['migrate', '--from', from, '--to', to, '-c', migrateConfig], { timeoutMs: 120_000 })

  // 1. SQLite, the default.
  const d = await repoDaemon(t, { ports, dataDir })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file('a.txt', 'A: 10.1.0.0/16 => 65000\n')])
  await waitPublished(d, (uris) => uris.some((u) => u.endsWith('.roa')))
  const onSqlite = await views(d)
  const running = await migrate('sqlite://', uri)
  t.equal(running.code, 1, 'refused while svcd runs')
  t.match(running.stderr, /^svcd: migrate: .*lock|running/m)
  t.equal(await d.stop(), 0)

  // 2. Into PostgreSQL.
  const toPg = await migrate('sqlite://', uri)
  t.equal(toPg.code, 0, toPg.stderr)
  t.match(toPg.stdout, /^copied .*svcd\.db to postgresql:\/\/svc@127\.0\.0\.1:\d+\/svc_migrate\n/)
  t.match(toPg.stdout, /ca_snapshots: 3\n[^]*private keys: [1-9]/)
  const again = await migrate('sqlite://', uri)
  t.equal(again.code, 1)
  t.match(again.stderr, /^svcd: migrate: the target postgresql:\/\/svc@127\.0\.0\.1:\d+\/svc_migrate is not empty \(properties: \d+, .*ca_snapshots: 3.*keys: \d+\); migrate copies into an empty database only/m)
  const same = await migrate('sqlite://', 'sqlite://svcd.db')
  t.equal(same.code, 1)
  t.match(same.stderr, /--from and --to are the same storage/)

  const pgToml = `storage_uri = "${uri}"\nkey_encryption_key_file = "${kek}"\n`
  const p = await repoDaemon(t, { ports, dataDir, toml: pgToml })
  t.same(await views(p), onSqlite, 'on PostgreSQL: the same svcc output and RRDP content')
  await addRoa(p, '10.2.0.0/16 => 65001')
  const onPg = await views(p)
  t.not(onPg.published, onSqlite.published, 'a change signed with the migrated keys is published')
  t.equal(await p.stop(), 0)

  // 3. Back into SQLite, in another directory (its keys beside it).
  const toSqlite = await migrate(uri, `sqlite://${back}/svcd.db`)
  t.equal(toSqlite.code, 0, toSqlite.stderr)
  t.ok(existsSync(join(back, 'keys')) && readdirSync(join(back, 'keys')).length > 0, 'the keys are files again')
  const s = await repoDaemon(t, { ports, dataDir, toml: `storage_uri = "sqlite://${back}/svcd.db"\n` })
  t.same(await views(s), onPg, 'back on SQLite: the same svcc output and RRDP content')
  await addRoa(s, '10.3.0.0/16 => 65002')
  t.equal(await s.stop(), 0)
})

t.test('usage: migrate needs --from and --to; they belong to migrate only', async (t) => {
  const missing = await svcdOnce(['migrate', '--from', 'sqlite://'])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /^svcd: migrate needs --from <storage_uri> and --to <storage_uri>/)
  const stray = await svcdOnce(['--to', 'sqlite://'])
  t.equal(stray.code, 2)
  t.match(stray.stderr, /--from, --to and --key-encryption-key-file belong to svcd migrate, backup and restore/)
  const help = await svcdOnce(['--help'])
  t.match(help.stdout, /svcd migrate --from <storage_uri> --to <storage_uri> \[-c <file>\]/)
})
