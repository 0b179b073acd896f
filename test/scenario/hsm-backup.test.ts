/**
 * Backups with the CA keys in an HSM (issue 25): svcd with `default_signer` a SoftHSM2 token backs up every row,
 * including which key is in which token (`key_signers`, `signers`), and nothing of the keys in the token: no CA key is
 * among the sealed keys of the backup file. Restored into an empty data dir with the same token configured, svcd
 * signs again with the token's keys (a ROA change is published).
 */
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { connect, repoDaemon, waitFor, waitPublished } from '../helpers/cas.js'
import { freePort, svcdOnce, tempDir } from '../helpers/daemon.js'
import { softHsm } from '../helpers/softhsm.js'
import { chmodSync, writeFileSync } from 'node:fs'

t.test('a backup holds the key directory and no HSM key; restored with the same token, svcd signs with it', async (t) => {
  const hsm = softHsm(t, { label: 'svc-backup' })
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '5e'.repeat(32))
  chmodSync(kek, 0o600)
  const toml = `default_signer = "hsm"\nkey_encryption_key_file = "${kek}"\n${hsm.signerToml('hsm', 'slow_ms = 60000')}`
  const ports = { port: await freePort(), rsync: await freePort() }
  const d = await repoDaemon(t, { ports, toml, env: hsm.env })
  await d.cli(['add', '-c', 'alice'])
  await connect(d, 'testbed', d, 'alice', { asn: 'AS65000', ipv4: '10.0.0.0/8' })
  await waitFor('alice certified', async () => /active/.test(await d.cli(['show', '-c', 'alice'])))

  const file = join(tempDir(t), 'svcd.backup')
  const backup = await svcdOnce(['backup', '-c', d.configFile, '--to', file], { timeoutMs: 120_000, env: hsm.env })
  t.equal(backup.code, 0, backup.stderr)
  t.match(backup.stdout, /\n {2}key_signers: [1-9]/, `the key directory is in the backup\n${backup.stdout}`)
  t.equal(await d.stop(), 0)
  const db = new Database(file, { readonly: true })
  const caKeys = (db.prepare('SELECT key_id FROM ca_keys').all() as { key_id: string }[]).map((r) => r.key_id)
  const handle = (db.prepare("SELECT handle FROM signers WHERE type = 'PKCS#11'").get() as { handle: string }).handle
  const held = (db.prepare('SELECT key_id FROM key_signers WHERE handle = ?').all(handle) as { key_id: string }[]).map((r) => r.key_id)
  const sealed = new Set((db.prepare('SELECT key_id FROM signer_keys').all() as { key_id: string }[]).map((r) => r.key_id))
  db.close()
  t.ok(caKeys.length >= 3, `the CA keys (ta, testbed, alice): ${caKeys.length}`)
  t.ok(caKeys.every((k) => held.includes(k)), 'each is recorded as held by the token')
  t.same(caKeys.filter((k) => sealed.has(k)), [], 'none is among the sealed keys of the backup')

  // Restored into an empty data dir, on the same ports, with the same token: the CAs sign with the token's keys.
  const dataDir = join(tempDir(t), 'data')
  const restoreConfig = join(tempDir(t), 'restore.toml')
  writeFileSync(restoreConfig, `data_dir = "${dataDir}/"\n${toml}`)
  const restore = await svcdOnce(['restore', '-c', restoreConfig, '--from', file], { timeoutMs: 120_000, env: hsm.env })
  t.equal(restore.code, 0, restore.stderr)
  const r = await repoDaemon(t, { ports, toml, env: hsm.env, dataDir })
  await r.cli(['roas', 'update', '-c', 'alice', '--delta', r.file('a.txt', 'A: 10.1.0.0/16 => 65000\n')])
  await waitPublished(r, (uris) => uris.some((u) => u.endsWith('.roa')))
  t.pass('after the restore, alice publishes a ROA signed with its key in the token')
  t.equal(await r.stop(), 0)
})
