/**
 * ASPA objects through the real object pipeline (app/ca/objects.ts updateObjects → aspa-objects.ts) with fixed keys
 * and times: the exact eContent of draft-ietf-sidrops-aspa-profile §3 (version [0] 1, providers ascending), an EE
 * holding exactly the customer AS, listed on the manifest; kept while unchanged, re-issued when providers change or
 * expiry nears, withdrawn (and revoked) when the definition goes or the customer is no longer held; nothing signed
 * for a CA without definitions. Router certificates (RFC 8209) the same way: issued under the CA key, kept,
 * withdrawn and revoked when the AS is no longer held, nothing for a CA without router keys.
 *
 *   rpki-ta ── ca1 (key rpki-ca, class "0", AS65000-65010, 10.0.0.0/8) → ASPAs, a manifest and a CRL
 */
import t from 'tap'
import { updateObjects, type ObjectsContext } from '../../../src/app/ca/objects.js'
import type { AspaConfig } from '../../../src/ca/aspas.js'
import { bgpSecKey, type BgpSecDefinition } from '../../../src/ca/bgpsec.js'
import type { CaKeyObjects } from '../../../src/ca/object-model.js'
import type { CaState } from '../../../src/ca/state.js'
import type { OneOffKey, Signer } from '../../../src/crypto/signer.js'
import { decodeAspa, inspectAspa } from '../../../src/objects/aspa.js'
import { buildCert, certRole, decodeCert, inspectCert } from '../../../src/objects/cert.js'
import { decodeCrl } from '../../../src/objects/crl.js'
import { decodeManifest } from '../../../src/objects/manifest.js'
import { certFileName, manifestFileName } from '../../../src/objects/naming.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { toBase64 } from '../../../src/util/base64.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { fixedRouterKey, routerCsr } from '../../helpers/router.js'

const SIA_BASE = 'rsync://localhost/repo/ca1/'
const DIR = `${SIA_BASE}0/`
const T0 = new Date('2026-03-01T00:00:00Z')
const ta = testKey('rpki-ta')
const ca = testKey('rpki-ca')

function caCertDer(asn: string): Uint8Array {
  return buildCert({
    profile: 'rpki', kind: 'ca', serial: 7n, issuerName: ta.keyId, subjectName: ca.keyId, subjectSpki: ca.spki,
    notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'),
    crldp: 'rsync://localhost/repo/ta/ta.crl', aia: 'rsync://localhost/repo/ta/ta.cer',
    sia: { caRepository: DIR, rpkiManifest: DIR + manifestFileName(ca.keyId), rpkiNotify: 'https://localhost/rrdp/notification.xml' },
    resources: { ipv4: IpBlocks.parse('10.0.0.0/8', 4), asn: AsBlocks.parse(asn) },
  }, ta)
}

function state(aspas: AspaConfig[] | undefined, asn = 'AS65000-65010', bgpsec?: BgpSecDefinition[]): CaState {
  const resources = { asn, ipv4: '10.0.0.0/8', ipv6: '' }
  return {
    handle: 'ca1', idKey: 'x', idCert: '', nextClass: 1, parents: {}, children: {}, routes: {},
    ...(aspas ? { aspas: Object.fromEntries(aspas.map((a) => [String(a.customer), a])) } : {}),
    ...(bgpsec ? { bgpsec: Object.fromEntries(bgpsec.map((d) => [bgpSecKey(d), d])) } : {}),
    repo: { embedded: true, publisherHandle: 'ca1', serviceUri: '', siaBase: SIA_BASE, rrdpNotificationUri: 'https://localhost/rrdp/notification.xml', serverIdCert: '' },
    classes: {
      '0': {
        name: '0', parent: 'ta', parentClass: '0', entitled: resources, notAfter: '2027-01-01T00:00:00Z',
        current: { keyId: ca.keyId, cert: { der: toBase64(caCertDer(asn)), uri: 'rsync://localhost/repo/ta/' + certFileName(ca.keyId), resources, notBefore: '2026-01-01T00:00:00Z', notAfter: '2027-01-01T00:00:00Z' } },
      },
    },
  }
}

/** A context whose signer counts the one-off keys it hands out. */
function context(now: Date): ObjectsContext & { oneOff: () => number } {
  let n = Math.floor(now.getTime() / 1000) & 0xffff
  let k = 0
  const signer: Signer = {
    createKey: async () => ca.keyId,
    signingKey: () => ca,
    hasKey: () => true,
    destroyKey: () => {},
    oneOffKey: async (): Promise<OneOffKey> => testKey(`rpki-ee-${(k++ % 6) + 1}`),
  }
  return {
    now, signer, oneOff: () => k,
    random: (len) => Uint8Array.from({ length: len }, (_, i) => (i === 0 ? 1 : (n++ * 7 + i) & 0xff)),
    timing: { mftNextUpdateSeconds: 86_400, mftReissueSeconds: 8 * 3600, roaValidSeconds: 365 * 86_400, roaReissueBeforeSeconds: 28 * 86_400, roaAggregateThreshold: 100, roaDeaggregateThreshold: 90 },
  }
}

const at = (days: number): Date => new Date(T0.getTime() + days * 86_400_000)
const asas = (keys: CaKeyObjects[]) => keys.flatMap((k) => k.objects.filter((o) => o.kind === 'asa'))
const mftFiles = (keys: CaKeyObjects[]) => decodeManifest(keys[0]!.objects.find((o) => o.kind === 'mft')!.der).files.map((f) => f.file)
const crlSerials = (keys: CaKeyObjects[]) => decodeCrl(keys[0]!.objects.find((o) => o.kind === 'crl')!.der).revoked.map((r) => r.serial.toString())

