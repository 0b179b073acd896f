/**
 * Issue 12 item 2, the CA's side of the audit: what svc issues under one key over time, checked rule by rule
 * through the real object pipeline (app/ca/objects.ts updateObjects) with fixed keys and fixed times.
 *
 *   rpki-ta ── ca1 (key rpki-ca, class "0", 10.0.0.0/8, 2001:db8::/32, AS65000-65010) → ROAs, a manifest and a CRL
 */
import t from 'tap'
import { updateObjects, publishedFiles, type ObjectsContext } from '../../../src/app/ca/objects.js'
import type { CaKeyObjects } from '../../../src/ca/object-model.js'
import { MAX_OBJECT_NUMBER, nextObjectNumber } from '../../../src/ca/numbering.js'
import type { RoaConfig } from '../../../src/ca/roas.js'
import type { CaState } from '../../../src/ca/state.js'
import * as oids from '../../../src/asn1/oids.js'
import type { OneOffKey, Signer } from '../../../src/crypto/signer.js'
import { buildCert } from '../../../src/objects/cert.js'
import { decodeCrl } from '../../../src/objects/crl.js'
import { decodeManifest, fileHash } from '../../../src/objects/manifest.js'
import { decodeRoa } from '../../../src/objects/roa.js'
import { certFileName, manifestFileName } from '../../../src/objects/naming.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks, parsePrefix } from '../../../src/resources/ip.js'
import { roaPayloadKey } from '../../../src/resources/roa-payload.js'
import { toBase64 } from '../../../src/util/base64.js'
import { bytesEqual } from '../../../src/util/bytes.js'
import { testKey } from '../../helpers/fixed-keys.js'

const SIA_BASE = 'rsync://localhost/repo/ca1/'
const DIR = `${SIA_BASE}0/`
const T0 = new Date('2026-03-01T00:00:00Z')
const ta = testKey('rpki-ta')
const ca = testKey('rpki-ca')

function caCertDer(): Uint8Array {
  return buildCert({
    profile: 'rpki', kind: 'ca', serial: 7n, issuerName: ta.keyId, subjectName: ca.keyId, subjectSpki: ca.spki,
    notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2027-01-01T00:00:00Z'),
    crldp: 'rsync://localhost/repo/ta/ta.crl', aia: 'rsync://localhost/repo/ta/ta.cer',
    sia: { caRepository: DIR, rpkiManifest: DIR + manifestFileName(ca.keyId), rpkiNotify: 'https://localhost/rrdp/notification.xml' },
    resources: { ipv4: IpBlocks.parse('10.0.0.0/8', 4), ipv6: IpBlocks.parse('2001:db8::/32', 6), asn: AsBlocks.parse('AS65000-65010') },
  }, ta)
}

function route(text: string, asn: number): [string, RoaConfig] {
  const [prefix, max] = text.split('-')
  const p = parsePrefix(prefix!)
  const maxLength = max === undefined ? p.len : Number(max)
  return [roaPayloadKey({ asn, prefix: p, maxLength }), { asn, prefix: prefix!, maxLength, since: T0.toISOString() }]
}

