/**
 * svcd backup and svcd restore (issue 27 item 5) through the command line: a backup of a running svcd, restored after
 * its database and keys were lost (the repository files left in its data directory), starts with the same CAs and
 * ROAs, a new RRDP session (the old one's files removed), and manifests re-issued with numbers above any issued
 * before; its keys sign new objects. A wrong key-encryption key and a non-empty target are refused
 * with nothing written; usage errors exit 2. A backup of svcd on PostgreSQL restores into SQLite the same way.
 *
 *   ta ── testbed ── alice (ROAs)      data dir D ──backup──► file; D loses svcd.db and keys/ ──restore──► D
 */
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { decodeManifest } from '../../src/objects/manifest.js'
import { decodeNotification, decodeSnapshot } from '../../src/protocol/rrdp.js'
import { connect, repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'
import { freePort, httpsGet, svcdOnce, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'

/** The RRDP session and serial, and the number of every manifest in the snapshot. */
async function published(d: RepoDaemon): Promise<{ session: string; serial: number; deltas: number[]; snapshotUri: string; manifests: Map<string, bigint> }> {
  const n = decodeNotification((await httpsGet(`${d.url}rrdp/notification.xml`)).body)
  const snap = await httpsGet(n.snapshot.uri)
  const manifests = new Map(decodeSnapshot(snap.raw).publishes.filter((p) => p.uri.endsWith('.mft')).map((p) => [p.uri, decodeManifest(p.content).manifestNumber]))
  return { session: n.sessionId, serial: Number(n.serial), deltas: n.deltas.map((x) => Number(x.serial)), snapshotUri: n.snapshot.uri, manifests }
}

function kekFile(t: Parameters<typeof tempDir>[0], hex: string): string {
  const f = join(tempDir(t), 'kek')
  writeFileSync(f, hex.repeat(32))
  chmodSync(f, 0o600)
  return f
}

t.test('a backup of a running svcd, restored after its database was lost: same CAs and ROAs, a new session, higher manifest numbers', async (t) => {
  const ports = { port: await freePort(), rsync: await freePort() }
  const kek = kekFile(t, '4d')
  const toml = `key_encryption_key_file = "${kek}"\n`
  const d = await repoDaemon(t, { ports, toml })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file('a.txt', 'A: 10.1.0.0/16 => 65000\nA: 10.2.0.0/16-20 => 65001\n')])
  await waitPublished(d, (uris) => uris.filter((u) => u.endsWith('.roa')).length === 2)
  const roas = await d.cli(['roas', 'list', '-c', 'alice'])
  const list = await d.cli(['list'])
  const before = await published(d)

  const file = join(tempDir(t), 'svcd.backup')
  const backup = await svcdOnce(['backup', '-c', d.configFile, '--to', file], { timeoutMs: 120_000 })
  t.equal(backup.code, 0, backup.stderr)
  t.match(backup.stdout, new RegExp(`^backed up .*svcd\\.db to ${file} \\(\\d+ bytes, [0-9.]+ s\\)\\n`))
  t.match(backup.stdout, /\n {2}ca_snapshots: 3\n[^]*\n {2}private keys: [1-9]\d* \(sealed under the key-encryption key\)\n {2}RRDP: session [0-9a-f-]{36}, serial \d+\n$/)
  t.equal(await d.stop(), 0)

  // The database and keys are lost; the repository files of the old session stay in the data directory.
  const target = d.dataDir
  for (const f of ['svcd.db', 'svcd.db-wal', 'svcd.db-shm', 'keys']) rmSync(join(target, f), { recursive: true, force: true })
  t.ok(existsSync(join(target, 'repo', 'rrdp', before.session)), "the old session's files are on disk")
  const restoreConfig = join(tempDir(t), 'restore.toml')
  writeFileSync(restoreConfig, `data_dir = "${target}"\nkey_encryption_key_file = "${kek}"\n`)
  const wrong = await svcdOnce(['restore', '-c', restoreConfig, '--from', file, '--key-encryption-key-file', kekFile(t, 'd4')], { timeoutMs: 60_000 })
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /^svcd: restore: the key-encryption key in '.*' is not the one the keys in '.*svcd\.backup' are sealed with; nothing was restored\n$/)
  t.notOk(existsSync(join(target, 'svcd.db')), 'no database was created')

  const restoreStarted = Date.now()
  const restore = await svcdOnce(['restore', '-c', restoreConfig, '--from', file], { timeoutMs: 120_000 })
  t.equal(restore.code, 0, restore.stderr)
  t.match(restore.stdout, new RegExp(`^restored ${file} \\(taken \\S+ of .*svcd\\.db by svcd \\S+\\) into ${target}svcd\\.db\\n`))
  t.match(restore.stdout, `RRDP: the backup's session ${before.session} (serial `)
  t.match(restore.stdout, /a new session starts at serial 1 when svcd starts\n {2}manifest and CRL numbers: \d+ CA keys continue after \d+; re-issued when svcd starts\n$/)
  const again = await svcdOnce(['restore', '-c', restoreConfig, '--from', file], { timeoutMs: 60_000 })
  t.equal(again.code, 1)
  t.match(again.stderr, /^svcd: restore: the target .*svcd\.db is not empty \(properties: \d+, .*\); restore copies into an empty database only\n$/)

  const r = await repoDaemon(t, { ports, dataDir: target, toml })
  t.equal(await r.cli(['roas', 'list', '-c', 'alice']), roas, 'the same ROAs')
  t.equal(await r.cli(['list']), list, 'the same CAs')
  // Every manifest re-issued, numbered above the restore time in ms (so above anything issued before).
  const after = await waitFor('every manifest re-issued', async () => {
    const p = await published(r)
    return [...p.manifests.values()].every((n) => n > BigInt(restoreStarted)) && p.manifests.size === before.manifests.size ? p : undefined
  }, 120_000)
  t.not(after.session, before.session, 'a new RRDP session')
  t.ok(after.serial < before.serial + 10 && after.deltas.every((s) => s <= after.serial), `the new session counts from 1 (serial ${after.serial}, deltas ${after.deltas.join(',')})`)
  t.same([...after.manifests.keys()].sort(), [...before.manifests.keys()].sort(), 'the same manifests')
  const old = await httpsGet(before.snapshotUri)
  t.equal(old.status, 404, "the old session's snapshot is not served")
  t.notOk(existsSync(join(target, 'repo', 'rrdp', before.session)), "the old session's files are removed")
  // The restored keys sign new objects.
  await r.cli(['roas', 'update', '-c', 'alice', '--delta', r.file('b.txt', 'A: 10.3.0.0/16 => 65002\n')])
  await waitPublished(r, (uris) => uris.filter((u) => u.endsWith('.roa')).length === 3)
  t.equal(await r.stop(), 0)
})

