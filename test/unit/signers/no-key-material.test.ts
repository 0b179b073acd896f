/**
 * The key-material searcher (test/helpers/key-material.ts) finds a real RSA private key in every form svcd or a
 * library could write one (PKCS#8 and PKCS#1 DER at any offset, base64 at each of the three alignments, hex, PEM), in
 * a file tree and in an SQLite database, and finds nothing in public material (certificates, public keys, random
 * bytes): the end-to-end tests that rely on it cannot pass vacuously.
 */
import t from 'tap'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { tempDir } from '../../helpers/daemon.js'
import { base64Core, scanBuffer, scanDatabase, scanTree } from '../../helpers/key-material.js'

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' })
const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'der' })
const noise = (n: number) => randomBytes(n)

t.test('base64Core: the characters of the fixed part whatever surrounds it', async (t) => {
  const fixed = Buffer.from('020100300d06092a864886f70d01010105000482', 'hex')
  for (const align of [0, 1, 2] as const) {
    const core = base64Core(fixed, align)
    t.ok(core.length >= 24, `alignment ${align}: ${core.length} characters`)
    for (let i = 0; i < 5; i++) t.ok(Buffer.concat([noise(align + 3 * i), fixed, noise(i + 1)]).toString('base64').includes(core), `alignment ${align}, surroundings ${i}`)
  }
})

t.test('a real key is found in every form, at every offset', async (t) => {
  for (const [name, key] of [['PKCS#8', pkcs8], ['PKCS#1', pkcs1]] as const) {
    for (let pad = 0; pad < 3; pad++) {
      t.ok(scanBuffer(Buffer.concat([noise(pad), key, noise(7)]), 'x').some((h) => h.kind === `${name} DER` && h.offset === pad), `${name} DER after ${pad} bytes`)
      const b64 = Buffer.concat([noise(pad), key]).toString('base64')
      t.ok(scanBuffer(Buffer.from(`{"k":"${b64}"}`), 'x').some((h) => h.kind === `${name} base64`), `${name} base64 at alignment ${pad}`)
    }
    t.ok(scanBuffer(Buffer.from(key.toString('hex')), 'x').some((h) => h.kind === `${name} hex`), `${name} hex`)
    t.ok(scanBuffer(Buffer.from(key.toString('hex').toUpperCase()), 'x').some((h) => h.kind === `${name} hex`), `${name} HEX`)
  }
  t.ok(scanBuffer(Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), 'x').some((h) => h.kind === 'PEM'), 'PKCS#8 PEM')
  t.ok(scanBuffer(Buffer.from(privateKey.export({ type: 'pkcs1', format: 'pem' }) as string), 'x').some((h) => h.kind === 'PEM'), 'PKCS#1 PEM')
  const enc = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }) as string
  t.ok(scanBuffer(Buffer.from(enc), 'x').some((h) => h.kind === 'PEM'), 'an encrypted PKCS#8 PEM')
})

t.test('public material and random bytes are not key material', async (t) => {
  const pub = Buffer.concat([publicKey.export({ type: 'spki', format: 'der' }), publicKey.export({ type: 'pkcs1', format: 'der' })])
  t.same(scanBuffer(pub, 'x'), [], 'public keys, DER')
  t.same(scanBuffer(Buffer.from(pub.toString('base64')), 'x'), [], 'public keys, base64')
  const repo = new URL('../../../fixtures/objects/sample/', import.meta.url).pathname
  t.same(scanTree(repo).hits, [], 'a published repository (certificates, manifests, CRLs, ROAs)')
  t.same(scanBuffer(noise(1 << 20), 'x'), [], '1 MiB of random bytes')
})

t.test('a tree and a database: nothing, then the planted key', async (t) => {
  const dir = tempDir(t, 'svc-keymat-')
  mkdirSync(join(dir, 'a', 'b'), { recursive: true })
  writeFileSync(join(dir, 'a', 'pub.der'), publicKey.export({ type: 'spki', format: 'der' }))
  const file = join(dir, 'a', 'b', 'x.db')
  const db = new Database(file)
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, blob BLOB, text TEXT)')
  db.prepare('INSERT INTO t (blob, text) VALUES (?, ?)').run(noise(4096), noise(3000).toString('base64'))
  db.close()
  t.same(scanTree(dir).hits, [], 'a clean tree')
  t.same(scanDatabase(file).hits, [], 'a clean database')
  const db2 = new Database(file)
  db2.prepare('INSERT INTO t (blob, text) VALUES (?, ?)').run(pkcs1, pkcs8.toString('base64'))
  db2.close()
  const rows = scanDatabase(file).hits
  t.ok(rows.some((h) => h.where === 't.blob' && h.kind === 'PKCS#1 DER'), 'the database: a PKCS#1 blob')
  t.ok(rows.some((h) => h.where === 't.text' && h.kind === 'PKCS#8 base64'), 'the database: a base64 PKCS#8 text')
  t.ok(scanTree(dir).hits.some((h) => h.where === 'a/b/x.db'), 'the tree: the database file itself')
})
