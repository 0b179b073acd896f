/**
 * The relying-party view of one publication point (src/liveness/point-check.ts, issue 26 §1): a real point built by
 * src/objects/ with the fixed test keys (the sample CA of test/helpers/sample-repo.ts), broken one rule at a time,
 * each break with its exact finding (kind and rule); the good point has none. Pinned on Krill's benchmark point too
 * (../shared/fixtures/rrdp/krill-benchmark-2023), read at a time inside its validity.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { explicit, generalizedTime, ia5String, int, bitString, oid, seq, seqOf, x509Time } from '../../../src/asn1/der.js'
import * as oids from '../../../src/asn1/oids.js'
import { sha256Hex } from '../../../src/crypto/digest.js'
import { compareTransports } from '../../../src/liveness/compare.js'
import type { FetchedRepository, Finding } from '../../../src/liveness/model.js'
import { checkPoint, checkPointSteps, type PointToCheck } from '../../../src/liveness/point-check.js'
import {
  RULE_DOT_FILE, RULE_NAME_LENGTH, RULE_NUMBER_DECREASE, RULE_NUMBER_GAP, RULE_NUMBER_REUSED, RULE_ONE_CRL, RULE_SIA_LOCATION, RULE_URI,
  fileNameProblem, rsyncUriProblem,
} from '../../../src/liveness/rpki-client-rules.js'
import { ALG_SHA256_WITH_RSA } from '../../../src/objects/algorithm.js'
import { akiExtension, extension } from '../../../src/objects/cert-extensions.js'
import { buildCert } from '../../../src/objects/cert.js'
import { buildCrl } from '../../../src/objects/crl.js'
import { encodeName } from '../../../src/objects/distinguished-name.js'
import { fileHash } from '../../../src/objects/manifest.js'
import { crlFileName, manifestFileName } from '../../../src/objects/naming.js'
import { buildRoa } from '../../../src/objects/roa.js'
import { encodeSignedData, type ObjectIssuer } from '../../../src/objects/signed-object.js'
import { decodeSnapshot } from '../../../src/protocol/rrdp.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { SAMPLE_ROAS, sampleRepository } from '../../helpers/sample-repo.js'

const BASE = 'rsync://rpki.example.net/rpki/'
const FROM = new Date('2026-01-01T00:00:00Z')
const NEXT = new Date('2026-01-02T00:00:00Z')
const NOW = Date.parse('2026-01-01T12:00:00Z')
const DIR = `${BASE}repo/ca/`
const OPTS = { expiryMarginMs: 4 * 3_600_000 }
const ca = testKey('rpki-ca')
const MFT = DIR + manifestFileName(ca.ski)
const CRL = DIR + crlFileName(ca.ski)
const issuer: ObjectIssuer = { key: ca, name: ca.keyId, crlUri: CRL, certUri: `${BASE}repo/ta/${ca.keyId}.cer` }

/** The sample repository as rsync URI → bytes, and the CA certificate of repo/ca/. */
function sample() {
  const repo = sampleRepository({ rsyncBase: BASE, from: FROM, until: new Date('2036-01-01T00:00:00Z'), nextUpdate: NEXT })
  const files = new Map([...repo.files].map(([p, b]) => [BASE + p, b]))
  return { files, caCert: files.get(`${BASE}repo/ta/${ca.keyId}.cer`)! }
}

/**
 * A manifest over the files in `dir` (or the given entries), with a hand-written eContent so that any name can be
 * listed; the EE is the sample's manifest EE (rpki-ee-5).
 */