t.test('a running svcd on PostgreSQL, backed up and restored into SQLite in a new data dir', async (t) => {
  const cluster = await startPostgres(t)
  const ports = { port: await freePort(), rsync: await freePort() }
  const kek = kekFile(t, '5e')
  const toml = `key_encryption_key_file = "${kek}"\n`
  const d = await repoDaemon(t, { ports, toml: `storage_uri = "${cluster.createDatabase('svc_backup')}"\n${toml}` })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))
  await d.cli(['roas', 'update', '-c', 'alice', '--delta', d.file('a.txt', 'A: 10.1.0.0/16 => 65000\n')])
  await waitPublished(d, (uris) => uris.some((u) => u.endsWith('.roa')))
  const roas = await d.cli(['roas', 'list', '-c', 'alice'])
  const before = await published(d)
  const file = join(tempDir(t), 'pg.backup')
  const backup = await svcdOnce(['backup', '-c', d.configFile, '--to', file], { timeoutMs: 120_000 })
  t.equal(backup.code, 0, backup.stderr)
  t.match(backup.stdout, /^backed up postgresql:\/\/svc@127\.0\.0\.1:\d+\/svc_backup to /)
  t.equal(await d.stop(), 0)

  const target = join(tempDir(t), 'sqlite/')
  const restoreConfig = join(tempDir(t), 'restore.toml')
  writeFileSync(restoreConfig, `data_dir = "${target}"\n`)
  const restore = await svcdOnce(['restore', '-c', restoreConfig, '--from', file, '--key-encryption-key-file', kek], { timeoutMs: 120_000 })
  t.equal(restore.code, 0, restore.stderr)
  const r = await repoDaemon(t, { ports, dataDir: target })
  t.equal(await r.cli(['roas', 'list', '-c', 'alice']), roas, 'the same ROAs')
  const after = await waitFor('every manifest re-issued', async () => {
    const p = await published(r)
    return p.manifests.size === before.manifests.size && [...p.manifests].every(([uri, n]) => n > before.manifests.get(uri)!) ? p : undefined
  }, 120_000)
  t.not(after.session, before.session, 'a new RRDP session')
  await r.cli(['roas', 'update', '-c', 'alice', '--delta', r.file('b.txt', 'A: 10.2.0.0/16 => 65001\n')])
  await waitPublished(r, (uris) => uris.filter((u) => u.endsWith('.roa')).length === 2)
  t.equal(await r.stop(), 0)
})

t.test('usage and refusals: --to/--from required, the key-encryption key required, no svcd data', async (t) => {
  const noTo = await svcdOnce(['backup'])
  t.equal(noTo.code, 2)
  t.match(noTo.stderr, /^svcd: backup needs --to <file> \(and no --from\)/)
  const noFrom = await svcdOnce(['restore', '--to', 'x'])
  t.equal(noFrom.code, 2)
  t.match(noFrom.stderr, /^svcd: restore needs --from <file> \(and no --to\)/)
  const stray = await svcdOnce(['--key-encryption-key-file', 'k'])
  t.equal(stray.code, 2)
  t.match(stray.stderr, /--from, --to and --key-encryption-key-file belong to svcd migrate, backup and restore/)
  const dir = tempDir(t)
  const config = join(dir, 'svcd.toml')
  writeFileSync(config, `data_dir = "${join(dir, 'data')}/"\n`)
  const noKek = await svcdOnce(['backup', '-c', config, '--to', join(dir, 'b')])
  t.equal(noKek.code, 1)
  t.match(noKek.stderr, /^svcd: backup: the private keys are sealed under the key-encryption key: set key_encryption_key_file or give --key-encryption-key-file/)
  const nothing = await svcdOnce(['backup', '-c', config, '--to', join(dir, 'b'), '--key-encryption-key-file', kekFile(t, '11')])
  t.equal(nothing.code, 1)
  t.match(nothing.stderr, /^svcd: backup: there is no database at '.*svcd\.db'\n$/)
  t.notOk(existsSync(join(dir, 'b')), 'no backup file')
  const help = await svcdOnce(['--help'])
  t.match(help.stdout, /svcd backup --to <file> \[-c <file>\] \[--key-encryption-key-file <file>\]\n {7}svcd restore --from <file>/)
})
