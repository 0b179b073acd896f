/**
 * Krill's ImportChild body (api/child-import.ts) and the child-import command (ca/child-import.ts): the shape check
 * (api-invalid-body), the value checks (RFC 7935 key, RFC 6487 SIA, RFC 8182 notify, handle), and the domain's
 * refusals with their labels: duplicate, resources not held, class name, our own key, another child's key, the
 * identity key; an accepted import adds the child and certifies its key with the SIA given.
 */
import t from 'tap'
import { checkImportChild, childImportProblems, type ImportChildJson } from '../../../src/api/child-import.js'
import { generateRsaKeyPair, KeyPool } from '../../../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../../../src/crypto/soft-signer.js'
import { initialState, processCommand } from '../../../src/ca/cert-auth.js'
import type { CaCommand } from '../../../src/ca/commands.js'
import type { CaContext } from '../../../src/ca/context.js'
import { applyEvent } from '../../../src/ca/events.js'
import type { CaState } from '../../../src/ca/state.js'
import { AppError } from '../../../src/errors.js'
import * as oids from '../../../src/asn1/oids.js'
import { buildCert, decodeCert, serialFromRandom } from '../../../src/objects/cert.js'
import { createIdCert } from '../../../src/protocol/id-cert.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { toBase64 } from '../../../src/util/base64.js'
import { testKey } from '../../helpers/keys.js'

const NOW = new Date('2026-06-01T00:00:00Z')
const childKey = testKey()
const idKey = testKey()
const REPO = 'rsync://localhost/repo/kid/0/'

function body(over: Partial<ImportChildJson> = {}, cert: Partial<ImportChildJson['issued_cert']> = {}): ImportChildJson {
  return {
    name: 'kid', id_cert: toBase64(createIdCert(idKey, NOW)), resources: { asn: 'AS65001', ipv4: '10.1.0.0/16', ipv6: '' },
    issued_cert: { ca_repository: REPO, rpki_manifest: `${REPO}ABC.mft`, rpki_notify: 'https://localhost/rrdp/notification.xml', key: toBase64(childKey.spki), ...cert },
    ...over,
  }
}

t.test('the shape of the body', async (t) => {
  t.equal(checkImportChild(body()), undefined, 'an export as svcd and Krill write it')
  t.equal(checkImportChild({ ...body(), issued_cert: { ...body().issued_cert, rpki_notify: null, class_name: null } }), undefined, 'null for the optional fields')
  for (const bad of [null, [], 'x', { name: 'kid' }, { ...body(), name: 1 }, { ...body(), id_cert: undefined }, { ...body(), resources: 'AS1' }, { ...body(), issued_cert: [] }]) t.type(checkImportChild(bad), 'string', JSON.stringify(bad)?.slice(0, 60))
  t.match(checkImportChild({ ...body(), issued_cert: { ...body().issued_cert, key: 7 } }), /issued_cert.key must be a string/)
  t.match(checkImportChild({ ...body(), issued_cert: { ...body().issued_cert, class_name: 3 } }), /class_name must be a string/)
  t.match(checkImportChild({ ...body(), resources: { asn: 1 } }), /resources.asn/)
})