function manifest(files: Map<string, Uint8Array>, o: { number?: bigint; entries?: [string, Uint8Array][]; next?: Date } = {}): Uint8Array {
  const entries = o.entries ?? [...files].filter(([u]) => u.startsWith(DIR) && u !== MFT && !u.slice(DIR.length).includes('/')).map(([u, b]) => [u.slice(DIR.length), b] as [string, Uint8Array])
  const next = o.next ?? NEXT
  const content = seq(int(o.number ?? 1n), generalizedTime(FROM), generalizedTime(next), oid(oids.sha256), seqOf(entries.map(([n, b]) => seq(ia5String(n), bitString(fileHash(b))))))
  const ee = testKey('rpki-ee-5')
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: 30n, issuerName: ca.keyId, subjectName: ee.keyId, subjectSpki: ee.spki, notBefore: FROM, notAfter: next,
    crldp: CRL, aia: issuer.certUri, sia: { signedObject: MFT }, resources: { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' },
  }, ca)
  return encodeSignedData(oids.idCtRpkiManifest, content, eeCert, ee, FROM)
}

function fetched(files: Map<string, Uint8Array>, transport: 'rrdp' | 'rsync' = 'rrdp'): FetchedRepository {
  return { transport, source: 'https://rpki.example.net/rrdp/notification.xml', at: NOW, files }
}

function check(files: Map<string, Uint8Array>, p: Partial<PointToCheck> = {}, now = NOW) {
  return checkPoint(fetched(files), { dir: DIR, caCert: sample().caCert, ...p }, now, OPTS)
}

const brief = (fs: Finding[]) => fs.map((f) => `${f.kind} ${f.uri?.slice(DIR.length) ?? '-'} ${f.rule ?? '-'}`)

t.test('the good point: no findings, valid, what was seen', async (t) => {
  const { files } = sample()
  const belief = new Map([...files].filter(([u]) => u.startsWith(DIR)).map(([u, b]) => [u, sha256Hex(b)]))
  const r = check(files, { files: belief, previousManifestNumber: '1', previousManifestHash: sha256Hex(files.get(MFT)!) })
  t.same(brief(r.findings), [], 'no findings')
  t.match(r.seen, { transport: 'rrdp', reachable: true, valid: true, manifestNumber: '1', manifestThisUpdate: FROM.getTime(), manifestNextUpdate: NEXT.getTime(), crlNextUpdate: NEXT.getTime(), manifestHash: sha256Hex(files.get(MFT)!) })
  t.same(brief(checkPoint(fetched(files), { dir: DIR }, NOW, OPTS).findings), [], 'without the CA certificate: the manifest is found in the directory')
  t.same(brief(check(files, { previousManifestNumber: '0' }).findings), [], 'a manifest number one higher than before')
})

t.test('a fetch that failed: unreachable, nothing else', async (t) => {
  const r = checkPoint({ transport: 'rsync', source: 'rsync://x/repo/', at: NOW, error: 'rsync exit 10: connection refused', files: new Map() }, { dir: DIR }, NOW, OPTS)
  t.same(r.findings, [{ kind: 'unreachable', transport: 'rsync', detail: 'rsync exit 10: connection refused' }])
  t.match(r.seen, { reachable: false, valid: false })
})

