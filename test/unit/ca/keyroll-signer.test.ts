/**
 * A key roll names the signer of its new keys (issue 25 item 3): the command carries it to the SignerSet, the history
 * text names it, a command from older history (without it) still uses the default signer, and a signer that is not
 * configured is refused with nothing made. Real parts: the SignerSet over two software signers with their own key stores.
 */
import t from 'tap'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { processCommand } from '../../../src/ca/cert-auth.js'
import { commandSummary } from '../../../src/ca/commands.js'
import { AppError } from '../../../src/errors.js'
import { SignerSet, type SignerMember } from '../../../src/signers/signer-set.js'
import { certifiedCa, recycledPool } from '../../helpers/certified-ca.js'

/** ca1 certified (test/helpers/certified-ca.ts), over a SignerSet of two software signers 'a' (default) and 'b'. */
async function setup() {
  const pool = await recycledPool()
  const stores = { a: new MemoryKeyStore(), b: new MemoryKeyStore() }
  const member = (name: 'a' | 'b'): SignerMember => ({ name, type: 'OpenSSL', signer: new SoftSigner(stores[name], pool), handle: () => `h-${name}`, info: () => ({}), problem: () => undefined })
  const recorded = new Map<string, string>()
  const set = new SignerSet({
    members: [member('a'), member('b')], defaultSigner: 'a', oneOffSigner: 'a', now: () => 0, recordedHandle: () => undefined,
    directory: { keyHandle: (k) => recorded.get(k), recordKey: (k, h) => void recorded.set(k, h), forgetKey: (k) => void recorded.delete(k) },
  })
  const { s, run } = await certifiedCa(set)
  return { s, run, set, stores, recorded }
}

t.test('keyroll-init with a signer makes the new key there', async (t) => {
  const x = await setup()
  const old = x.s.classes['0']!.current!.keyId
  t.equal(x.set.signerOf(old), 'a', 'the first key in the default signer')
  const events = await x.run({ type: 'keyroll-init', signer: 'b' })
  t.same(events.map((e) => e.type), ['key-roll-initiated'])
  const fresh = x.s.classes['0']!.next!.keyId
  t.equal(x.set.signerOf(fresh), 'b')
  t.equal(x.recorded.get(fresh), 'h-b', 'recorded under the handle of signer b')
  t.ok(x.stores.b.get(fresh), 'the private key in b')
  t.notOk(x.stores.a.get(fresh), 'and not in a')
})

t.test('older history: keyroll-init without a signer uses the default signer', async (t) => {
  const x = await setup()
  const stored = JSON.parse('{"type":"keyroll-init"}') as Parameters<typeof processCommand>[1]
  await x.run(stored)
  t.equal(x.set.signerOf(x.s.classes['0']!.next!.keyId), 'a')
  t.same(commandSummary({ type: 'keyroll-init' }), { label: 'cmd-ca-keyroll-init', msg: 'Initialise key roll for all resource classes', args: {} }, "Krill's text unchanged")
  t.same(commandSummary({ type: 'keyroll-init', signer: 'b' }), { label: 'cmd-ca-keyroll-init', msg: "Initialise key roll for all resource classes, new keys in signer 'b'", args: { signer: 'b' } })
  t.match(commandSummary({ type: 'ta-keyroll-init', signer: 'b' }).msg, /a successor key in signer 'b' with its own TA certificate/)
})

t.test('an unknown signer: signer-unknown, nothing made, nothing changed', async (t) => {
  const x = await setup()
  const before = structuredClone(x.s)
  const keys = [...x.stores.a.list(), ...x.stores.b.list()].length
  const e = await x.run({ type: 'keyroll-init', signer: 'nope' }).then(() => undefined, (err: unknown) => err)
  t.ok(e instanceof AppError && e.label === 'signer-unknown' && e.status === 400, 'signer-unknown, 400')
  t.same(x.s, before)
  t.equal([...x.stores.a.list(), ...x.stores.b.list()].length, keys, 'no key made')
})
