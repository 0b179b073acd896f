/**
 * A small repository built entirely by src/objects/ with the fixed test keys, for unit tests (golden DER under
 * fixtures/objects/), the svcc inspect tests and the relying-party scenario test:
 *
 *   TA (10.0.0.0/8, 2001:db8::/32, AS65000-65535)
 *    ├── TA CRL (empty), TA manifest (lists the CA certificate and the TA CRL)
 *    └── CA (10.1.0.0/16 + 10.2.0.0-10.2.3.255, 2001:db8::/32, AS65001-65010)
 *         ├── ROA AS65001: 10.1.0.0/24, 10.1.1.0/24-26            (IPv4, with and without max length)
 *         ├── ROA AS65002: 10.2.0.0/22, 2001:db8:1::/48-56         (IPv4 and IPv6)
 *         ├── ROA AS65003: 2001:db8:2::/48                         (IPv6 only)
 *         ├── ASPA AS65001 → AS65002, AS65003                      (optional: rpki-client 8.2 cannot parse it)
 *         ├── CA CRL (revokes serial 99)
 *         └── CA manifest (lists the ROAs, the ASPA and the CRL)
 */
import type { OneOffKey } from '../../src/crypto/signer.js'
import { AsBlocks } from '../../src/resources/asn.js'
import { formatPrefix, IpBlocks, parsePrefix } from '../../src/resources/ip.js'
import { buildAspa } from '../../src/objects/aspa.js'
import { buildCert } from '../../src/objects/cert.js'
import { buildCrl } from '../../src/objects/crl.js'
import { buildManifest, fileHash } from '../../src/objects/manifest.js'
import { certFileName, crlFileName, manifestFileName, aggregateRoaFileName, aspaFileName } from '../../src/objects/naming.js'
import { buildRoa, type RoaSpec } from '../../src/objects/roa.js'
import type { ObjectIssuer } from '../../src/objects/signed-object.js'
import { encodeTal } from '../../src/objects/tal.js'
import { testKey } from './fixed-keys.js'

export interface RepoOptions {
  /** rsync URI of the module directory that holds ta/ and repo/, ending in '/'. */
  rsyncBase: string
  /** https URI of the RRDP notification (rpkiNotify of both CA certificates); none when undefined. */
  notifyUri?: string
  /** https URI of the TA certificate for the TAL (the rsync one is always there). */
  taHttpsUri?: string
  /** Start of every validity period (thisUpdate, notBefore, signing-time). */
  from: Date
  /** End of the CA certificates' validity. */
  until: Date
  /** nextUpdate of manifests and CRLs (and the end of the manifests' EE validity). */
  nextUpdate: Date
  withAspa?: boolean
}

export interface SampleRepo {
  /** Published files by path relative to rsyncBase (e.g. 'ta/ta.cer', 'repo/ca/AS65001.roa'). */
  files: Map<string, Uint8Array>
  tal: string
  /** Expected VRPs in rp-validate --expect form ('AS65001,10.1.0.0/24,24'). */
  vrps: string[]
  taKey: OneOffKey
  caKey: OneOffKey
}

/** The ROAs of the sample CA. */
export const SAMPLE_ROAS: RoaSpec[] = [
  { asn: 65001, prefixes: [{ prefix: parsePrefix('10.1.1.0/24'), maxLength: 26 }, { prefix: parsePrefix('10.1.0.0/24') }] },
  { asn: 65002, prefixes: [{ prefix: parsePrefix('2001:db8:1::/48'), maxLength: 56 }, { prefix: parsePrefix('10.2.0.0/22') }] },
  { asn: 65003, prefixes: [{ prefix: parsePrefix('2001:db8:2::/48') }] },
]