t.test('each broken rule, one at a time, with its finding', async (t) => {
  const has = (fs: Finding[], kind: string, uri: string | undefined, rule?: string) => fs.some((f) => f.kind === kind && f.uri === uri && (rule === undefined || f.rule === rule))
  const expect = (what: string, fs: Finding[], kind: string, uri: string | undefined, rule?: string) => t.ok(has(fs, kind, uri, rule), `${what}: ${kind} ${rule ?? ''}\n${brief(fs).join('\n')}`)

  // A second CRL on the manifest.
  let { files } = sample()
  files.set(`${DIR}second.crl`, buildCrl({ issuerName: ca.keyId, thisUpdate: FROM, nextUpdate: NEXT, crlNumber: 2n, revoked: [] }, ca))
  files.set(MFT, manifest(files))
  let r = check(files)
  expect('two CRLs', r.findings, 'invalid', MFT, RULE_ONE_CRL)
  t.notOk(r.seen.valid, 'two CRLs: not valid')

  // Manifest number: a gap, a decrease, the same number with other bytes.
  ;({ files } = sample())
  files.set(MFT, manifest(files, { number: 7n }))
  expect('a gap', check(files, { previousManifestNumber: '5' }).findings, 'invalid', MFT, RULE_NUMBER_GAP)
  expect('a decrease', check(files, { previousManifestNumber: '8' }).findings, 'invalid', MFT, RULE_NUMBER_DECREASE)
  expect('a reuse', check(files, { previousManifestNumber: '7', previousManifestHash: '00'.repeat(32) }).findings, 'invalid', MFT, RULE_NUMBER_REUSED)

  // An EE certificate whose SIA names another place.
  ;({ files } = sample())
  const roaUri = `${DIR}AS65001.roa`
  files.set(roaUri, buildRoa(SAMPLE_ROAS[0], testKey('rpki-ee-1'), issuer, { serial: 10n, uri: `${DIR}elsewhere.roa`, notBefore: FROM, notAfter: new Date('2036-01-01T00:00:00Z'), signingTime: FROM }))
  files.set(MFT, manifest(files))
  expect('an EE SIA elsewhere', check(files).findings, 'invalid', roaUri, RULE_SIA_LOCATION)

  // A duplicated extension (a CRL with its CRL number twice).
  ;({ files } = sample())
  const tbs = seqOf([int(1), ALG_SHA256_WITH_RSA, encodeName(ca.keyId), x509Time(FROM), x509Time(NEXT), explicit(0, seq(akiExtension(ca.ski), extension(oids.cRLNumber, false, int(2n)), extension(oids.cRLNumber, false, int(2n))))])
  files.set(CRL, seq(tbs, ALG_SHA256_WITH_RSA, bitString(ca.sign(tbs))))
  files.set(MFT, manifest(files))
  r = check(files)
  expect('a duplicated extension', r.findings, 'invalid', CRL, 'RFC 5280 §5.2')
  t.notOk(r.seen.valid, 'a bad CRL: not valid')

  // A 256-character name and a dot-file, both on the manifest and published.
  for (const [name, rule] of [[`${'a'.repeat(252)}.roa`, RULE_NAME_LENGTH], ['.hidden.roa', RULE_DOT_FILE]] as const) {
    ;({ files } = sample())
    files.set(DIR + name, files.get(roaUri)!)
    files.set(MFT, manifest(files))
    r = check(files)
    expect(`${name.slice(0, 12)}: on the manifest`, r.findings, 'invalid', MFT, rule)
    expect(`${name.slice(0, 12)}: the file`, r.findings, 'invalid', DIR + name, rule)
  }

  // A listed file missing; a changed byte; an extra file.
  ;({ files } = sample())
  files.delete(`${DIR}AS65002.roa`)
  r = check(files)
  expect('a missing file', r.findings, 'missing', `${DIR}AS65002.roa`, 'RFC 9286 §6.4')
  expect('a missing file fails the manifest', r.findings, 'invalid', MFT, 'RFC 9286 §6.6')
  t.notOk(r.seen.valid, 'a missing file: not valid')
  ;({ files } = sample())
  const belief = new Map([...files].filter(([u]) => u.startsWith(DIR)).map(([u, b]) => [u, sha256Hex(b)]))
  const changed = new Uint8Array(files.get(`${DIR}AS65003.roa`)!)
  changed[changed.length - 1] ^= 1
  files.set(`${DIR}AS65003.roa`, changed)
  r = check(files, { files: belief })
  expect('a changed byte', r.findings, 'invalid', `${DIR}AS65003.roa`, 'RFC 9286 §6.5')
  expect('a changed byte, against the belief', r.findings, 'changed', `${DIR}AS65003.roa`)
  ;({ files } = sample())
  files.set(`${DIR}extra.roa`, files.get(roaUri)!)
  r = check(files, { files: belief })
  expect('an extra file', r.findings, 'extra', `${DIR}extra.roa`)
  t.equal(r.findings.filter((f) => f.kind === 'extra').length, 1, 'reported once (not on the manifest, and not believed)')
  ;({ files } = sample())
  files.delete(`${DIR}AS65001.roa`)
  expect('a believed file not served', check(files, { files: belief }).findings, 'missing', `${DIR}AS65001.roa`)

  // An expired manifest; one within the margin.
  ;({ files } = sample())
  r = check(files, {}, NEXT.getTime() + 1000)
  expect('an expired manifest', r.findings, 'stale', MFT, 'RFC 9286 §6.3')
  expect('an expired CRL', r.findings, 'stale', CRL, 'RFC 6487 §5')
  t.notOk(r.seen.valid, 'expired: not valid')
  r = check(files, {}, NEXT.getTime() - 3_600_000)
  expect('a manifest within the margin', r.findings, 'expiring', MFT)
  t.ok(r.seen.valid, 'expiring, but still valid')

  // No manifest at all.
  ;({ files } = sample())
  files.delete(MFT)
  expect('no manifest', check(files).findings, 'missing', MFT, 'RFC 9286 §6.2')
})

