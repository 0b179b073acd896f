/**
 * SignerSet over a real software signer (files in a temporary directory) and a real SoftHSM2 token, with the key
 * directory in a real SQLite database (issue 25 item 1): new keys go to default_signer or the named signer, each key's
 * signatures to the signer that holds it (by the recorded handle), keys from before signers were recorded to the
 * software signer, an unknown signer name is refused, a renamed signer keeps its keys, operations counted per signer.
 */
import t from 'tap'
import { join } from 'node:path'
import { verify } from 'node:crypto'
import { AppError } from '../../../src/errors.js'
import { systemClock } from '../../../src/clock.js'
import { KeyPool } from '../../../src/crypto/key-pool.js'
import { SoftSigner } from '../../../src/crypto/soft-signer.js'
import { Pkcs11Signer } from '../../../src/signers/pkcs11-signer.js'
import { SignerSet, type SignerMember } from '../../../src/signers/signer-set.js'
import { Db } from '../../../src/store/db.js'
import { SqlSignerStore } from '../../../src/store/signer-store.js'
import { FileKeyStore } from '../../../src/store/key-store.js'
import { tempDir } from '../../helpers/daemon.js'
import { softHsm } from '../../helpers/softhsm.js'

const hsm = softHsm(t, { label: 'unit-set' })
process.env.SOFTHSM2_CONF = hsm.conf
const dir = tempDir(t, 'svc-signer-set-')
const db = Db.open(join(dir, 'svcd.db'))
t.teardown(() => db.close())
const registry = new SqlSignerStore(db)
const pool = new KeyPool({ size: 0 })
const soft = new SoftSigner(new FileKeyStore(join(dir, 'keys')), pool)
const data = new TextEncoder().encode('signed by whichever signer holds the key')

function p11(name: string): { member: SignerMember; signer: Pkcs11Signer } {
  const signer = new Pkcs11Signer({
    name, libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true, retry: { firstMs: 100, multiplier: 1.5, maxMs: 300 },
    slowMs: 2000, oneOffPoolSize: 0, concurrency: 2, checkMs: 0, clock: systemClock,
  })
  const member: SignerMember = {
    name, type: 'PKCS#11', signer, handle: () => signer.handle, info: () => signer.info(), problem: () => signer.problem(),
    start: () => {
      signer.start()
      if (signer.handle) registry.saveSigner({ handle: signer.handle, name, type: 'PKCS#11', info: signer.info(), seen: 0 })
    },
    stop: () => signer.stop(),
  }
  return { member, signer }
}

function set(hsmName: string, member: SignerMember): SignerSet {
  const openssl: SignerMember = { name: 'OpenSSL', type: 'OpenSSL', signer: soft, handle: () => 'openssl', info: () => ({}), problem: () => undefined }
  const s = new SignerSet({
    members: [member, openssl], defaultSigner: hsmName, oneOffSigner: 'OpenSSL', directory: registry, now: () => 0,
    recordedHandle: (name) => registry.signers().find((r) => r.name === name)?.handle,
  })
  s.start()
  return s
}

function signsAndVerifies(s: SignerSet, keyId: string): boolean {
  const k = s.signingKey(keyId)
  return verify('sha256', data, { key: Buffer.from(k.spki), format: 'der', type: 'spki' }, k.sign(data))
}

t.test('routing by recorded handle, legacy keys, unknown signer, rename, counts', async (t) => {
  const legacy = await soft.createKey() // made before signers were recorded: nothing in signer_keys
  const a = p11('hsm')
  const s = set('hsm', a.member)
  t.equal(s.problems().length, 0, 'both signers can sign')

  const inToken = await s.createKey()
  const inSoft = await s.createKey({ signer: 'OpenSSL' })
  t.equal(registry.keyHandle(inToken), a.signer.handle, 'the token key is recorded under the token handle')
  t.equal(registry.keyHandle(inSoft), 'openssl', 'the software key under the software handle')
  t.equal(registry.keyHandle(legacy), undefined, 'the legacy key is not recorded')
  t.equal(s.signerOf(inToken), 'hsm')
  t.equal(s.signerOf(inSoft), 'OpenSSL')
  t.equal(s.signerOf(legacy), 'OpenSSL', 'an unrecorded key belongs to the software signer')
  t.ok(a.signer.hasKey(inToken) && !soft.hasKey(inToken), 'the default signer made the key in the token')
  t.ok(signsAndVerifies(s, inToken) && signsAndVerifies(s, inSoft) && signsAndVerifies(s, legacy), 'each key signs through its holder')
  t.ok(signsAndVerifies(s, inToken))

  const e = await s.createKey({ signer: 'nope' }).then(() => undefined, (err: unknown) => err)
  t.ok(e instanceof AppError && e.label === 'signer-unknown' && e.status === 400, 'createKey({signer}) naming no signer is signer-unknown (400)')
  t.match((e as AppError).args, { signer: 'nope' })

  const stats = Object.fromEntries(s.stats().map((x) => [x.name, x]))
  t.match(stats.hsm, { type: 'PKCS#11', available: true, keygen: 1, sign: 2, keygenErrors: 0, signErrors: 0 }, 'counted for the token')
  t.match(stats.OpenSSL, { type: 'OpenSSL', available: true, keygen: 1, sign: 2 }, 'counted for the software signer')
  const handle = a.signer.handle
  await s.stop()

  // The same token under another name (the config renamed it): its keys stay its own, found by the handle.
  const b = p11('renamed')
  const s2 = set('renamed', b.member)
  t.equal(b.signer.handle, handle, 'the token keeps its handle')
  t.equal(s2.signerOf(inToken), 'renamed', 'the key is found under the new name')
  t.ok(signsAndVerifies(s2, inToken), 'and signs')
  s2.destroyKey(inToken)
  t.equal(registry.keyHandle(inToken), undefined, 'destroyKey forgets the key')
  t.notOk(b.signer.hasKey(inToken), 'and removes it from the token')
  t.same(Object.fromEntries(s2.stats().map((x) => [x.name, x.sign])), { renamed: 1, OpenSSL: 0 }, 'counts are per signer and start at zero')
  await s2.stop()
})
