/** SoftSigner: the Signer contract over MemoryKeyStore and FileKeyStore, plus key-material hygiene. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import t from 'tap'
import { generateRsaKeyPair, type KeyPair } from '../../../src/crypto/key-pool.js'
import { UnknownKeyError } from '../../../src/crypto/signer.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { FileKeyStore } from '../../../src/store/key-store.js'
import { CONTRACT_KEYS, fixedKeyPool, signerContract } from '../../contract/signer.contract.js'

// The same few RSA keys serve every run (stores are separate), so the file costs ~CONTRACT_KEYS keygens.
let keys: KeyPair[] = []
t.before(async () => {
  keys = await Promise.all(Array.from({ length: CONTRACT_KEYS }, () => generateRsaKeyPair()))
})

t.test('contract', async (t) => {
  await signerContract(t, 'SoftSigner + MemoryKeyStore', async () => {
    const store = new MemoryKeyStore()
    const pool = fixedKeyPool(keys)
    return {
      signer: new SoftSigner(store, pool),
      reopen: () => new SoftSigner(store, fixedKeyPool([])),
      secretOf: (id) => store.get(id),
      cleanup: () => pool.stop(),
    }
  })
  await signerContract(t, 'SoftSigner + FileKeyStore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-keys-'))
    const store = new FileKeyStore(join(dir, 'keys'))
    const pool = fixedKeyPool(keys)
    return {
      signer: new SoftSigner(store, pool),
      reopen: () => new SoftSigner(new FileKeyStore(join(dir, 'keys')), fixedKeyPool([])),
      secretOf: (id) => store.get(id),
      cleanup: async () => {
        await pool.stop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  })
})

t.test('no key material in inspect, JSON or errors', async (t) => {
  const store = new MemoryKeyStore()
  const signer = new SoftSigner(store, fixedKeyPool(keys.slice(0, 1)))
  const id = await signer.createKey()
  const secret = store.get(id)!
  const b64 = Buffer.from(secret).toString('base64').slice(60, 120)
  const key = signer.signingKey(id)
  for (const shown of [inspect(signer, { showHidden: true, depth: 20 }), inspect(store, { showHidden: true, depth: 20 }),
    inspect(key, { showHidden: true, depth: 20 }), JSON.stringify(key), JSON.stringify(signer), String(key)]) {
    t.notOk(shown.includes(b64), `not shown: ${shown.slice(0, 60)}`)
  }
  t.equal(JSON.stringify(key), `{"keyId":"${id}"}`)
  t.equal(String(key), `SigningKey(${id})`)
  // A damaged stored key is reported by KeyId only.
  const bad = new MemoryKeyStore()
  const broken = secret.slice(0, 200)
  bad.put(id, broken)
  const err = t.throws(() => new SoftSigner(bad, fixedKeyPool([])).signingKey(id)) as Error
  t.match(err.message, id)
  t.notOk(err.message.includes(Buffer.from(broken).toString('base64').slice(0, 40)))
  // A stored key under the wrong name is refused.
  const other = new MemoryKeyStore()
  other.put('A'.repeat(40), secret)
  t.throws(() => new SoftSigner(other, fixedKeyPool([])).signingKey('A'.repeat(40)), /has the key identifier/)
})

t.test('signing keys are cached, not re-parsed', async (t) => {
  const store = new MemoryKeyStore()
  const signer = new SoftSigner(store, fixedKeyPool(keys.slice(1, 2)))
  const id = await signer.createKey()
  const k1 = signer.signingKey(id)
  t.equal(signer.signingKey(id), k1, 'same object from the cache')
  const fresh = new SoftSigner(store, fixedKeyPool([]))
  const k2 = fresh.signingKey(id)
  t.equal(fresh.signingKey(id), k2, 'loaded once, then cached')
  fresh.destroyKey(id)
  t.throws(() => k2.sign(Uint8Array.of(1)), /destroyed/, 'a destroyed key object stops signing')
  t.throws(() => fresh.signingKey(id), UnknownKeyError)
})

t.test('MemoryKeyStore', async (t) => {
  const s = new MemoryKeyStore()
  t.throws(() => s.put('abc', Uint8Array.of(1)), RangeError)
  const data = Uint8Array.of(1, 2, 3)
  s.put('B'.repeat(40), data)
  data[0] = 9
  t.same(s.get('B'.repeat(40)), Uint8Array.of(1, 2, 3), 'copied in')
  s.get('B'.repeat(40))![0] = 7
  t.same(s.get('B'.repeat(40)), Uint8Array.of(1, 2, 3), 'copied out')
  t.same(s.list(), ['B'.repeat(40)])
  s.delete('B'.repeat(40))
  t.same(s.list(), [])
  t.equal(s.get('B'.repeat(40)), undefined)
})

t.test('FileKeyStore refuses a corrupt file by name only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-keys-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = new FileKeyStore(dir)
  writeFileSync(join(dir, 'C'.repeat(40)), 'not*base64 SECRET')
  const err = t.throws(() => store.get('C'.repeat(40))) as Error
  t.notMatch(err.message, /SECRET/)
})