t.test("rpki-client's name and URI rules", async (t) => {
  t.equal(fileNameProblem('AS65001.roa'), undefined)
  t.equal(fileNameProblem('1EB86521C59E475B6E9E5E9239C3670FC8FED843.mft'), undefined)
  t.equal(fileNameProblem('a-b_c.roa'), undefined)
  t.match(fileNameProblem('a.b.roa'), { rule: /one dot/ })
  t.match(fileNameProblem('a~b.roa'), { rule: /\[A-Za-z0-9\._-\]/ })
  t.match(fileNameProblem('noext'), { rule: /one dot/ })
  t.match(fileNameProblem(`${'x'.repeat(252)}.cer`), { rule: RULE_NAME_LENGTH })
  t.equal(fileNameProblem(`${'x'.repeat(251)}.cer`), undefined, '255 characters are fine')
  t.equal(rsyncUriProblem('rsync://host:873/repo/ca/0/x.roa'), undefined)
  t.match(rsyncUriProblem('rsync://host//ca/x.roa'), { rule: RULE_URI, detail: /empty module/ })
  t.match(rsyncUriProblem('rsync://host/repo/../x.roa'), { rule: RULE_URI })
  t.match(rsyncUriProblem('rsync://host/repo//x.roa'), { rule: RULE_URI, detail: /empty segment/ })
  t.match(rsyncUriProblem('https://host/repo/x.roa'), { rule: RULE_URI })
})

t.test('RRDP against rsync: bytes that differ, files on one side only', async (t) => {
  const { files } = sample()
  const other = new Map(files)
  other.set(`${DIR}AS65001.roa`, new Uint8Array([1, 2, 3]))
  other.delete(`${DIR}AS65002.roa`)
  other.set(`${DIR}only-rsync.roa`, new Uint8Array([4]))
  other.set(`${BASE}repo/ta/elsewhere.roa`, new Uint8Array([4]))
  const d = compareTransports(fetched(files), fetched(other, 'rsync'), DIR, 130_000)
  t.same(d.map((f) => `${f.kind} ${f.uri!.slice(DIR.length)}`), ['transport-disagreement AS65001.roa', 'transport-disagreement AS65002.roa', 'transport-disagreement only-rsync.roa'])
  t.match(d[0].detail, /130 s/)
  t.same(compareTransports(fetched(files), fetched(new Map(files), 'rsync'), DIR, 0), [], 'the same bytes: no findings')
  t.same(compareTransports(fetched(files), { ...fetched(new Map(), 'rsync'), error: 'down' }, DIR, 0), [], 'a failed fetch is not a disagreement')
})

