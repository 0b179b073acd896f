/**
 * Private keys in PostgreSQL (issue 14 item 3): the Signer contract for SoftSigner over PgKeyStore, keys sealed with
 * AES-256-GCM under the key-encryption key and never plaintext in the database, the KEK file's mode and format
 * checked, a wrong KEK refused before anything is written, a sealed key that does not open reported by id only.
 */
import { spawn } from 'node:child_process'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inspect } from 'node:util'
import t from 'tap'
import { generateRsaKeyPair, type KeyPair } from '../../src/crypto/key-pool.js'
import { SoftSigner } from '../../src/crypto/soft-signer.js'
import { KeyEncryptionKey } from '../../src/store/kek.js'
import { PgDb } from '../../src/store/pg-db.js'
import { PgKeyStore, seal, unseal } from '../../src/store/pg-key-store.js'
import { tempDir } from '../helpers/daemon.js'
import { postgresBin, startPostgres } from '../helpers/postgres.js'
import { CONTRACT_KEYS, fixedKeyPool, signerContract } from './signer.contract.js'

const cluster = await startPostgres(t)
const dir = tempDir(t, 'svc-kek-')
let keys: KeyPair[] = []
t.before(async () => {
  keys = await Promise.all(Array.from({ length: CONTRACT_KEYS }, () => generateRsaKeyPair()))
})

/** A KEK file with `text` and `mode`. */
function kekFile(name: string, text: string, mode = 0o600): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  chmodSync(file, mode)
  return file
}
const KEK_A = kekFile('a', 'aa'.repeat(32) + '\n')
const KEK_B = kekFile('b', Buffer.alloc(32, 0xbb).toString('base64') + '\n')