/** Build the sample repository (deterministic for fixed options: fixed keys, serials and times). */
export function sampleRepository(o: RepoOptions): SampleRepo {
  const ta = testKey('rpki-ta'), ca = testKey('rpki-ca')
  const files = new Map<string, Uint8Array>()
  const taDir = `${o.rsyncBase}repo/ta/`, caDir = `${o.rsyncBase}repo/ca/`
  const taCertUri = `${o.rsyncBase}ta/ta.cer`
  const caCertName = certFileName(ca.ski)
  files.set('ta/ta.cer', buildCert({
    profile: 'rpki', kind: 'ca', serial: 1n, issuerName: ta.keyId, subjectName: ta.keyId, subjectSpki: ta.spki,
    notBefore: o.from, notAfter: o.until,
    sia: { caRepository: taDir, rpkiManifest: taDir + manifestFileName(ta.ski), rpkiNotify: o.notifyUri },
    resources: { ipv4: IpBlocks.parse('10.0.0.0/8', 4), ipv6: IpBlocks.parse('2001:db8::/32', 6), asn: AsBlocks.parse('AS65000-65535') },
  }, ta))
  files.set(`repo/ta/${caCertName}`, buildCert({
    profile: 'rpki', kind: 'ca', serial: 2n, issuerName: ta.keyId, subjectName: ca.keyId, subjectSpki: ca.spki,
    notBefore: o.from, notAfter: o.until, crldp: taDir + crlFileName(ta.ski), aia: taCertUri,
    sia: { caRepository: caDir, rpkiManifest: caDir + manifestFileName(ca.ski), rpkiNotify: o.notifyUri },
    // Explicit IPv6, not inherit: rpki-client 8.2 reports a CA certificate mixing explicit IPv4 with inherited IPv6
    // as 'RFC 6487: uncovered IP: (inherit)' and rejects it (newer versions accept it; so does OpenSSL).
    resources: { ipv4: IpBlocks.parse('10.1.0.0/16, 10.2.0.0-10.2.3.255', 4), ipv6: IpBlocks.parse('2001:db8::/32', 6), asn: AsBlocks.parse('AS65001-65010') },
  }, ta))
  const caIssuer: ObjectIssuer = { key: ca, name: ca.keyId, crlUri: caDir + crlFileName(ca.ski), certUri: taDir + caCertName }
  publishCaObjects(o, files, caIssuer)
  const taIssuer: ObjectIssuer = { key: ta, name: ta.keyId, crlUri: taDir + crlFileName(ta.ski), certUri: taCertUri }
  publishPoint(o, files, 'repo/ta/', taIssuer, 101n, 'rpki-ee-6')
  const uris = [...(o.taHttpsUri ? [o.taHttpsUri] : []), taCertUri]
  const vrps = SAMPLE_ROAS.flatMap((r) => r.prefixes.map((p) => `AS${r.asn},${formatPrefix(p.prefix)},${p.maxLength ?? p.prefix.len}`))
  return { files, tal: encodeTal({ uris, spki: ta.spki }), vrps: vrps.sort(), taKey: ta, caKey: ca }
}

function ee(o: RepoOptions, serial: bigint, uri: string, notAfter = o.until): { serial: bigint; uri: string; notBefore: Date; notAfter: Date; signingTime: Date } {
  return { serial, uri, notBefore: o.from, notAfter, signingTime: o.from }
}

/** The CA's ROAs (aggregated names, AS<asn>.roa) and ASPA, then its CRL and manifest. */
function publishCaObjects(o: RepoOptions, files: Map<string, Uint8Array>, issuer: ObjectIssuer): void {
  const dir = 'repo/ca/'
  SAMPLE_ROAS.forEach((spec, i) => {
    const name = aggregateRoaFileName(spec.asn)
    files.set(dir + name, buildRoa(spec, testKey(`rpki-ee-${i + 1}`), issuer, ee(o, BigInt(10 + i), `${o.rsyncBase}${dir}${name}`)))
  })
  if (o.withAspa) {
    const name = aspaFileName(65001)
    files.set(dir + name, buildAspa({ customer: 65001, providers: [65003, 65002] }, testKey('rpki-ee-4'), issuer, ee(o, 20n, `${o.rsyncBase}${dir}${name}`)))
  }
  publishPoint(o, files, dir, issuer, 30n, 'rpki-ee-5', [{ serial: 99n, revocationDate: o.from }])
}

/** The CRL and the manifest (listing everything published under `dir`) of one publication point. */
function publishPoint(o: RepoOptions, files: Map<string, Uint8Array>, dir: string, issuer: ObjectIssuer, serial: bigint, eeKey: string,
  revoked: { serial: bigint; revocationDate: Date }[] = []): void {
  const key = issuer.key
  files.set(dir + crlFileName(key.ski), buildCrl({ issuerName: issuer.name, thisUpdate: o.from, nextUpdate: o.nextUpdate, crlNumber: 1n, revoked }, key))
  const listed = [...files.keys()].filter((p) => p.startsWith(dir) && !p.slice(dir.length).includes('/')).sort()
  const mftName = manifestFileName(key.ski)
  const spec = { manifestNumber: 1n, thisUpdate: o.from, nextUpdate: o.nextUpdate, files: listed.map((p) => ({ file: p.slice(dir.length), hash: fileHash(files.get(p)!) })) }
  files.set(dir + mftName, buildManifest(spec, testKey(eeKey), issuer, { serial, uri: `${o.rsyncBase}${dir}${mftName}`, signingTime: o.from }))
}
