/**
 * A key roll names the signer of its new keys (issue 25 item 3): the command carries it to the SignerSet, the history
 * text names it, a command from older history (without it) still uses the default signer, and a signer that is not
 * configured is refused with nothing made. Real parts: the SignerSet over two software signers with their own key stores.
 */
import t from 'tap'
import { generateRsaKeyPair, KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import { commandSummary } from '../../../src/ca/commands.js'
import type { CaContext } from '../../../src/ca/context.js'
import { applyEvent } from '../../../src/ca/events.js'
import type { CaState } from '../../../src/ca/state.js'
import { AppError } from '../../../src/errors.js'
import { buildCert, serialFromRandom } from '../../../src/objects/cert.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { SignerSet, type SignerMember } from '../../../src/signers/signer-set.js'
import { toBase64 } from '../../../src/util/base64.js'
import { testKey } from '../../helpers/keys.js'

async function setup() {
  const pairs = await Promise.all(Array.from({ length: 4 }, () => generateRsaKeyPair()))
  let i = 0
  const pool = new KeyPool({ size: 0, concurrency: 1, generate: async () => pairs[i++ % pairs.length] })
  const stores = { a: new MemoryKeyStore(), b: new MemoryKeyStore() }
  const member = (name: 'a' | 'b'): SignerMember => ({ name, type: 'OpenSSL', signer: new SoftSigner(stores[name], pool), handle: () => `h-${name}`, info: () => ({}), problem: () => undefined })
  const recorded = new Map<string, string>()
  const set = new SignerSet({
    members: [member('a'), member('b')], defaultSigner: 'a', oneOffSigner: 'a', now: () => 0, recordedHandle: () => undefined,
    directory: { keyHandle: (k) => recorded.get(k), recordKey: (k, h) => void recorded.set(k, h), forgetKey: (k) => void recorded.delete(k) },
  })
  const ctx: CaContext = { now: new Date('2026-06-01T00:00:00Z'), signer: set, random: (n) => new Uint8Array(n).fill(7), timing: { childCertValidSeconds: 86400 * 365, childCertReissueBeforeSeconds: 86400 * 28 } }
  const s: CaState = initialState('ca1', await set.createKey(), toBase64(new Uint8Array([1])))
  s.repo = { embedded: true, publisherHandle: 'ca1', serviceUri: 'https://localhost/rfc8181/ca1/', siaBase: 'rsync://localhost/repo/ca1/', rrdpNotificationUri: 'https://localhost/rrdp/notification.xml', serverIdCert: '' }
  const run = async (c: Parameters<typeof processCommand>[1]) => {
    const events = await processCommand(structuredClone(s), c, ctx)
    for (const e of events) applyEvent(s, e)
    return events
  }
  await run({ type: 'parent-add', parent: { name: 'p', parentHandle: 'p', childHandle: 'ca1', serviceUri: 'https://localhost/rfc6492/p', idCert: '' } })
  const held = ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await run({ type: 'parent-entitlements-update', parent: 'p', classes: [{ className: 'pc', resources: held.toJSON(), notAfter: '2027-06-01T00:00:00.000Z', issued: [] }] })
  const parentKey = testKey()
  const keyId = s.classes['0']!.current!.keyId
  const der = buildCert({ profile: 'rpki', kind: 'ca', serial: serialFromRandom(new Uint8Array(20).fill(3)), issuerName: parentKey.keyId, subjectName: keyId, subjectSpki: set.signingKey(keyId).spki, notBefore: new Date('2026-05-01'), notAfter: new Date('2027-06-01'), crldp: 'rsync://localhost/repo/p/0/x.crl', aia: 'rsync://localhost/repo/p/0/p.cer', sia: { caRepository: 'rsync://localhost/repo/ca1/0/', rpkiManifest: `rsync://localhost/repo/ca1/0/${keyId}.mft` }, resources: { ipv4: held.ipv4, asn: held.asn } }, parentKey)
  await run({ type: 'certificate-receive', parent: 'p', className: '0', keyId, cert: toBase64(der), uri: 'rsync://localhost/repo/p/0/ca1.cer' })
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