t.test("Krill's benchmark publication point (a Krill RRDP snapshot), at a time inside its validity", { skip: NO_SHARED }, async (t) => {
  const path = sharedFixture('rrdp', 'krill-benchmark-2023', 'snapshot.xml')!
  const snap = decodeSnapshot(readFileSync(path))
  const files = new Map(snap.publishes.map((p) => [p.uri, p.content]))
  const dir = 'rsync://localhost/repo/benchmark-0/0/'
  const caCert = files.get('rsync://localhost/repo/testbed/0/9E865AA31D1619E1829B65D298EEB194E041CDA3.cer')!
  const probe = checkPoint({ transport: 'rrdp', source: 'krill', at: 0, files }, { dir, caCert }, 0, OPTS)
  const now = probe.seen.manifestThisUpdate! + 60_000
  const r = checkPoint({ transport: 'rrdp', source: 'krill', at: now, files }, { dir, caCert, files: new Map([...files].filter(([u]) => u.startsWith(dir)).map(([u, b]) => [u, sha256Hex(b)])) }, now, { expiryMarginMs: 0 })
  t.same(r.findings.map((f) => `${f.kind} ${f.uri} ${f.rule}: ${f.detail}`), [], "Krill's point: no findings")
  t.match(r.seen, { reachable: true, valid: true, manifestNumber: /^\d+$/ })
  const later = checkPoint({ transport: 'rrdp', source: 'krill', at: 0, files }, { dir, caCert }, r.seen.manifestNextUpdate! + 1, OPTS)
  t.ok(later.findings.some((f) => f.kind === 'stale' && f.uri === `${dir}9E865AA31D1619E1829B65D298EEB194E041CDA3.mft`), 'and stale after its nextUpdate')
})

t.test('objects checked before: the same bytes under the same CA take the kept findings; other bytes are checked', async (t) => {
  const { files, caCert } = sample()
  const kept = new Map<string, Finding[]>()
  let hits = 0
  const objects = { get: (k: string) => (kept.has(k) ? (hits++, kept.get(k)) : undefined), set: (k: string, f: Finding[]) => void kept.set(k, f) }
  const first = checkPoint(fetched(files), { dir: DIR, caCert }, NOW, { ...OPTS, objects })
  const objectsInDir = [...files.keys()].filter((u) => u.startsWith(DIR) && !u.slice(DIR.length).includes('/') && u !== MFT && !u.endsWith('.crl')).length
  t.ok(objectsInDir > 0)
  const checked = objectsInDir + 2 // the manifest's and the CRL's signatures and profiles too (issue 28)
  t.same([kept.size, hits], [checked, 0], 'each object checked once and kept')
  const again = checkPoint(fetched(files), { dir: DIR, caCert }, NOW, { ...OPTS, objects })
  t.same([hits, again.findings], [checked, first.findings], 'the second check verifies nothing again, and finds the same')
  const stale = checkPoint(fetched(files), { dir: DIR, caCert }, first.seen.manifestNextUpdate! + 1, { ...OPTS, objects })
  t.ok(stale.findings.some((f) => f.kind === 'stale' && f.uri === MFT), 'the time rules still apply to a kept manifest')
  // One object's bytes changed (a byte of its signature): checked anew, and its finding is there.
  const roa = [...files.keys()].find((u) => u.startsWith(DIR) && u.endsWith('.roa'))!
  const bad = new Uint8Array(files.get(roa)!)
  bad[bad.length - 1] ^= 1
  const changed = new Map(files).set(roa, bad)
  const third = checkPoint(fetched(changed), { dir: DIR, caCert }, NOW, { ...OPTS, objects })
  t.equal(hits, 3 * checked - 1, 'every other object from what was kept')
  t.ok(third.findings.some((f) => f.uri === roa && f.kind === 'invalid'), 'the changed object is checked again and flagged')
  t.same(brief(checkPoint(fetched(changed), { dir: DIR, caCert }, NOW, OPTS).findings), brief(third.findings), 'the same findings as without the memo')
})

t.test('checkPointSteps: one step per object, then the same result as checkPoint', async (t) => {
  const { files, caCert } = sample()
  const steps = checkPointSteps(fetched(files), { dir: DIR, caCert }, NOW, OPTS)
  let n = 0
  let r = steps.next()
  for (; !r.done; r = steps.next()) n++
  const objectsInDir = [...files.keys()].filter((u) => u.startsWith(DIR) && !u.slice(DIR.length).includes('/') && u !== MFT && !u.endsWith('.crl')).length
  t.equal(n, objectsInDir, 'a step after each object: a caller can let other work run between them')
  t.same(r.value, checkPoint(fetched(files), { dir: DIR, caCert }, NOW, OPTS))
})
