/**
 * Pkcs11Signer against a real SoftHSM2 token of this test's own (issue 25 item 1): keys made in the token verify with
 * node:crypto, are sensitive, not extractable and token objects; a second signer (a restart) finds them by KeyId;
 * one-off keys are session objects gone after use; slot by number and label; a wrong PIN, a missing library, a token
 * taken away and given back, a failure while signing. The PIN appears in no message, problem or log line.
 * One token per file: SoftHSM2 reads SOFTHSM2_CONF once, at C_Initialize.
 */
import t from 'tap'
import { verify } from 'node:crypto'
import { AppError } from '../../../src/errors.js'
import { systemClock } from '../../../src/clock.js'
import { Pkcs11Signer, type Pkcs11SignerOptions, type SignerProblem } from '../../../src/signers/pkcs11-signer.js'
import { Token, findObjects, pkcs11, slotId } from '../../../src/signers/pkcs11-token.js'
import { softHsm } from '../../helpers/softhsm.js'
import { waitFor } from '../../helpers/wait.js'

const hsm = softHsm(t, { label: 'unit-p11' })
process.env.SOFTHSM2_CONF = hsm.conf

/** Everything the signers said (onChange) and threw, to search for the PIN at the end. */
const said: string[] = []

function signer(o: Partial<Pkcs11SignerOptions> = {}): Pkcs11Signer {
  const s = new Pkcs11Signer({
    name: 'hsm', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true,
    retry: { firstMs: 100, multiplier: 1.5, maxMs: 300 }, slowMs: 2000, oneOffPoolSize: 0, concurrency: 2, checkMs: 150, clock: systemClock,
    onChange: (p) => said.push(JSON.stringify(p ?? 'available')),
    ...o,
  })
  return s
}

function verifies(spki: Uint8Array, data: Uint8Array, sig: Uint8Array): boolean {
  return verify('sha256', data, { key: Buffer.from(spki), format: 'der', type: 'spki' }, sig)
}

function thrown(f: () => unknown): unknown {
  try {
    f()
  } catch (e) {
    said.push(String(e), JSON.stringify(e))
    return e
  }
  return undefined
}

/** The objects with CKA_ID = the key id's bytes, read through a token of the test's own (a second session). */
function objectsOf(keyId: string): { cls: number; token: boolean; sensitive?: boolean; extractable?: boolean }[] {
  const P = pkcs11()
  const tok = Token.open({ name: 'probe', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true })
  try {
    return findObjects(tok.lib, tok.session, [{ type: P.CKA_ID, value: Buffer.from(keyId, 'hex') }]).map((h) => {
      const [cls] = tok.lib.C_GetAttributeValue(tok.session, h, [{ type: P.CKA_CLASS }])
      const c = (cls.value as Buffer).readUInt32LE(0)
      const [tk] = tok.lib.C_GetAttributeValue(tok.session, h, [{ type: P.CKA_TOKEN }])
      const out: { cls: number; token: boolean; sensitive?: boolean; extractable?: boolean } = { cls: c, token: (tk.value as Buffer)[0] === 1 }
      if (c === P.CKO_PRIVATE_KEY) {
        const [s, x] = tok.lib.C_GetAttributeValue(tok.session, h, [{ type: P.CKA_SENSITIVE }, { type: P.CKA_EXTRACTABLE }])
        out.sensitive = (s.value as Buffer)[0] === 1
        out.extractable = (x.value as Buffer)[0] === 1
      }
      return out
    })
  } finally {
    tok.close()
  }
}

/** The number of private-key session objects visible in the token (one-off keys). */
function sessionPrivateKeys(): number {
  const P = pkcs11()
  const tok = Token.open({ name: 'probe', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true })
  try {
    tok.lib.C_FindObjectsInit(tok.session, [{ type: P.CKA_CLASS, value: P.CKO_PRIVATE_KEY }, { type: P.CKA_TOKEN, value: false }])
    const n = tok.lib.C_FindObjects(tok.session, 1000).length
    tok.lib.C_FindObjectsFinal(tok.session)
    return n
  } finally {
    tok.close()
  }
}

t.test('a wrong PIN is sys-signer-login and the PIN is in no message (before any session is logged in)', async (t) => {
  const wrong = 'wrong-' + hsm.pin
  const s = signer({ userPin: wrong })
  s.start()
  const p = s.problem()
  t.equal(p?.label, 'sys-signer-login', 'the problem is a login failure')
  t.match(p?.args.reason, /CKR_PIN_INCORRECT/)
  const e = await s.createKey().then(() => undefined, (err: unknown) => err)
  t.ok(e instanceof AppError && e.label === 'sys-signer-login', 'creating a key fails with sys-signer-login')
  said.push(JSON.stringify(p), String(e), JSON.stringify(e), (e as Error).stack ?? '')
  for (const line of said) t.notOk(line.includes(wrong) || line.includes(hsm.pin), 'no PIN in ' + line.slice(0, 80))
  await s.stop()
})

t.test('a library path that does not exist is sys-signer-unavailable', async (t) => {
  const s = signer({ libPath: '/nonexistent/libp11.so' })
  s.start()
  t.equal(s.problem()?.label, 'sys-signer-unavailable')
  t.equal(s.problem()?.args.signer, 'hsm')
  await s.stop()
})

