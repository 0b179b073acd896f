/**
 * The golden objects under fixtures/objects/ (style.md §8): the sample repository of sample-repo.ts at fixed times,
 * BPKI identity certificates, and our own bad cases. Run this file to rewrite them on purpose:
 *   node --loader @isaacs/ts-node-temp-fork-for-pr-2009/esm test/helpers/golden-objects.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { int, octetString, seq, seqOf } from '../../src/asn1/der.js'
import { idCtRouteOriginAuthz } from '../../src/asn1/oids.js'
import { IpBlocks } from '../../src/resources/ip.js'
import { buildCert } from '../../src/objects/cert.js'
import { buildCrl } from '../../src/objects/crl.js'
import { encodeSignedData } from '../../src/objects/signed-object.js'
import { testKey } from './fixed-keys.js'
import { fixture } from './paths.js'
import { sampleRepository } from './sample-repo.js'

export const GOLDEN_BASE = 'rsync://rpki.example.net/rpki/'
export const GOLDEN_FROM = new Date('2026-01-01T00:00:00Z')
export const GOLDEN_UNTIL = new Date('2036-01-01T00:00:00Z')
export const GOLDEN_NEXT = new Date('2026-01-02T00:00:00Z')
/** A time at which every golden object is valid. */
export const GOLDEN_NOW = new Date('2026-01-01T12:00:00Z')

/** Every golden file, by path under fixtures/objects/. */
export function goldenObjects(): Map<string, Uint8Array> {
  const repo = sampleRepository({
    rsyncBase: GOLDEN_BASE, notifyUri: 'https://rpki.example.net/rrdp/notification.xml', taHttpsUri: 'https://rpki.example.net/ta/ta.cer',
    from: GOLDEN_FROM, until: GOLDEN_UNTIL, nextUpdate: GOLDEN_NEXT, withAspa: true,
  })
  const out = new Map<string, Uint8Array>()
  for (const [p, bytes] of repo.files) out.set(`sample/${p}`, bytes)
  out.set('sample/ta.tal', new TextEncoder().encode(repo.tal))
  for (const [p, bytes] of bpkiObjects()) out.set(p, bytes)
  out.set('bad/maxlen-overflow.roa', maxLengthOverflowRoa())
  return out
}

/** An RFC 8183 identity certificate, a BPKI EE certificate it issued (as for RFC 6492/8181 CMS) and its CRL. */
function bpkiObjects(): Map<string, Uint8Array> {
  const ta = testKey('objects-bpki-ta'), ee = testKey('objects-bpki-ee')
  const base = { profile: 'bpki' as const, issuerName: ta.keyId, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL }
  return new Map([
    ['bpki/id-ta.cer', buildCert({ ...base, kind: 'ca', serial: 1n, subjectName: ta.keyId, subjectSpki: ta.spki }, ta)],
    ['bpki/id-ee.cer', buildCert({ ...base, kind: 'ee', serial: 2n, subjectName: ee.keyId, subjectSpki: ee.spki }, ta)],
    ['bpki/id-ta.crl', buildCrl({ issuerName: ta.keyId, thisUpdate: GOLDEN_FROM, nextUpdate: GOLDEN_NEXT, crlNumber: 1n, revoked: [] }, ta)],
  ])
}

/** A ROA whose IPv4 maxLength is 33 (RFC 9582 §4.3.2.2): the builder refuses it, so the eContent is written by hand. */
function maxLengthOverflowRoa(): Uint8Array {
  const ca = testKey('rpki-ca'), ee = testKey('rpki-ee-1')
  const content = seq(int(65001), seqOf([seq(octetString(Uint8Array.of(0, 1)), seqOf([seq(Uint8Array.of(0x03, 0x04, 0x00, 10, 1, 0), int(33))]))]))
  const uri = `${GOLDEN_BASE}repo/ca/bad.roa`
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 77n, issuerName: ca.keyId, subjectName: ee.keyId, subjectSpki: ee.spki,
    notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, crldp: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, aia: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer`,
    sia: { signedObject: uri }, resources: { ipv4: IpBlocks.parse('10.1.0.0/24', 4) },
  }, ca)
  return encodeSignedData(idCtRouteOriginAuthz, content, eeCert, ee, GOLDEN_FROM)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fixture('objects')
  for (const [p, bytes] of goldenObjects()) {
    mkdirSync(dirname(join(root, p)), { recursive: true })
    writeFileSync(join(root, p), bytes)
  }
  process.stdout.write(`wrote ${goldenObjects().size} golden objects to ${root}\n`)
}
