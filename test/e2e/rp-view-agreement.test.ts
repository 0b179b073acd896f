/**
 * rpki-client's view and svcd's agree (issue 26, acceptance 2): delegated child CAs of testbed, each a TestChild
 * (RFC 6492) that publishes in svcd's repository as a TestPublisher (RFC 8181), publish one object rpki-client refuses
 * each; rpki-client 9.7 at -vv validates the repository over RRDP, and checkPoint judges what the RrdpFetcher fetched.
 * Every object rpki-client flags, the view flags too (same URI); the good CAs have no findings in either.
 *
 *   ta ── testbed ─┬─ good     a ROA, the CRL, manifest #1
 *                  ├─ crl2     a second CRL on the manifest
 *                  ├─ sia      a ROA whose EE certificate's SIA names another place
 *                  ├─ dots     a ROA named a.b.roa (two dots)
 *                  ├─ names    a manifest listing a 256-character name and a dot-file (svcd refuses to publish either)
 *                  └─ gap      manifest #1, then #3 (rpki-client keeps its cache between the two runs)
 */
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bitString, generalizedTime, ia5String, int, oid, seq, seqOf } from '../../src/asn1/der.js'
import * as oids from '../../src/asn1/oids.js'
import { RrdpFetcher } from '../../src/app/liveness/rrdp-fetcher.js'
import { systemClock } from '../../src/clock.js'
import { sha256Hex } from '../../src/crypto/digest.js'
import type { SigningKey } from '../../src/crypto/signer.js'
import type { FetchedRepository, Finding } from '../../src/liveness/model.js'
import { checkPoint } from '../../src/liveness/point-check.js'
import { buildCert, type Cert, decodeCert } from '../../src/objects/cert.js'
import { buildCrl } from '../../src/objects/crl.js'
import { buildCsr } from '../../src/objects/csr.js'
import { fileHash } from '../../src/objects/manifest.js'
import { buildRoa } from '../../src/objects/roa.js'
import { encodeSignedData, type ObjectIssuer } from '../../src/objects/signed-object.js'
import { parsePrefix } from '../../src/resources/ip.js'
import { toBase64 } from '../../src/util/base64.js'
import { repoDaemon, waitFor, type RepoDaemon } from '../helpers/cas.js'
import { TestChild } from '../helpers/child.js'
import { httpsRequest } from '../helpers/daemon.js'
import { testKey } from '../helpers/keys.js'
import { TestPublisher } from '../helpers/publisher.js'
import { waitRrdp } from '../helpers/repo.js'
import { rpMissing, validate } from '../helpers/rp.js'

const DAY = 86_400_000

interface Kid {
  handle: string
  pub: TestPublisher
  key: SigningKey
  cert: Uint8Array
  decoded: Cert
  dir: string
  issuer: ObjectIssuer
  asn: number
  prefix: string
  /** What the kid published last: uri → bytes. */
  files: Map<string, Uint8Array>
}

/** A child of testbed with its own key, certified over RFC 6492, publishing in svcd's repository under its jail. */
async function makeKid(d: RepoDaemon, handle: string, n: number): Promise<Kid> {
  const child = new TestChild(handle)
  const prefix = `10.${n}.0.0/16`
  await api(d, 'POST', 'api/v1/cas/testbed/children', JSON.stringify({ handle, resources: { asn: `AS${65100 + n}`, ipv4: prefix }, id_cert: toBase64(child.idCert) }), 'application/json')
  child.useResponse(await api(d, 'GET', `api/v1/cas/testbed/children/${handle}/parent_response.xml`))
  const pub = new TestPublisher(handle)
  await api(d, 'POST', 'api/v1/pubd/publishers', pub.requestXml(), 'application/xml')
  pub.useResponse(await api(d, 'GET', `api/v1/pubd/publishers/${handle}/response.xml`))
  const dir = pub.response!.siaBase
  const list = await child.send({ type: 'list' })
  if (list.type !== 'list_response') throw new Error(`${handle}: list answered ${list.type}`)
  const key = testKey()
  const csr = buildCsr(key, { caRepository: dir, rpkiManifest: `${dir}${key.keyId}.mft`, rpkiNotify: `${d.url}rrdp/notification.xml` })
  const issued = await child.send({ type: 'issue', className: list.classes[0]!.className, csr })
  if (issued.type !== 'issue_response') throw new Error(`${handle}: issue answered ${issued.type}`)
  const cert = issued.cls.certificates[0]!.cert
  const decoded = decodeCert(cert)
  const issuer: ObjectIssuer = { key, name: decoded.subject.der, crlUri: `${dir}${key.keyId}.crl`, certUri: issued.cls.certificates[0]!.certUrl }
  return { handle, pub, key, cert, decoded, dir, issuer, asn: 65100 + n, prefix, files: new Map() }
}