t.test('the values: key, SIA and handle, with the rule each breaks', async (t) => {
  t.same(childImportProblems(body()), [])
  t.same(childImportProblems(body({}, { rpki_notify: undefined })), [], 'rpkiNotify is optional')
  const one = (b: ImportChildJson, re: RegExp, why: string) => {
    const p = childImportProblems(b)
    t.equal(p.length, 1, `${why}: one problem (${p.join(' | ')})`)
    t.match(p[0], re, why)
  }
  one(body({ name: 'a b' }), /RFC 8183 §5/, 'a handle with a space')
  one(body({}, { key: 'not base64!' }), /RFC 5280 §4.1.2.7/, 'a key that is no base64')
  one(body({}, { key: toBase64(new Uint8Array([0x30, 0x00])) }), /RFC 5280 §4.1.2.7/, 'a key that is no SubjectPublicKeyInfo')
  one(body({}, { key: toBase64(testKey(1024).spki) }), /RFC 7935 §3: .*1024 bits/, 'an RSA-1024 key')
  one(body({}, { key: toBase64(testKey(2048, 3).spki) }), /RFC 7935 §3: .*exponent 3/, 'exponent 3')
  one(body({}, { ca_repository: 'https://localhost/repo/kid/0/' }), /RFC 6487 §4.8.8.1: ca_repository .* not an rsync URI/, 'caRepository over https')
  one(body({}, { ca_repository: 'rsync://localhost/repo/kid/0' , rpki_manifest: 'rsync://localhost/repo/kid/0/x.mft' }), /must name a directory/, 'caRepository without a slash')
  one(body({}, { rpki_manifest: 'rsync://localhost/repo/other/x.mft' }), /rpki_manifest must be a \.mft file in the ca_repository/, 'the manifest elsewhere')
  one(body({}, { rpki_manifest: `${REPO}sub/x.mft` }), /rpki_manifest must be a \.mft file in the ca_repository/, 'the manifest in a subdirectory')
  one(body({}, { rpki_manifest: `${REPO}x.crl` }), /rpki_manifest must be a \.mft file/, 'not a manifest')
  one(body({}, { rpki_manifest: `${REPO}../x.mft` }), /RFC 3986 §3.3/, 'a dot segment')
  one(body({}, { rpki_notify: 'rsync://localhost/rrdp/notification.xml' }), /RFC 8182 §3.2/, 'rpkiNotify over rsync')
  one(body({}, { rpki_notify: 'https://localhost/rrdp/n\u00e9.xml' }), /RFC 3986 §2/, 'a non-ASCII URI')
  one(body({}, { rpki_notify: `https://localhost/${'a'.repeat(2100)}` }), /more than 2048/, 'a URI longer than relying parties accept')
  one(body({}, { class_name: '' }), /RFC 6492 §3.3.2/, 'an empty class name')
})

/** A parent CA with one certified resource class (AS65000-65010, 10.0.0.0/8), as in cert-auth.test.ts. */
async function parent() {
  const pairs = await Promise.all(Array.from({ length: 2 }, () => generateRsaKeyPair()))
  let i = 0
  const signer = new SoftSigner(new MemoryKeyStore(), new KeyPool({ size: 0, concurrency: 1, generate: async () => pairs[i++ % pairs.length]! }))
  const ctx: CaContext = { now: NOW, signer, random: (n) => new Uint8Array(n).fill(7), timing: { childCertValidSeconds: 86400 * 365, childCertReissueBeforeSeconds: 86400 * 28 } }
  const s: CaState = initialState('p2', await signer.createKey(), toBase64(new Uint8Array([1])))
  s.repo = { embedded: true, publisherHandle: 'p2', serviceUri: 'https://localhost/rfc8181/p2/', siaBase: 'rsync://localhost/repo/p2/', rrdpNotificationUri: 'https://localhost/rrdp/notification.xml', serverIdCert: '' }
  const run = async (c: CaCommand) => {
    const events = await processCommand(structuredClone(s), c, ctx)
    for (const e of events) applyEvent(s, e)
    return events
  }
  await run({ type: 'parent-add', parent: { name: 'tb', parentHandle: 'tb', childHandle: 'p2', serviceUri: 'https://localhost/rfc6492/tb', idCert: '' } })
  const held = ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8' })
  await run({ type: 'parent-entitlements-update', parent: 'tb', classes: [{ className: 'x', resources: held.toJSON(), notAfter: '2027-06-01T00:00:00.000Z', issued: [] }] })
  const keyId = s.classes['0']!.current!.keyId
  const der = buildCert({ profile: 'rpki', kind: 'ca', serial: serialFromRandom(new Uint8Array(20).fill(3)), issuerName: 'tb', subjectName: keyId, subjectSpki: signer.signingKey(keyId).spki, notBefore: new Date('2026-05-01'), notAfter: new Date('2027-06-01'), crldp: 'rsync://localhost/repo/tb/0/x.crl', aia: 'rsync://localhost/repo/tb/0/tb.cer', sia: { caRepository: 'rsync://localhost/repo/p2/0/', rpkiManifest: `rsync://localhost/repo/p2/0/${keyId}.mft` }, resources: { ipv4: held.ipv4, asn: held.asn } }, testKey())
  await run({ type: 'certificate-receive', parent: 'tb', className: '0', keyId, cert: toBase64(der), uri: 'rsync://localhost/repo/tb/0/p2.cer' })
  return { s, run, signer, keyId }
}