function state(routes: [string, RoaConfig][]): CaState {
  return {
    handle: 'ca1', idKey: 'x', idCert: '', nextClass: 1, parents: {}, children: {}, routes: Object.fromEntries(routes),
    repo: { embedded: true, publisherHandle: 'ca1', serviceUri: '', siaBase: SIA_BASE, rrdpNotificationUri: 'https://localhost/rrdp/notification.xml', serverIdCert: '' },
    classes: {
      '0': {
        name: '0', parent: 'ta', parentClass: '0', entitled: { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' }, notAfter: '2027-01-01T00:00:00Z',
        current: { keyId: ca.keyId, cert: { der: toBase64(caCertDer()), uri: 'rsync://localhost/repo/ta/' + certFileName(ca.keyId), resources: { asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '2001:db8::/32' }, notBefore: '2026-01-01T00:00:00Z', notAfter: '2027-01-01T00:00:00Z' } },
      },
    },
  }
}

function context(now: Date, force = false): ObjectsContext {
  let n = 0
  let k = 0
  const signer: Signer = {
    createKey: async () => ca.keyId,
    signingKey: () => ca,
    hasKey: () => true,
    destroyKey: () => {},
    oneOffKey: async (): Promise<OneOffKey> => testKey(`rpki-ee-${(k++ % 6) + 1}`),
  }
  return {
    now, signer, force,
    random: (len) => Uint8Array.from({ length: len }, (_, i) => (i === 0 ? 1 : (n++ * 7 + i) & 0xff)),
    timing: { mftNextUpdateSeconds: 86_400, mftReissueSeconds: 8 * 3600, roaValidSeconds: 365 * 86_400, roaReissueBeforeSeconds: 28 * 86_400, roaAggregateThreshold: 100, roaDeaggregateThreshold: 90 },
  }
}

function find(keys: CaKeyObjects[], kind: 'mft' | 'crl' | 'roa'): Uint8Array[] {
  return keys.flatMap((k) => k.objects.filter((o) => o.kind === kind).map((o) => o.der))
}

const at = (hours: number): Date => new Date(T0.getTime() + hours * 3600_000)

t.test('RFC 9286 §4.2.1, RFC 9829 §2: the manifest and CRL numbers go up by exactly one per issuance, from 1', async (t) => {
  const s = state([route('10.0.0.0/24', 65000)])
  let prev: CaKeyObjects[] = []
  const numbers: bigint[] = []
  for (let i = 0; i < 4; i++) {
    const u = await updateObjects(s, prev, context(at(i), true))
    t.same(u.refused, [])
    prev = u.keys
    const mft = decodeManifest(find(prev, 'mft')[0]!)
    const crl = decodeCrl(find(prev, 'crl')[0]!)
    t.equal(crl.extensions.crlNumber?.value, mft.manifestNumber, 'the CRL shares the counter')
    numbers.push(mft.manifestNumber)
  }
  t.same(numbers, [1n, 2n, 3n, 4n])
})

t.test('RFC 9286 §4.2.1: a manifest number is never reused with other content', async (t) => {
  const seen = new Map<bigint, string>()
  let prev: CaKeyObjects[] = []
  const plans = [[route('10.0.0.0/24', 65000)], [route('10.0.0.0/24', 65000), route('10.1.0.0/16-20', 65001)], [route('10.1.0.0/16-20', 65001)], []]
  for (const [i, routes] of plans.entries()) {
    const s = state(routes)
    const u = await updateObjects(s, prev, context(at(i)))
    prev = u.keys
    const m = decodeManifest(find(prev, 'mft')[0]!)
    const content = Buffer.from(m.signedObject.eContent).toString('hex')
    t.notOk(seen.has(m.manifestNumber) && seen.get(m.manifestNumber) !== content, `number ${m.manifestNumber} carries one content only`)
    seen.set(m.manifestNumber, content)
    // Nothing due an hour later: the same manifest, number and bytes, is kept (not re-signed under the same number).
    const again = await updateObjects(s, prev, context(at(i + 0.5)))
    t.equal(again.changed, false)
    t.ok(bytesEqual(find(again.keys, 'mft')[0]!, find(prev, 'mft')[0]!), 'kept as it was')
  }
  t.equal(seen.size, plans.length, 'every change took a new number')
})

t.test('RFC 9981 §1, §2: after 2^159-1 nothing more is signed under the key (a key roll starts again at 1)', async (t) => {
  t.equal(nextObjectNumber(undefined), 1n, 'a new key starts at 1')
  t.equal(nextObjectNumber('41'), 42n)
  t.equal(nextObjectNumber((MAX_OBJECT_NUMBER - 1n).toString()), MAX_OBJECT_NUMBER, 'the largest number is used')
  t.equal(nextObjectNumber(MAX_OBJECT_NUMBER.toString()), undefined, 'and is the last one')
  t.equal(MAX_OBJECT_NUMBER.toString(16).length, 40, '20 octets with the sign bit clear')
  const s = state([route('10.0.0.0/24', 65000)])
  const first = await updateObjects(s, [], context(at(0)))
  const last = first.keys.map((k) => ({ ...k, state: { ...k.state, revision: (MAX_OBJECT_NUMBER - 1n).toString() } }))
  const atMax = await updateObjects(s, last, context(at(1), true))
  t.same(atMax.refused, [])
  t.equal(decodeManifest(find(atMax.keys, 'mft')[0]!).manifestNumber, MAX_OBJECT_NUMBER)
  t.equal(decodeCrl(find(atMax.keys, 'crl')[0]!).extensions.crlNumber?.octets, 20)
  const after = await updateObjects(s, atMax.keys, context(at(2), true))
  t.match(after.refused, [/RFC 9981 §1, §7: the manifest number reached 2\^159-1; nothing more is signed under this key until a key roll/])
  t.ok(bytesEqual(find(after.keys, 'mft')[0]!, find(atMax.keys, 'mft')[0]!), 'the last manifest stays; no number is reused')
})

t.test('RFC 9981 §4, RFC 6487 §4.8.8.2: each EE SIA signedObject is the exact URI the object is published at', async (t) => {
  const s = state([route('10.0.0.0/24', 65000), route('2001:db8::/48-56', 65001)])
  const u = await updateObjects(s, [], context(at(0)))
  const files = publishedFiles(s, u.keys)
  t.equal(files.length, 4, 'two ROAs, a manifest and a CRL')
  for (const f of files) {
    if (f.uri.endsWith('.crl')) continue
    const so = f.uri.endsWith('.mft') ? decodeManifest(f.der).signedObject : decodeRoa(f.der).signedObject
    const sia = so.ee.extensions.sia?.filter((a) => a.method === oids.idAdSignedObject).map((a) => a.uri)
    t.same(sia, [f.uri], f.uri)
    t.ok(f.uri.startsWith(DIR), 'in the class directory of the CA certificate SIA')
  }
})

t.test('RFC 9286 §4.2.2: manifest file names, and the manifest lists exactly the other files with their hashes', async (t) => {
  const s = state([route('10.0.0.0/24', 65000), route('2001:db8::/48-56', 65001)])
  const u = await updateObjects(s, [], context(at(0)))
  const files = publishedFiles(s, u.keys)
  const m = decodeManifest(find(u.keys, 'mft')[0]!)
  const listed = new Map(m.files.map((f) => [f.file, f.hash]))
  for (const f of files) {
    const name = f.uri.slice(DIR.length)
    t.match(name, /^[a-zA-Z0-9_-]+\.[a-z]{3}$/, `${name}: 1+ of [a-zA-Z0-9_-], a dot, three lowercase letters`)
    if (name.endsWith('.mft')) t.notOk(listed.has(name), 'the manifest does not list itself')
    else t.ok(bytesEqual(listed.get(name)!, fileHash(f.der)), `${name} listed with its SHA-256`)
  }
  t.equal(m.files.length, files.length - 1)
  t.same(m.files.map((f) => f.file), [...m.files.map((f) => f.file)].sort(), 'in a stable (sorted) order')
})

t.test('RFC 5280 §5.1.2.6, RFC 6487 §5: the revocation date is the time of revocation; no list when nothing is revoked', async (t) => {
  const first = await updateObjects(state([route('10.0.0.0/24', 65000)]), [], context(at(0)))
  const crl0 = decodeCrl(find(first.keys, 'crl')[0]!)
  t.equal(crl0.revokedForm, 'absent', 'a fresh key has nothing revoked: revokedCertificates is left out')
  const removedAt = new Date('2026-03-01T05:17:42Z')
  const second = await updateObjects(state([]), first.keys, context(removedAt))
  const crl = decodeCrl(find(second.keys, 'crl')[0]!)
  const roaSerial = decodeRoa(find(first.keys, 'roa')[0]!).ee.serial
  const mftSerial = decodeManifest(find(first.keys, 'mft')[0]!).ee.serial
  t.same(crl.revoked.map((r) => r.serial).sort(), [roaSerial, mftSerial].sort(), 'the withdrawn ROA and the replaced manifest EE')
  for (const r of crl.revoked) t.equal(r.revocationDate.toISOString(), removedAt.toISOString(), 'revoked when it was withdrawn')
})