t.test('draft-ietf-sidrops-aspa-profile §3, §4: the exact content, an EE with only the customer AS, on the manifest', async (t) => {
  const u = await updateObjects(state([{ customer: 65000, providers: [65001, 65002] }]), [], context(T0))
  t.same(u.refused, [])
  const [o] = asas(u.keys)
  t.equal(o!.name, 'AS65000.asa')
  const a = decodeAspa(o!.der)
  // SEQUENCE { [0] EXPLICIT INTEGER 1, INTEGER 65000, SEQUENCE { INTEGER 65001, INTEGER 65002 } }
  t.equal(toHex(a.signedObject.eContent), '3016a003020101020300fde8300a020300fde9020300fdea')
  t.same(inspectAspa(a).filter((p) => p.severity === 'error'), [], 'no profile problem')
  t.equal(a.ee.extensions.ip, undefined, 'no IP resources in the EE')
  t.equal((a.ee.extensions.as?.asn as AsBlocks).toString(), 'AS65000', 'exactly the customer AS')
  t.equal(a.ee.notAfter.toISOString(), '2027-01-01T00:00:00.000Z', 'EE validity capped at the CA certificate')
  t.same(a.ee.extensions.sia?.map((d) => d.uri), [`${DIR}AS65000.asa`], 'SIA signedObject: its own URI')
  t.ok(mftFiles(u.keys).includes('AS65000.asa'), 'listed on the manifest')
})

t.test('kept while unchanged; re-issued on a provider change and before expiry; withdrawn and revoked when gone', async (t) => {
  const one = state([{ customer: 65000, providers: [65001] }])
  const first = await updateObjects(one, [], context(T0))
  const serial = asas(first.keys)[0]!.meta.serial

  const ctx = context(at(0.1))
  const same = await updateObjects(one, first.keys, ctx)
  t.equal(same.changed, false, 'nothing to do a little later')
  t.equal(ctx.oneOff(), 0, 'no key taken, nothing signed')

  const changed = await updateObjects(state([{ customer: 65000, providers: [65001, 65005] }]), first.keys, context(at(2)))
  t.equal(changed.changed, true)
  const [o] = asas(changed.keys)
  t.same(decodeAspa(o!.der).providers, [65001, 65005], 're-issued with the new providers')
  t.same(o!.meta.providers, [65001, 65005])
  t.ok(crlSerials(changed.keys).includes(serial), 'the replaced ASPA is revoked')

  const late = await updateObjects(state([{ customer: 65000, providers: [65001, 65005] }]), changed.keys, context(new Date('2026-12-10T00:00:00Z')))
  t.not(asas(late.keys)[0]!.hash, o!.hash, 're-issued within four weeks of its expiry')

  const shrunk = await updateObjects(state([{ customer: 65000, providers: [65001, 65005] }], 'AS65001-65010'), late.keys, context(at(3)))
  t.same(asas(shrunk.keys), [], 'withdrawn when the customer AS is no longer held')
  t.ok(crlSerials(shrunk.keys).includes(asas(late.keys)[0]!.meta.serial), 'and revoked')
  const back = await updateObjects(state([{ customer: 65000, providers: [65001, 65005] }]), shrunk.keys, context(at(4)))
  t.equal(asas(back.keys).length, 1, 'back with the resource')
  const removed = await updateObjects(state([]), back.keys, context(at(5)))
  t.same(asas(removed.keys), [], 'withdrawn when the definition is removed')
  t.notOk(mftFiles(removed.keys).some((f) => f.endsWith('.asa')))
})

t.test('a CA without definitions signs no ASPA and takes no key for one', async (t) => {
  const ctx = context(T0)
  const u = await updateObjects(state(undefined), [], ctx)
  t.same(asas(u.keys), [])
  t.equal(ctx.oneOff(), 1, 'one one-off key: the manifest')
})

t.test('RFC 8209: a router certificate per router key whose AS the key holds; kept, withdrawn and revoked', async (t) => {
  const router = fixedRouterKey()
  const def: BgpSecDefinition = { asn: 65000, keyId: router.keyId, csr: toBase64(routerCsr(router)) }
  const ctx = context(T0)
  const u = await updateObjects(state(undefined, 'AS65000-65010', [def]), [], ctx)
  t.same(u.refused, [])
  t.equal(ctx.oneOff(), 1, 'signed with the CA key: the only one-off key is the manifest\'s')
  const o = u.keys[0]!.objects.find((x) => x.kind === 'router')!
  t.equal(o.name, `ROUTER-0000FDE8-${router.keyId}.cer`)
  const c = decodeCert(o.der)
  t.equal(certRole(c), 'router')
  t.same(inspectCert(c, 'router').filter((p) => p.severity === 'error'), [])
  t.equal(c.notAfter.toISOString(), '2027-01-01T00:00:00.000Z', 'valid as long as the CA certificate at most')
  t.ok(mftFiles(u.keys).includes(o.name), 'listed on the manifest')

  const same = await updateObjects(state(undefined, 'AS65000-65010', [def]), u.keys, context(at(0.1)))
  t.equal(same.changed, false, 'kept')
  const shrunk = await updateObjects(state(undefined, 'AS65001-65010', [def]), u.keys, context(at(1)))
  t.notOk(shrunk.keys[0]!.objects.some((x) => x.kind === 'router'), 'withdrawn when the AS is no longer held')
  t.ok(crlSerials(shrunk.keys).includes(o.meta.serial), 'and revoked')
  const ctx2 = context(T0)
  await updateObjects(state(undefined, 'AS65000-65010', []), [], ctx2)
  t.equal(ctx2.oneOff(), 1, 'no router keys: nothing but the manifest signed')
})
