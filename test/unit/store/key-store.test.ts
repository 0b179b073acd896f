/** FileKeyStore: one base64 PKCS#8 file per key, modes 0700/0600, atomic writes, strict key ids. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import t, { type Test } from 'tap'
import { FileKeyStore } from '../../../src/store/key-store.js'

const ID1 = '0123456789ABCDEF0123456789ABCDEF01234567'
const ID2 = 'FEDCBA9876543210FEDCBA9876543210FEDCBA98'

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-keystore-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

t.test('put, get, list, delete', async (t) => {
  const dir = join(tempDir(t), 'keys', 'nested')
  const s = new FileKeyStore(dir)
  t.equal(statSync(dir).mode & 0o777, 0o700, 'directory created 0700')
  t.same(s.list(), [])
  t.equal(s.get(ID1), undefined)
  const der = Uint8Array.from({ length: 1200 }, (_, i) => i % 251)
  s.put(ID2, der)
  s.put(ID1, Uint8Array.of(1, 2, 3))
  t.same(s.get(ID2), der)
  t.same(s.list(), [ID1, ID2], 'sorted ids')
  t.equal(statSync(join(dir, ID1)).mode & 0o777, 0o600, 'key file 0600')
  t.equal(readFileSync(join(dir, ID1), 'latin1'), 'AQID\n', 'base64 PKCS#8 DER')
  s.put(ID1, Uint8Array.of(4, 5))
  t.same(s.get(ID1), Uint8Array.of(4, 5), 'overwritten')
  t.same(readdirSync(dir).sort(), [ID1, ID2], 'no temporary files left behind')
  s.delete(ID1)
  s.delete(ID1)
  t.same(s.list(), [ID2])
  t.same(new FileKeyStore(dir).get(ID2), der, 'a second store over the same directory sees the key')
})

t.test('refuses key ids that are not 40 uppercase hex digits', async (t) => {
  const s = new FileKeyStore(tempDir(t))
  for (const bad of [ID1.toLowerCase(), ID1.slice(1), ID1 + '0', '../' + ID1.slice(3), `${ID1.slice(0, 39)}/`, '']) {
    t.throws(() => s.put(bad, Uint8Array.of(1)), RangeError, JSON.stringify(bad))
    t.throws(() => s.get(bad), RangeError)
    t.throws(() => s.delete(bad), RangeError)
  }
})

t.test('list() ignores other files; inspect shows no content', async (t) => {
  const dir = tempDir(t)
  const s = new FileKeyStore(dir)
  s.put(ID1, Uint8Array.of(9, 9, 9))
  writeFileSync(join(dir, `.${ID2}.123.abc.tmp`), 'x')
  writeFileSync(join(dir, 'README'), 'x')
  writeFileSync(join(dir, ID2.toLowerCase()), 'x')
  t.same(s.list(), [ID1])
  t.equal(inspect(s, { showHidden: true }), `FileKeyStore(${dir})`)
  t.ok(existsSync(join(dir, ID1)))
})

t.test('a failed write leaves no temporary file behind', async (t) => {
  const dir = tempDir(t)
  const s = new FileKeyStore(dir)
  mkdirSync(join(dir, ID1))
  t.throws(() => s.put(ID1, Uint8Array.of(1)))
  t.same(readdirSync(dir), [ID1])
})
