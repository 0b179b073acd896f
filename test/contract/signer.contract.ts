/**
 * The Signer contract (Hono-style shared contract test): every Signer implementation must pass it. Run from
 * test/unit/crypto/signer.test.ts for SoftSigner over MemoryKeyStore and over FileKeyStore; an HSM signer runs
 * it too. `fixedKeyPool` lets a test hand out a few pre-generated RSA keys instead of waiting for new ones.
 */
import { createPublicKey, verify } from 'node:crypto'
import { inspect } from 'node:util'
import type { Test } from 'tap'
import { keyIdentifier, keyIdHex } from '../../src/crypto/key-id.js'
import { KeyPool, type KeyPair } from '../../src/crypto/key-pool.js'
import { type Signer, type SigningKey, UnknownKeyError } from '../../src/crypto/signer.js'

export interface SignerUnderTest {
  signer: Signer
  /** A second signer over the same persistent storage (to check that keys survive a restart). */
  reopen?: () => Signer
  /** Private key material the signer holds for `keyId`, when the test can see it (checked against leaks). */
  secretOf?: (keyId: string) => Uint8Array | undefined
  cleanup?: () => Promise<void> | void
}

/** A KeyPool that hands out the given pairs (in order) and fails once they are used up. */
export function fixedKeyPool(pairs: readonly KeyPair[]): KeyPool {
  const left = [...pairs]
  return new KeyPool({
    size: 0,
    concurrency: 1,
    generate: () => {
      const k = left.shift()
      return k ? Promise.resolve(k) : Promise.reject(new Error('fixedKeyPool: out of test keys'))
    },
  })
}

/** How many keys one run of the contract takes from the pool. */
export const CONTRACT_KEYS = 5

function checkVerifies(t: Test, key: SigningKey, data: Uint8Array): void {
  const sig = key.sign(data)
  t.ok(sig instanceof Uint8Array, 'signature is a Uint8Array')
  t.equal(sig.length, 256, 'RSA-2048 signature is 256 octets')
  const pub = createPublicKey({ key: Buffer.from(key.spki), format: 'der', type: 'spki' })
  t.ok(verify('sha256', data, pub, sig), 'RSASSA-PKCS1-v1_5 SHA-256 signature verifies with the SPKI')
  t.same(key.sign(data), sig, 'PKCS#1 v1.5 signatures are deterministic')
  t.notOk(verify('sha256', Uint8Array.of(...data, 0), pub, sig), 'and do not verify other data')
}

function checkShape(t: Test, key: SigningKey): void {
  t.match(key.keyId, /^[0-9A-F]{40}$/, 'KeyId is 40 uppercase hex digits')
  t.same(key.ski, keyIdentifier(key.spki), 'ski is the RFC 6487 §4.8.2 key identifier of spki')
  t.equal(keyIdHex(key.ski), key.keyId, 'keyId is the ski in hex')
  const details = createPublicKey({ key: Buffer.from(key.spki), format: 'der', type: 'spki' }).asymmetricKeyDetails
  t.equal(details?.modulusLength, 2048, 'RSA-2048')
  t.equal(details?.publicExponent, 65537n, 'e = 65537')
}

function checkNoLeak(t: Test, key: SigningKey, secret: Uint8Array | undefined): void {
  const shown = [inspect(key, { showHidden: true, depth: 10 }), JSON.stringify(key), String(key)].join('\n')
  t.notMatch(shown, /PRIVATE KEY|[A-Za-z0-9+/=]{100}|[0-9a-fA-F]{100}/, 'no key material in inspect/JSON/toString')
  if (secret !== undefined) {
    const forms = [Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')]
    for (const f of forms) t.notOk(shown.includes(f.slice(40, 100)), 'stored private key does not appear')
  }
}

async function persistentKeys(t: Test, sut: SignerUnderTest, data: Uint8Array): Promise<[string, string]> {
  const { signer } = sut
  const a = await signer.createKey()
  const b = await signer.createKey()
  t.not(a, b, 'two keys differ')
  t.ok(signer.hasKey(a) && signer.hasKey(b), 'hasKey after createKey')
  const ka = signer.signingKey(a)
  t.equal(ka.keyId, a)
  checkShape(t, ka)
  checkVerifies(t, ka, data)
  checkNoLeak(t, ka, sut.secretOf?.(a))
  if (sut.reopen) {
    const again = sut.reopen()
    t.ok(again.hasKey(a), 'key persists across signer instances')
    const k2 = again.signingKey(a)
    t.same(k2.spki, ka.spki, 'same public key after reopening')
    t.same(k2.sign(data), ka.sign(data), 'same signatures after reopening')
  }
  return [a, b]
}

function unknownAndDestroyed(t: Test, sut: SignerUnderTest, keep: string, destroy: string): void {
  const { signer } = sut
  const unknown = 'F'.repeat(40)
  t.notOk(signer.hasKey(unknown), 'hasKey false for an unknown key')
  t.throws(() => signer.signingKey(unknown), UnknownKeyError, 'signingKey throws UnknownKeyError')
  t.throws(() => signer.signingKey('not-a-key-id'), UnknownKeyError, 'malformed ids are simply unknown')
  signer.destroyKey(unknown)
  signer.destroyKey(destroy)
  t.notOk(signer.hasKey(destroy), 'hasKey false after destroyKey')
  t.throws(() => signer.signingKey(destroy), UnknownKeyError, 'signingKey throws after destroyKey')
  if (sut.reopen) t.notOk(sut.reopen().hasKey(destroy), 'destroyed for good')
  t.ok(signer.hasKey(keep), 'other keys stay')
}

async function oneOffKeys(t: Test, sut: SignerUnderTest, data: Uint8Array): Promise<void> {
  const { signer } = sut
  const o1 = await signer.oneOffKey()
  const o2 = await signer.oneOffKey()
  checkShape(t, o1)
  checkVerifies(t, o1, data)
  checkNoLeak(t, o1, undefined)
  t.not(o1.keyId, o2.keyId, 'one-off keys differ')
  t.notOk(signer.hasKey(o1.keyId), 'one-off keys are not persistent keys')
  if (sut.reopen) t.notOk(sut.reopen().hasKey(o1.keyId), 'one-off keys are never persisted')
  o1.destroy()
  t.throws(() => o1.sign(data), 'a destroyed one-off key cannot sign')
  checkVerifies(t, o2, data)
  o2.destroy()
}

/** Run the Signer contract against `make()` (takes CONTRACT_KEYS keys from the signer's pool). */
export function signerContract(t: Test, name: string, make: () => Promise<SignerUnderTest>): Promise<void> {
  return t.test(`Signer contract: ${name}`, async (t) => {
    const sut = await make()
    t.teardown(async () => sut.cleanup?.())
    const data = new TextEncoder().encode('svc signer contract')
    const [a, b] = await persistentKeys(t, sut, data)
    unknownAndDestroyed(t, sut, a, b)
    const c = await sut.signer.createKey()
    t.ok(sut.signer.hasKey(c), 'a key made after a destroy')
    await oneOffKeys(t, sut, data)
  }).then(() => undefined)
}