t.test('Signer contract over PgKeyStore; the database never holds a key in plaintext', async (t) => {
  const uri = cluster.createDatabase('signer')
  const open = () => PgDb.open(uri, 'signer')
  const dbs: PgDb[] = []
  const store = (kek = KEK_A) => {
    const db = open()
    dbs.push(db)
    return new PgKeyStore(db, KeyEncryptionKey.read(kek))
  }
  const main = store()
  const pool = fixedKeyPool(keys)
  await signerContract(t, 'SoftSigner + PgKeyStore', async () => ({
    signer: new SoftSigner(main, pool),
    reopen: () => new SoftSigner(store(), fixedKeyPool([])),
    secretOf: (id) => main.get(id),
    cleanup: async () => {
      await pool.stop()
    },
  }))
  t.teardown(() => dbs.forEach((d) => d.close()))
  const ids = main.list()
  t.ok(ids.length >= 2, 'keys are listed')
  const dump = cluster.psql('signer', "SELECT string_agg(key_id || ':' || encode(sealed, 'hex'), ',') FROM signer_keys")
  for (const id of ids) {
    const plain = Buffer.from(main.get(id)!)
    t.notOk(dump.includes(plain.toString('hex').slice(100, 200)), `${id}: not in the database in plaintext`)
  }
  t.notOk(dump.toLowerCase().includes('aa'.repeat(32)), 'nor the key-encryption key')
  t.equal(inspect(main), 'PgKeyStore')
  t.equal(inspect(KeyEncryptionKey.read(KEK_A)), `KeyEncryptionKey(${KEK_A})`)
  t.equal(JSON.stringify({ k: KeyEncryptionKey.read(KEK_A) }), `{"k":"KeyEncryptionKey(${KEK_A})"}`)

  // A wrong KEK is refused before anything is written.
  const before = cluster.psql('signer', 'SELECT count(*) FROM signer_keys') + cluster.psql('signer', "SELECT encode(sealed, 'hex') FROM signer_kek_check")
  t.throws(() => store(KEK_B), /the key-encryption key in '.*b' is not the one this database's private keys are sealed with; refusing to start \(nothing was written\)/)
  t.equal(cluster.psql('signer', 'SELECT count(*) FROM signer_keys') + cluster.psql('signer', "SELECT encode(sealed, 'hex') FROM signer_kek_check"), before, 'nothing written')

  // A sealed key moved to another id, or damaged, does not open; the error names the id only.
  const [a, b] = ids as [string, string]
  cluster.psql('signer', `UPDATE signer_keys SET sealed = (SELECT sealed FROM signer_keys WHERE key_id = '${a}') WHERE key_id = '${b}'`)
  t.throws(() => store().get(b), new RegExp(`^stored key ${b} does not open with the key-encryption key`))
})

t.test('a database whose keys another KEK sealed is refused even without a check value', async (t) => {
  const uri = cluster.createDatabase('nocheck')
  const db = PgDb.open(uri, 'nocheck')
  t.teardown(() => db.close())
  new PgKeyStore(db, KeyEncryptionKey.read(KEK_A)).put('A'.repeat(40), new Uint8Array([1, 2, 3]))
  cluster.psql('nocheck', 'DELETE FROM signer_kek_check')
  t.throws(() => new PgKeyStore(db, KeyEncryptionKey.read(KEK_B)), /is not the one this database's private keys are sealed with/)
  t.equal(cluster.psql('nocheck', 'SELECT count(*) FROM signer_kek_check').trim(), '0', 'no check value written for the wrong key')
})

t.test('instances starting together on an empty database: the first check value committed counts', async (t) => {
  // The check value KEK_A writes, taken from a database of its own.
  const ref = PgDb.open(cluster.createDatabase('kekref'), 'kekref')
  new PgKeyStore(ref, KeyEncryptionKey.read(KEK_A))
  ref.close()
  const sealedA = cluster.psql('kekref', "SELECT encode(sealed, 'hex') FROM signer_kek_check").trim()
  for (const [name, kek] of [['same', KEK_A], ['other', KEK_B]] as const) {
    const db = PgDb.open(cluster.createDatabase(`together_${name}`), name)
    t.teardown(() => db.close())
    // Another instance (KEK_A) has inserted its check value in a transaction not yet committed when this one looks.
    const other = spawn(join(postgresBin()!, 'psql'), ['-h', '127.0.0.1', '-p', String(cluster.port), '-U', 'svc', '-d', `together_${name}`, '-v', 'ON_ERROR_STOP=1', '-q'], { stdio: ['pipe', 'ignore', 'inherit'] })
    other.stdin.end(`BEGIN;\nINSERT INTO signer_kek_check (id, sealed) VALUES (1, decode('${sealedA}', 'hex'));\nSELECT pg_sleep(1.5);\nCOMMIT;\n`)
    const done = new Promise<number | null>((r) => other.once('exit', r))
    for (let i = 0; i < 200 && cluster.psql(`together_${name}`, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep%'").trim() !== '1'; i++) await new Promise((r) => setTimeout(r, 25))
    if (kek === KEK_A) t.doesNotThrow(() => new PgKeyStore(db, KeyEncryptionKey.read(kek)), 'the same KEK starts (no duplicate key error)')
    else t.throws(() => new PgKeyStore(db, KeyEncryptionKey.read(kek)), /is not the one this database's private keys are sealed with/, 'another KEK is refused')
    t.equal(await done, 0, 'the other instance committed')
    t.equal(cluster.psql(`together_${name}`, "SELECT encode(sealed, 'hex') FROM signer_kek_check").trim(), sealedA, "one check value: the other instance's")
  }
})

t.test('the KEK file: mode 0600, 32 bytes in hex or base64', async (t) => {
  t.throws(() => KeyEncryptionKey.read(kekFile('open', 'aa'.repeat(32), 0o644)), /has mode 0644; it must be 0600 \(readable by the svcd user only\)/)
  t.throws(() => KeyEncryptionKey.read(kekFile('group', 'aa'.repeat(32), 0o640)), /has mode 0640/)
  t.ok(KeyEncryptionKey.read(kekFile('ro', 'aa'.repeat(32), 0o400)), 'read-only for the owner is fine')
  t.throws(() => KeyEncryptionKey.read(kekFile('short', 'aa'.repeat(16))), /must hold 32 bytes as 64 hex digits or base64/)
  t.throws(() => KeyEncryptionKey.read(join(dir, 'missing')), /cannot read the key-encryption key file '.*missing': ENOENT/)
  t.throws(() => KeyEncryptionKey.read(dir), /is not a regular file/)
  const secretText = 'cd'.repeat(32)
  try {
    KeyEncryptionKey.read(kekFile('open2', secretText, 0o644))
  } catch (e) {
    t.notOk(String((e as Error).message).includes(secretText), 'an error never shows the key')
  }
})

t.test('seal and unseal: AES-256-GCM bound to the key id', async (t) => {
  const a = KeyEncryptionKey.read(KEK_A)
  const sealed = seal(a, new Uint8Array([9, 8, 7]), 'id1')
  t.equal(sealed.length, 12 + 3 + 16, 'nonce, ciphertext, tag')
  t.same([...unseal(a, sealed, 'id1')!], [9, 8, 7])
  t.equal(unseal(a, sealed, 'id2'), undefined, 'another id does not open it')
  t.equal(unseal(KeyEncryptionKey.read(KEK_B), sealed, 'id1'), undefined, 'another KEK does not open it')
  t.notSame(seal(a, new Uint8Array([9, 8, 7]), 'id1'), sealed, 'a fresh nonce each time')
})