function command(b: ImportChildJson, over: Partial<Extract<CaCommand, { type: 'child-import' }>> = {}): CaCommand {
  const c = b.issued_cert
  return { type: 'child-import', handle: b.name, idCert: b.id_cert, resources: b.resources, key: c.key, sia: { caRepository: c.ca_repository, rpkiManifest: c.rpki_manifest, ...(c.rpki_notify ? { rpkiNotify: c.rpki_notify } : {}) }, ...over }
}

const label = async (p: Promise<unknown>) => p.then(() => 'no error', (e) => (e instanceof AppError ? `${e.label}: ${e.message}` : String(e)))

t.test('an import adds the child and certifies its key with the SIA it publishes under', async (t) => {
  const p = await parent()
  const events = await p.run(command(body()))
  t.same(events.map((e) => e.type), ['child-added', 'child-certificate-issued'])
  const issued = Object.values(p.s.children['kid']!.issued)
  t.equal(issued.length, 1)
  const cert = decodeCert(Buffer.from(issued[0]!.der, 'base64'))
  t.same(Buffer.from(cert.spki), Buffer.from(childKey.spki), "the child's own key")
  const sia = Object.fromEntries((cert.extensions.sia ?? []).map((a) => [a.method, a.uri]))
  t.same(sia, { [oids.idAdCaRepository]: REPO, [oids.idAdRpkiManifest]: `${REPO}ABC.mft`, [oids.idAdRpkiNotify]: 'https://localhost/rrdp/notification.xml' })
  t.equal(issued[0]!.resources.ipv4, '10.1.0.0/16')
  t.equal(issued[0]!.className, '0')
  t.equal(issued[0]!.signedBy, p.keyId, 'signed by our current key')
})

t.test('refusals, each with nothing changed', async (t) => {
  const p = await parent()
  const before = structuredClone(p.s)
  t.match(await label(p.run(command(body({ resources: { asn: '', ipv4: '11.0.0.0/16', ipv6: '' } })))), /^ca-child-resources-extra/)
  t.match(await label(p.run(command(body({ resources: { asn: '', ipv4: '', ipv6: '' } })))), /^ca-child-resources-required/)
  t.match(await label(p.run(command(body(), { className: 'lacnic' }))), /^ca-child-import-invalid: .*class 'lacnic', ours is '0'/)
  t.match(await label(p.run(command(body(), { key: toBase64(p.signer.signingKey(p.keyId).spki) }))), /^ca-child-import-invalid: .*a key of this CA/)
  t.match(await label(p.run(command(body(), { key: toBase64(idKey.spki) }))), /^ca-child-import-invalid: .*identity key/)
  t.same(p.s, before, 'the state is as before')
  t.same((await p.run(command(body(), { className: '0' }))).map((e) => e.type), ['child-added', 'child-certificate-issued'], "a class name equal to ours is accepted")
  t.match(await label(p.run(command(body()))), /^ca-child-duplicate/)
  t.match(await label(p.run(command(body({ name: 'twin' })))), /^ca-child-import-invalid: .*already certified for child 'kid'/)
})

t.test('a parent without exactly one certified class, or with an expired certificate, refuses', async (t) => {
  const p = await parent()
  const expired = await processCommand(structuredClone(p.s), command(body()), { now: new Date('2027-07-01T00:00:00Z'), signer: p.signer, random: (n) => new Uint8Array(n), timing: { childCertValidSeconds: 1, childCertReissueBeforeSeconds: 1 } }).then(() => 'no error', (e: AppError) => e.label + ': ' + e.message)
  t.match(expired, /^ca-child-import-invalid: .*expired at 2027-06-01/)
  const two = structuredClone(p.s)
  two.classes['1'] = { ...structuredClone(two.classes['0']!), name: '1' }
  t.match(await processCommand(two, command(body()), { now: NOW, signer: p.signer, random: (n) => new Uint8Array(n), timing: { childCertValidSeconds: 1, childCertReissueBeforeSeconds: 1 } }).then(() => 'no error', (e: AppError) => e.label + ': ' + e.message), /^ca-child-import-invalid: .*exactly one certified resource class .* has 2/)
})