t.test('keys made in the token: verified by node:crypto, sensitive, not extractable, token objects, found again after a restart', async (t) => {
  const s = signer()
  s.start()
  t.equal(s.problem(), undefined, 'the token opened')
  const handle = s.handle
  t.match(handle, /^[0-9a-f-]{36}$/, 'the signer handle (the marker in the token)')
  t.match(s.info(), { token_label: 'unit-p11' })
  let started = performance.now()
  const keyId = await s.createKey()
  const keygenMs = performance.now() - started
  const key = s.signingKey(keyId)
  const data = new TextEncoder().encode('what an RPKI object signs')
  started = performance.now()
  const sig = key.sign(data)
  const signMs = performance.now() - started
  t.comment(`SoftHSM2: RSA-2048 key generation ${keygenMs.toFixed(1)} ms, one CKM_SHA256_RSA_PKCS signature ${signMs.toFixed(2)} ms`)
  t.ok(verifies(key.spki, data, sig), 'the signature verifies over the SPKI the signer reports (sha256)')
  t.notOk(verifies(key.spki, new TextEncoder().encode('other data'), sig), 'and not over other data')
  const objs = objectsOf(keyId)
  const P = pkcs11()
  t.equal(objs.length, 2, 'a public and a private key carry CKA_ID = the key identifier')
  const priv = objs.find((o) => o.cls === P.CKO_PRIVATE_KEY)
  t.same(priv, { cls: P.CKO_PRIVATE_KEY, token: true, sensitive: true, extractable: false }, 'the private key: CKA_TOKEN, CKA_SENSITIVE, not CKA_EXTRACTABLE')
  t.equal(s.counts.sign, 1)
  t.equal(s.counts.keygen, 1)
  await s.stop()

  const again = signer()
  again.start()
  t.equal(again.handle, handle, 'the handle marker is the same across opens')
  t.ok(again.hasKey(keyId), 'a second signer (a restart) finds the key by its KeyId')
  const k2 = again.signingKey(keyId)
  t.same(k2.spki, key.spki)
  t.ok(verifies(k2.spki, data, k2.sign(data)), 'and signs with it')
  t.notOk(again.hasKey('0'.repeat(40)), 'a key it does not hold')
  t.throws(() => again.signingKey('0'.repeat(40)), 'an unknown key throws')

  again.destroyKey(keyId)
  t.same(objectsOf(keyId), [], 'destroyKey removes both objects')
  t.notOk(again.hasKey(keyId))
  await again.stop()
})

t.test('one-off keys are session objects, destroyed after use', async (t) => {
  const s = signer({ oneOffPoolSize: 2 })
  s.start()
  const before = sessionPrivateKeys()
  const k = await s.oneOffKey()
  t.equal(sessionPrivateKeys(), before + 1, 'a one-off key is a session object (not CKA_TOKEN)')
  const data = new TextEncoder().encode('an EE certificate')
  t.ok(verifies(k.spki, data, k.sign(data)))
  t.same(objectsOf(k.keyId), [], 'nothing in the token under its key identifier')
  k.destroy()
  t.equal(sessionPrivateKeys(), before, 'destroyed after use')
  t.throws(() => k.sign(data), 'a destroyed key signs no more')
  await s.stop()
})

t.test('the slot by number and by label', async (t) => {
  const probe = Token.open({ name: 'probe', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true })
  const id = Number(slotId(probe.slot))
  probe.close()
  const byNumber = signer({ slot: id })
  byNumber.start()
  t.equal(byNumber.problem(), undefined, `slot ${id.toString(16)} (a number)`)
  t.equal(byNumber.info().token_label, hsm.label)
  await byNumber.stop()
  const byLabel = signer({ slot: hsm.label })
  byLabel.start()
  t.equal(byLabel.handle !== undefined && byLabel.problem() === undefined, true, 'the token label')
  await byLabel.stop()
  const none = signer({ slot: 'no such token' })
  none.start()
  t.equal(none.problem()?.label, 'sys-signer-unavailable', 'a label no token has')
  t.match(none.problem()?.args.reason, /no such token/)
  await none.stop()
})

t.test('away and back: unavailable, failures throw sys-signer-unavailable, available again by itself', async (t) => {
  const changes: (SignerProblem | undefined)[] = []
  const s = signer({ onChange: (p) => { changes.push(p); said.push(JSON.stringify(p ?? 'available')) } })
  s.start()
  const keyId = await s.createKey()
  const key = s.signingKey(keyId)
  const data = new TextEncoder().encode('a manifest')
  t.ok(verifies(key.spki, data, key.sign(data)))
  hsm.away()
  let sig: Uint8Array | undefined
  const e = thrown(() => {
    sig = key.sign(data)
  })
  t.equal(sig, undefined, 'no signature')
  t.ok(e instanceof AppError && e.label === 'sys-signer-unavailable', `signing while the token is away throws sys-signer-unavailable (${String(e)})`)
  const p = await waitFor('the signer reports the token unavailable', () => s.problem()?.label === 'sys-signer-unavailable' && s.problem())
  t.equal(p.args.signer, 'hsm')
  t.ok(s.counts.signErrors >= 1, 'the failure is counted')
  const e2 = await s.createKey().then(() => undefined, (err: unknown) => err)
  t.ok(e2 instanceof AppError && e2.label === 'sys-signer-unavailable', 'a key cannot be made meanwhile')
  hsm.back()
  await waitFor('the signer is available again by itself', () => s.problem() === undefined)
  t.ok(verifies(key.spki, data, s.signingKey(keyId).sign(data)), 'the key signs again after the token came back')
  t.ok(changes.some((c) => c?.label === 'sys-signer-unavailable') && changes.at(-1) === undefined, 'told of the outage and of the return')
  s.destroyKey(keyId)
  await s.stop()
})

t.test('the PIN is in nothing the signers said', async (t) => {
  t.ok(said.length > 3)
  for (const line of said) t.notOk(line.includes(hsm.pin), 'no PIN in: ' + line.slice(0, 100))
})