/** One call of svcd's API with the operator's token (svcc would start a process per call); the body of a 200. */
async function api(d: RepoDaemon, method: string, path: string, body?: string, type?: string): Promise<string> {
  const r = await httpsRequest(d.url + path, { method, headers: { Authorization: `Bearer ${d.token}`, ...(type ? { 'Content-Type': type } : {}) }, ...(body !== undefined ? { body } : {}) })
  if (r.status !== 200) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.body.slice(0, 300)}`)
  return r.body
}

/** A ROA of the kid's prefix, published at `name`, its EE naming `siaName`. */
function roa(k: Kid, name: string, siaName = name): [string, Uint8Array] {
  const now = Date.now()
  const ee = { serial: BigInt(now % 1_000_000_000) + 7n, uri: k.dir + siaName, notBefore: new Date(now - 60_000), notAfter: new Date(now + 30 * DAY), signingTime: new Date(now - 1000) }
  return [k.dir + name, buildRoa({ asn: k.asn, prefixes: [{ prefix: parsePrefix(k.prefix) }] }, testKey(), k.issuer, ee)]
}

function crl(k: Kid, name = `${k.key.keyId}.crl`, number = 1n): [string, Uint8Array] {
  const now = Date.now()
  return [k.dir + name, buildCrl({ issuerName: k.decoded.subject.der, thisUpdate: new Date(now - 60_000), nextUpdate: new Date(now + DAY), crlNumber: number, revoked: [] }, k.key)]
}

/** A manifest with a hand-written eContent (any name may be listed): `entries` name → bytes. */
function manifest(k: Kid, number: bigint, entries: [string, Uint8Array][]): [string, Uint8Array] {
  const now = Date.now()
  const uri = `${k.dir}${k.key.keyId}.mft`
  const thisUpdate = new Date(Math.floor(now / 1000) * 1000 - 60_000 + Number(number) * 1000)
  const nextUpdate = new Date(now + DAY)
  const content = seq(int(number), generalizedTime(thisUpdate), generalizedTime(nextUpdate), oid(oids.sha256), seqOf(entries.map(([n, b]) => seq(ia5String(n), bitString(fileHash(b))))))
  const ee = testKey()
  const eeCert = buildCert({
    profile: 'rpki', kind: 'ee', serial: BigInt(now % 1_000_000_000) + number, issuerName: k.decoded.subject.der, subjectName: ee.keyId, subjectSpki: ee.spki,
    notBefore: thisUpdate, notAfter: nextUpdate, crldp: k.issuer.crlUri, aia: k.issuer.certUri, sia: { signedObject: uri }, resources: { ipv4: 'inherit', ipv6: 'inherit', asn: 'inherit' },
  }, k.key)
  return [uri, encodeSignedData(oids.idCtRpkiManifest, content, eeCert, ee, thisUpdate)]
}

/** Publish `files` (and the manifest listing `listed`, name → bytes) for the kid, replacing what it published before. */
async function publish(k: Kid, files: [string, Uint8Array][], mft: [string, Uint8Array]): Promise<void> {
  const pdus = [...files, mft].map(([uri, content]) => ({ type: 'publish' as const, uri, content, ...(k.files.has(uri) ? { hash: sha256Hex(k.files.get(uri)!) } : {}) }))
  const r = await k.pub.send({ type: 'delta', pdus })
  if (r.type !== 'success') throw new Error(`${k.handle}: publishing answered ${JSON.stringify(r).slice(0, 300)}`)
  for (const [u, b] of [...files, mft]) k.files.set(u, b)
}

const listed = (k: Kid, files: [string, Uint8Array][]): [string, Uint8Array][] => files.map(([u, b]) => [u.slice(k.dir.length), b])

/**
 * The rsync URIs rpki-client's log names in a problem line ("<path>: <message>"; a manifest as "<path>#<number>"),
 * for paths in the repository on `rsyncPort`; a "bad message digest for F" names F beside its manifest too.
 */
function flaggedUris(log: string, rsyncPort: number): Map<string, string> {
  const out = new Map<string, string>()
  const host = `localhost:${rsyncPort}/`
  for (const line of log.split('\n')) {
    const m = /^rpki-client: (\S+?): (.*)$/.exec(line)
    if (!m) continue
    const path = m[1]!.replace(/^\.(rrdp\/[0-9A-Fa-f]+|rsync)\//, '').replace(/#[0-9A-Fa-f]+$/, '')
    if (!path.startsWith(host) || /^(pulling from|loaded from)/.test(m[2]!)) continue
    const uri = `rsync://${path}`
    out.set(uri, line)
    const digest = /bad message digest for (\S+)$/.exec(m[2]!)
    if (digest) out.set(uri.slice(0, uri.lastIndexOf('/') + 1) + digest[1], line)
  }
  return out
}

