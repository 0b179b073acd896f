/** Round trips of every type: decode our golden object, build it again from the decoded values, get the same bytes. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { decodeAspa, buildAspa } from '../../../src/objects/aspa.js'
import { decodeCert, trustedCert } from '../../../src/objects/cert.js'
import { buildManifest, decodeManifest } from '../../../src/objects/manifest.js'
import { buildRoa, decodeRoa, verifyRoa } from '../../../src/objects/roa.js'
import type { ObjectIssuer, SignedObject } from '../../../src/objects/signed-object.js'
import { decodeTal, encodeTal } from '../../../src/objects/tal.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_NOW } from '../../helpers/golden-objects.js'
import { openssl } from '../../helpers/openssl-cli.js'
import { fixture } from '../../helpers/paths.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ca = testKey('rpki-ca')
const issuer: ObjectIssuer = { key: ca, name: ca.keyId, crlUri: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, certUri: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer` }

/** The EE values of a decoded signed object, as a builder takes them. */
function eeOf(so: SignedObject): { serial: bigint; uri: string; notBefore: Date; notAfter: Date; signingTime: Date } {
  return { serial: so.ee.serial, uri: so.ee.extensions.sia![0].uri!, notBefore: so.ee.notBefore, notAfter: so.ee.notAfter, signingTime: so.attributes.signingTime! }
}

t.test('ROAs', async (t) => {
  for (const [file, key] of [['AS65001.roa', 'rpki-ee-1'], ['AS65002.roa', 'rpki-ee-2'], ['AS65003.roa', 'rpki-ee-3']]) {
    const bytes = golden(`sample/repo/ca/${file}`)
    const roa = decodeRoa(bytes)
    const spec = { asn: roa.asn, prefixes: roa.payloads.map((p) => ({ prefix: p.prefix, maxLength: p.maxLength })) }
    t.same(buildRoa(spec, testKey(key), issuer, eeOf(roa.signedObject)), bytes, file)
  }
})

t.test('manifest, ASPA, TAL', async (t) => {
  const mftBytes = golden(`sample/repo/ca/${ca.keyId}.mft`)
  const m = decodeManifest(mftBytes)
  const spec = { manifestNumber: m.manifestNumber, thisUpdate: m.thisUpdate, nextUpdate: m.nextUpdate, files: m.files }
  const { serial, uri, signingTime } = eeOf(m.signedObject)
  t.same(buildManifest(spec, testKey('rpki-ee-5'), issuer, { serial, uri, signingTime }), mftBytes, 'manifest')
  const aspaBytes = golden('sample/repo/ca/AS65001.asa')
  const a = decodeAspa(aspaBytes)
  t.same(buildAspa({ customer: a.customer, providers: a.providers }, testKey('rpki-ee-4'), issuer, eeOf(a.signedObject)), aspaBytes, 'ASPA')
  const tal = readFileSync(fixture('objects/sample/ta.tal'), 'utf8')
  const decoded = decodeTal(tal)
  t.equal(encodeTal({ uris: decoded.uris, spki: decoded.spki }), tal, 'TAL')
})

t.test('trustedCert: our own CA certificate as an issuer, with the resources the parent reported', async (t) => {
  const own = trustedCert(decodeCert(golden(`sample/repo/ta/${ca.keyId}.cer`)), ResourceSet.parse({ asn: 'AS65001-65010', ipv4: '10.1.0.0/16, 10.2.0.0/22', ipv6: '2001:db8::/32' }))
  t.equal(verifyRoa(decodeRoa(golden('sample/repo/ca/AS65001.roa')), own, GOLDEN_NOW).resources.ipv4.toString(), '10.1.0.0/23')
})

t.test('openssl asn1parse reads every golden object; manifest times are GeneralizedTime', async (t) => {
  for (const p of ['sample/ta/ta.cer', `sample/repo/ca/${ca.keyId}.crl`, `sample/repo/ca/${ca.keyId}.mft`, 'sample/repo/ca/AS65001.roa', 'sample/repo/ca/AS65001.asa', 'bpki/id-ta.cer']) {
    const r = await openssl(['asn1parse', '-inform', 'DER', '-in', '{dir}/x'], { x: golden(p) })
    t.equal(r.code, 0, `${p}: ${r.stderr}`)
  }
  for (const p of [`sample/repo/ca/${ca.keyId}.mft`, 'sample/repo/ca/AS65001.asa', 'sample/repo/ca/AS65003.roa']) {
    const r = await openssl(['cms', '-verify', '-inform', 'DER', '-in', '{dir}/x', '-noverify', '-out', '{dir}/content'], { x: golden(p) })
    t.equal(r.code, 0, `openssl cms -verify ${p}: ${r.stderr}`)
  }
  const content = decodeManifest(golden(`sample/repo/ca/${ca.keyId}.mft`)).signedObject.eContent
  const r = await openssl(['asn1parse', '-inform', 'DER', '-in', '{dir}/x'], { x: content })
  t.match(r.stdout, /GENERALIZEDTIME\s+:20260101000000Z[\s\S]*GENERALIZEDTIME\s+:20260102000000Z[\s\S]*OBJECT\s+:sha256/)
  t.notMatch(r.stdout, /UTCTIME/)
})
