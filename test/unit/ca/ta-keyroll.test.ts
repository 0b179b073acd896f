/**
 * The embedded trust anchor's key roll (RFC 9691) without a database: commands in, events out, refusals with their
 * labels, and the TAKs that app/ca/objects.ts makes for each key in each phase (who is named current, predecessor,
 * successor), with the TA certificates published at their own URIs.
 *
 *   ta (class 0, self-signed) ── kid (a child certified from its CSR)
 */
import t, { type Test } from 'tap'
import { generateRsaKeyPair, KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import type { CaContext } from '../../../src/ca/context.js'
import { applyEvent } from '../../../src/ca/events.js'
import type { CaKeyObjects } from '../../../src/ca/object-model.js'
import type { CaState } from '../../../src/ca/state.js'
import { AppError } from '../../../src/errors.js'
import { keyIdentifier } from '../../../src/crypto/key-id.js'
import { decodeCert } from '../../../src/objects/cert.js'
import { buildCsr } from '../../../src/objects/csr.js'
import { decodeTak, inspectTak } from '../../../src/objects/tak.js'
import { publishedFiles, updateObjects } from '../../../src/app/ca/objects.js'
import { createTrustAnchor } from '../../../src/ta/testbed.js'
import { fromBase64, toBase64 } from '../../../src/util/base64.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/keys.js'

const SIA = 'rsync://localhost/repo/ta/'
const SERVICE = 'https://localhost:3000/'
const TIMING = { mftNextUpdateSeconds: 86400, mftReissueSeconds: 28800, roaValidSeconds: 86400 * 365, roaReissueBeforeSeconds: 86400 * 28, roaAggregateThreshold: 100, roaDeaggregateThreshold: 90 }

async function setup(t: Test) {
  // Enough distinct keys that no one-off EE key repeats a TA key (about 13 are used).
  const pairs = await Promise.all(Array.from({ length: 16 }, () => generateRsaKeyPair()))
  let i = 0
  const pool = new KeyPool({ size: 0, concurrency: 1, generate: async () => pairs[i++ % pairs.length] })
  const signer = new SoftSigner(new MemoryKeyStore(), pool)
  let now = new Date('2026-06-01T00:00:00Z')
  let serial = 1
  const ctx = (): CaContext => ({ now, signer, random: (n) => new Uint8Array(n).fill(serial++ % 250), timing: { childCertValidSeconds: 86400 * 365, childCertReissueBeforeSeconds: 86400 * 28 } })
  const s: CaState = initialState('ta', await signer.createKey(), toBase64(new Uint8Array([1])))
  s.repo = { embedded: true, publisherHandle: 'ta', serviceUri: `${SERVICE}rfc8181/ta/`, siaBase: SIA, rrdpNotificationUri: `${SERVICE}rrdp/notification.xml`, serverIdCert: '' }
  Object.assign(s, await createTrustAnchor(s, signer, SERVICE, now, (n) => new Uint8Array(n).fill(3)))
  const run = async (c: Parameters<typeof processCommand>[1]) => {
    const events = await processCommand(structuredClone(s), c, ctx())
    for (const e of events) applyEvent(s, e)
    return events
  }
  let objects: CaKeyObjects[] = []
  const publish = async () => {
    const upd = await updateObjects(s, objects, { now, signer, random: (n) => new Uint8Array(n).fill(serial++ % 250), timing: TIMING })
    t.same(upd.refused, [], 'every object passes the self-check')
    objects = upd.keys
    return publishedFiles(s, objects)
  }
  return { s, run, publish, signer, later: (ms: number) => void (now = new Date(now.getTime() + ms)) }
}

const label = async (p: Promise<unknown>) => p.then(() => 'no error', (e) => (e instanceof AppError ? `${e.label}: ${e.message}` : String(e)))
const keyOf = (der: string) => toHex(keyIdentifier(decodeCert(fromBase64(der)).spki)).toUpperCase()

/** The TAKs published, as `<file>: current=<key> pre=<key> suc=<key>`. */
function taks(t: Test, files: { uri: string; der: Uint8Array }[]): string[] {
  return files.filter((f) => f.uri.endsWith('.tak')).map((f) => {
    const tak = decodeTak(f.der)
    t.same(inspectTak(tak), [], `${f.uri} conforms to RFC 9691`)
    const k = (x?: { spki: Uint8Array }) => (x ? toHex(keyIdentifier(x.spki)).toUpperCase().slice(0, 6) : '-')
    return `${f.uri.slice(SIA.length)}: current=${k(tak.current)} pre=${k(tak.predecessor)} suc=${k(tak.successor)}`
  }).sort()
}

t.test('TA key roll: init publishes a successor; activate re-issues the child; finish withdraws the old key', async (t) => {
  const x = await setup(t)
  const k1 = x.s.classes['0'].current!.keyId
  // A child certified under the TA key.
  await x.run({ type: 'child-add', handle: 'kid', idCert: toBase64(new Uint8Array([9])), resources: { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '' } })
  const csr = toBase64(buildCsr(testKey(), { caRepository: 'rsync://localhost/repo/kid/0/', rpkiManifest: 'rsync://localhost/repo/kid/0/kid.mft', rpkiNotify: `${SERVICE}rrdp/notification.xml` }))
  await x.run({ type: 'child-certify', handle: 'kid', className: '0', csr })
  let files = await x.publish()
  const short = (k: string) => k.slice(0, 6)
  t.same(taks(t, files), [`0/${k1}.tak: current=${short(k1)} pre=- suc=-`], 'before: one TAK naming the current key')
  t.ok(files.some((f) => f.uri === `${SIA}ta.cer`), 'the TA certificate at ta.cer')

  t.match(await label(x.run({ type: 'ta-keyroll-activate' })), /^key-roll-disallowed: .*no TA key roll is in progress/, 'activate without init')
  t.match(await label(x.run({ type: 'keyroll-init' })), /^key-roll-disallowed: .*svcc ta keyroll init/, "the RFC 6489 roll is not the TA's")

  t.same((await x.run({ type: 'ta-keyroll-init' })).map((e) => e.type), ['ta-key-roll-initiated'])
  const k2 = x.s.classes['0'].next!.keyId
  t.equal(x.s.ta!.next!.rsyncUri, `${SIA}ta-${k2}.cer`)
  t.equal(x.s.ta!.next!.httpsUri, `${SERVICE}ta/ta-${k2}.cer`)
  t.equal(keyOf(x.s.ta!.next!.certDer), k2, "the successor's own self-signed certificate")
  const before = JSON.stringify(x.s)
  t.match(await label(x.run({ type: 'ta-keyroll-init' })), /^key-roll-disallowed: .*in progress/, 'init twice')
  t.equal(JSON.stringify(x.s), before, 'nothing changed')
  files = await x.publish()
  t.same(taks(t, files), [`0/${k1}.tak: current=${short(k1)} pre=- suc=${short(k2)}`, `0/${k2}.tak: current=${short(k2)} pre=${short(k1)} suc=-`].sort(), 'during: each key names the other')
  t.ok(files.some((f) => f.uri === `${SIA}ta-${k2}.cer`) && files.some((f) => f.uri === `${SIA}ta.cer`), 'both TA certificates published')
  t.ok(files.some((f) => f.uri === `${SIA}0/${k2}.mft`) && files.some((f) => f.uri === `${SIA}0/${k2}.crl`), 'the successor has its manifest and CRL')

  const act = await x.run({ type: 'ta-keyroll-activate' })
  t.same(act.map((e) => e.type), ['key-roll-activated', 'ta-key-roll-activated', 'child-certificate-issued'], 'the child is re-issued under the new key')
  t.equal(x.s.classes['0'].current!.keyId, k2)
  t.equal(x.s.ta!.rsyncUri, `${SIA}ta-${k2}.cer`, 'the current TA certificate is the successor at its own URI')
  t.equal(x.s.ta!.old!.rsyncUri, `${SIA}ta.cer`)
  t.equal(Object.values(x.s.children.kid!.issued)[0]!.signedBy, k2)
  t.match(await label(x.run({ type: 'ta-keyroll-init' })), /^key-roll-disallowed: .*still published/, 'no new roll while the old key is kept')
  files = await x.publish()
  t.same(taks(t, files), [`0/${k1}.tak: current=${short(k1)} pre=- suc=${short(k2)}`, `0/${k2}.tak: current=${short(k2)} pre=${short(k1)} suc=-`].sort(), 'after activation: both still published')
  const childCerts = files.filter((f) => f.uri.endsWith('.cer') && f.uri.startsWith(`${SIA}0/`))
  t.equal(childCerts.length, 1, 'the child certificate once, under the new key')

  t.same((await x.run({ type: 'ta-keyroll-finish' })).map((e) => e.type), ['key-roll-finished', 'ta-key-roll-finished'])
  t.same(await x.run({ type: 'ta-keyroll-finish' }), [], 'finish again: nothing to do')
  files = await x.publish()
  t.same(taks(t, files), [`0/${k2}.tak: current=${short(k2)} pre=- suc=-`], 'after: one TAK naming the new key')
  t.notOk(files.some((f) => f.uri === `${SIA}ta.cer` || f.uri.includes(k1)), "the old key's certificate and objects are withdrawn")
})

t.test('a CA that is not the trust anchor has no TA key roll', async (t) => {
  const x = await setup(t)
  const plain: CaState = { ...structuredClone(x.s), ta: undefined }
  delete plain.ta
  const ctx = { now: new Date(), signer: x.signer, random: (n: number) => new Uint8Array(n), timing: { childCertValidSeconds: 1, childCertReissueBeforeSeconds: 1 } }
  const err = await processCommand(plain, { type: 'ta-keyroll-init' }, ctx).then(() => undefined, (e: unknown) => e)
  t.ok(err instanceof AppError && err.label === 'key-roll-disallowed', 'refused with a label')
  t.match((err as AppError).message, /only the embedded trust anchor/)
})