/** The point of the CA certificate at `certUri` in what was fetched: its directory (SIA caRepository) and DER. */
function pointOf(f: FetchedRepository, certUri: string): { dir: string; caCert: Uint8Array; cert: Cert } {
  const caCert = f.files.get(certUri)
  if (!caCert) throw new Error(`${certUri} was not fetched`)
  const cert = decodeCert(caCert)
  return { dir: cert.extensions.sia!.find((a) => a.method === oids.idAdCaRepository)!.uri!, caCert, cert }
}

t.test("every object rpki-client flags, svcd's relying-party view flags too; the good CAs have no findings in either", { skip: rpMissing() }, async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  await waitFor('testbed to be certified', async () => JSON.parse(await d.cli(['show', '-c', 'testbed', '-f', 'json'])).resource_classes['0']?.keys.active)
  const handles = ['good', 'crl2', 'sia', 'dots', 'names', 'gap']
  const kids = new Map<string, Kid>()
  const started = Date.now()
  for (const kid of await Promise.all(handles.map((h, i) => makeKid(d, h, i + 1)))) kids.set(kid.handle, kid)
  t.comment(`six children certified and registered as publishers in ${Date.now() - started} ms`)
  const roundsStarted = Date.now()
  const k = (h: string) => kids.get(h)!

  const plain = (kid: Kid, roaName = `AS${kid.asn}.roa`, sia?: string): [string, Uint8Array][] => [roa(kid, roaName, sia), crl(kid)]
  for (const h of ['good', 'gap']) {
    const files = plain(k(h))
    await publish(k(h), files, manifest(k(h), 1n, listed(k(h), files)))
  }
  const crl2 = [...plain(k('crl2')), crl(k('crl2'), 'second.crl', 2n)]
  await publish(k('crl2'), crl2, manifest(k('crl2'), 1n, listed(k('crl2'), crl2)))
  const sia = plain(k('sia'), `AS${k('sia').asn}.roa`, 'elsewhere.roa')
  await publish(k('sia'), sia, manifest(k('sia'), 1n, listed(k('sia'), sia)))
  const dots = plain(k('dots'), 'a.b.roa')
  await publish(k('dots'), dots, manifest(k('dots'), 1n, listed(k('dots'), dots)))
  const names = plain(k('names'))
  const long = `${'x'.repeat(252)}.roa`
  const refused = await k('names').pub.send({ type: 'delta', pdus: [{ type: 'publish', uri: k('names').dir + long, content: names[0]![1] }, { type: 'publish', uri: `${k('names').dir}.hidden.roa`, content: names[0]![1] }] })
  t.equal(refused.type, 'error_reply', "svcd's publication server refuses a 256-character name and a dot-file itself")
  await publish(k('names'), names, manifest(k('names'), 1n, [...listed(k('names'), names), [long, names[0]![1]], ['.hidden.roa', names[0]![1]]]))

  const fetcher = new RrdpFetcher({ timeoutMs: 30_000, maxBytes: 1 << 26, clock: systemClock })
  const notification = `${d.url}rrdp/notification.xml`
  const cache = mkdtempSync(join(tmpdir(), 'svc-rp-cache-'))
  t.teardown(() => rmSync(cache, { recursive: true, force: true }))
  const previous = new Map<string, string>()

  /** One round: wait for RRDP, run rpki-client, fetch and check every point, compare. */
  const round = async (name: string) => {
    await waitRrdp(d.url, (v) => [...kids.values()].every((kid) => [...kid.files].every(([u, b]) => v.objects.get(u) === sha256Hex(b))), 60_000)
    const r = await validate({ talUrl: d.talUrl, tlsCert: d.tlsCert, vrps: [`AS${k('good').asn},${k('good').prefix},16`], transport: 'rrdp', validators: ['rpki-client'], verbose: true, cacheDir: cache })
    const log = r.logs['rpki-client'] ?? ''
    t.ok(log.length > 0, `${name}: rpki-client ran (${r.lines.split('\n')[0]})`)
    const fetched = await fetcher.fetch(notification)
    t.equal(fetched.error, undefined, `${name}: fetched over RRDP`)
    const now = Date.now()
    const findings = new Map<string, Finding[]>()
    for (const kid of kids.values()) {
      const c = checkPoint(fetched, { dir: kid.dir, caCert: kid.cert, previousManifestNumber: previous.get(kid.handle) }, now, { expiryMarginMs: 0 })
      findings.set(kid.handle, c.findings)
      if (c.seen.manifestNumber !== undefined) previous.set(kid.handle, c.seen.manifestNumber)
    }
    const aia = (c: Cert) => c.extensions.aia!.find((a) => a.uri?.startsWith('rsync://'))!.uri!
    const testbed = pointOf(fetched, aia(k('good').decoded))
    const ta = pointOf(fetched, aia(testbed.cert))
    for (const [h, p] of [['testbed', testbed], ['ta', ta]] as const) findings.set(h, checkPoint(fetched, { dir: p.dir, caCert: p.caCert }, now, { expiryMarginMs: 0 }).findings)
    const flagged = flaggedUris(log, d.rsyncPort)
    t.comment(`${name}: rpki-client flagged\n${[...flagged.values()].join('\n')}`)
    const all = [...findings.values()].flat()
    for (const [uri, line] of flagged) t.ok(all.some((f) => f.uri === uri), `${name}: rpki-client flags ${uri.slice(uri.lastIndexOf('/', uri.length - 2) + 1)}; so does the view\n  rpki-client: ${line}\n  view: ${all.filter((f) => f.uri?.startsWith(uri.slice(0, uri.lastIndexOf('/') + 1))).map((f) => `${f.kind} ${f.rule}`).join('; ')}`)
    for (const h of ['good', 'testbed', 'ta']) {
      const dir = h === 'good' ? k('good').dir : h === 'testbed' ? testbed.dir : ta.dir
      t.same([...flagged.keys()].filter((u) => u.startsWith(dir) && !u.slice(dir.length).includes('/')), [], `${name}: rpki-client flags nothing of ${h}`)
      t.same(findings.get(h)!.map((f) => `${f.kind} ${f.uri} ${f.rule}: ${f.detail}`), [], `${name}: the view finds nothing in ${h}`)
    }
    for (const h of ['crl2', 'sia', 'dots', 'names']) t.ok(findings.get(h)!.length > 0, `${name}: the view flags ${h}: ${findings.get(h)!.map((f) => f.rule).join('; ')}`)
    return { findings, flagged }
  }

  const first = await round('first round')
  t.ok(first.flagged.size >= 3, `rpki-client flagged ${first.flagged.size} objects`)
  // The gap: manifest #3 after #1, seen by rpki-client with its cache and by the view with the number it saw.
  const gap = k('gap')
  const again = plain(gap)
  await publish(gap, again, manifest(gap, 3n, listed(gap, again)))
  const second = await round('second round')
  const mft = `${gap.dir}${gap.key.keyId}.mft`
  t.ok(second.findings.get('gap')!.some((f) => f.uri === mft && f.rule === 'rpki-client: manifest number gap'), 'the view flags the manifest number gap')
  t.ok(second.flagged.has(mft), 'and so does rpki-client')
  t.comment(`two rounds of publishing, rpki-client and the view in ${Date.now() - roundsStarted} ms`)
})
