/**
 * `svcc inspect <file>` (issue 3 item 6), run as the built CLI: every object type in text and JSON, and the exit
 * codes 0 (decodes and conforms), 1 (decodes, breaks the profile) and 2 (cannot be decoded, or no such file).
 * Run `make build` first (SVC_TEST_NO_BUILD_CHECK=1 skips the dist/-age check while others edit src/).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { svcc, tempDir } from '../helpers/daemon.js'
import { testKey } from '../helpers/fixed-keys.js'
import { fixture, NO_SHARED, sharedFixture } from '../helpers/paths.js'

const ca = testKey('rpki-ca').keyId
const obj = (p: string): string => fixture('objects', p)

t.test('a ROA: authorisations in the => form, the EE certificate, no problem, exit 0; JSON too', async (t) => {
  const r = await svcc(['inspect', obj('sample/repo/ca/AS65001.roa')])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /Type:\s+ROA \(RFC 9582\)/)
  t.match(r.stdout, /Authorisations \(2\):\n  10\.1\.0\.0\/24 => 65001\n  10\.1\.1\.0\/24-26 => 65001/)
  t.match(r.stdout, /EE certificate:\n  Type:\s+EE certificate/)
  t.match(r.stdout, /signedObject:\s+rsync:\/\/rpki\.example\.net\/rpki\/repo\/ca\/AS65001\.roa/)
  t.match(r.stdout, /Problems:\s+none/)
  const j = await svcc(['inspect', '--format', 'json', obj('sample/repo/ca/AS65002.roa')])
  t.equal(j.code, 0)
  const json = JSON.parse(j.stdout)
  t.match(json, { type: 'roa', asn: 65002, conforms: true, problems: [], authorisations: ['10.2.0.0/22 => 65002', '2001:db8:1::/48-56 => 65002'] })
  t.equal(json.ee_certificate.resources.ipv6, '2001:db8:1::/48')
})

t.test('a manifest lists every file with its hash; a CRL its revoked serials; an ASPA its providers; a TAL its URIs', async (t) => {
  const m = await svcc(['inspect', obj(`sample/repo/ca/${ca}.mft`)])
  t.equal(m.code, 0)
  t.match(m.stdout, /Manifest number:\s+1\n/)
  t.match(m.stdout, /\n  [0-9a-f]{64}  AS65001\.roa\n/)
  t.match(m.stdout, /This update:\s+2026-01-01T00:00:00Z/)
  const c = await svcc(['inspect', obj(`sample/repo/ca/${ca}.crl`)])
  t.equal(c.code, 0)
  t.match(c.stdout, /Revoked \(1\):\n  99  2026-01-01T00:00:00Z/)
  const a = await svcc(['inspect', '-f', 'json', obj('sample/repo/ca/AS65001.asa')])
  t.match(JSON.parse(a.stdout), { type: 'aspa', customer: 65001, providers: [65002, 65003], conforms: true })
  const tal = await svcc(['inspect', obj('sample/ta.tal')])
  t.equal(tal.code, 0)
  t.match(tal.stdout, /URIs:\n  https:\/\/rpki\.example\.net\/ta\/ta\.cer\n  rsync:\/\/rpki\.example\.net\/rpki\/ta\/ta\.cer/)
})

t.test('certificates: resources in the spec text form, validity, SIA/AIA URIs', async (t) => {
  const r = await svcc(['inspect', obj(`sample/repo/ta/${ca}.cer`)])
  t.equal(r.code, 0)
  t.match(r.stdout, /Type:\s+CA certificate/)
  t.match(r.stdout, /Validity:\s+2026-01-01T00:00:00Z to 2036-01-01T00:00:00Z/)
  t.match(r.stdout, /Resources:\n  asn:  AS65001-AS65010\n  ipv4: 10\.1\.0\.0-10\.2\.3\.255\n  ipv6: 2001:db8::\/32/)
  t.match(r.stdout, /CA issuer:\s+rsync:\/\/rpki\.example\.net\/rpki\/ta\/ta\.cer/)
  t.match(r.stdout, /rpkiManifest:\s+rsync:\/\/rpki\.example\.net\/rpki\/repo\/ca\/[0-9A-F]{40}\.mft/)
  const id = await svcc(['inspect', obj('bpki/id-ta.cer')])
  t.equal(id.code, 0)
  t.match(id.stdout, /BPKI CA \(identity\) certificate/)
})

t.test('profile problems: exit 1 with each problem and its RFC section', async (t) => {
  const r = await svcc(['inspect', obj('bad/maxlen-overflow.roa')])
  t.equal(r.code, 1)
  t.match(r.stdout, /Problems:\n  error RFC 9582 §4\.3\.2\.2: max length 33 of 10\.1\.0\.0\/24 is longer than 32/)
  const j = await svcc(['inspect', '--format', 'json', obj('bad/maxlen-overflow.roa')])
  t.equal(j.code, 1)
  t.match(JSON.parse(j.stdout), { conforms: false, problems: [{ rule: 'RFC 9582 §4.3.2.2', severity: 'error' }] })
})

t.test('undecodable input and missing files: exit 2', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, 'cut.roa'), readFileSync(obj('sample/repo/ca/AS65001.roa')).subarray(0, 300))
  const cut = await svcc(['inspect', join(dir, 'cut.roa')])
  t.equal(cut.code, 2)
  t.match(cut.stdout, /cut\.roa: cannot decode as roa: X\.690 §8\.1\.3: /)
  const j = await svcc(['inspect', '-f', 'json', join(dir, 'cut.roa')])
  t.match(JSON.parse(j.stdout), { type: 'roa', conforms: false, error: { rule: 'X.690 §8.1.3' } })
  writeFileSync(join(dir, 'junk.bin'), 'hello')
  t.equal((await svcc(['inspect', join(dir, 'junk.bin')])).code, 2, 'not an RPKI file')
  const missing = await svcc(['inspect', join(dir, 'nope.cer')])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /cannot read .*nope\.cer: ENOENT/)
})

t.test('real-world files of every kind', { skip: NO_SHARED }, async (t) => {
  const shared = (p: string): string => sharedFixture(p)!
  const cases: [string, number, RegExp][] = [
    ['objects/krill-localhost-chain/localhost/repo/benchmark-0/0/AS64512.roa', 0, /10\.0\.0\.0\/24 => 64512/],
    ['objects/krill-localhost-chain/localhost/repo/CF62EDAA511CA98C086B0A9B46521D9D663D08B4.crl', 0, /note  RFC 5280 §5\.1\.2\.6: empty revokedCertificates/],
    ['objects/rir/ripencc/qM_jralcLee1A8ndIB6R9r9Jz8A-DEFAULT-ca.cer', 0, /Resources:\n  asn:  AS\d/],
    ['objects/rir/arin/arin-rpki-ta.mft', 1, /error RFC 6488 §3: signed object is BER/],
    ['objects/misc/koenvh-unknown-critical-extension.cer', 1, /error RFC 6487 §4\.8: unknown critical extension 1\.3\.6\.1\.5\.5\.7\.1\.45/],
    ['objects/conformance-bbn/root/badCMSSigInfoNoAttrs.roa', 1, /RFC 6488 §2\.1\.6\.4: signedAttrs is missing/],
    ['objects/aspa/krill-testbed-AS204325.asa', 0, /Customer:\s+AS204325/],
    ['objects/aspa/ripencc-prepdev-2022-old-draft.asa', 2, /legacy ASPA from an older draft/],
    ['objects/gbr/sobornost-LMrbiOIR4bDInnBEXLsY5MZ1q1U.gbr', 0, /Ghostbusters record[\s\S]*BEGIN:VCARD/],
    ['objects/router-certs/krill-testbed-bgpsec-router.cer', 0, /BGPsec router certificate/],
    ['tal/rpki-client-test-with-comments.tal', 0, /Comments:\n  # This TAL is intended/],
    ['rfc8183/child_request/krill-for-apnic.xml', 0, /RFC 8183 child_request[\s\S]*child_handle:\s+rand[\s\S]*Identity certificate:/],
    ['rfc8183/parent_response/legacy-myrpki-v2-labelled-arin.xml', 2, /cannot decode as xml/],
  ]
  for (const [file, code, pattern] of cases) {
    const r = await svcc(['inspect', shared(file)])
    t.equal(r.code, code, `${file}: exit ${code}`)
    t.match(r.stdout, pattern, file)
  }
})

t.test('issue 12: inspect verifies what a file proves alone; each failure is an RFC-cited problem, exit 1', async (t) => {
  const dir = tempDir(t)
  const good = readFileSync(obj('sample/repo/ca/AS65001.roa'))
  const ok = await svcc(['inspect', obj('sample/repo/ca/AS65001.roa')])
  t.match(ok.stdout, /Verified:\s+CMS signature and digest ok\n/)

  // One byte of the RSA signature flipped (the signature is the last OCTET STRING of the file).
  const flipped = Buffer.from(good)
  flipped[flipped.length - 10] ^= 0x01
  writeFileSync(join(dir, 'flipped.roa'), flipped)
  const f = await svcc(['inspect', join(dir, 'flipped.roa')])
  t.equal(f.code, 1, 'a flipped signature byte: exit 1')
  t.match(f.stdout, /Verified:\s+CMS signature and digest FAILED/)
  t.match(f.stdout, /error RFC 6488 §3: CMS signature does not verify with the key of the embedded EE certificate/)
  const fj = JSON.parse((await svcc(['inspect', '-f', 'json', join(dir, 'flipped.roa')])).stdout)
  t.match(fj, { conforms: false, checks: [{ check: 'cms-signature', ok: false }], problems: [{ rule: 'RFC 6488 §3', severity: 'error' }] })

  // The eContent changed after signing (asID 65001 → 65002): the signed message-digest no longer matches.
  const asid = good.indexOf(Buffer.from([0x02, 0x03, 0x00, 0xfd, 0xe9]))
  t.ok(asid > 0, 'the asID is in the eContent')
  const digest = Buffer.from(good)
  digest[asid + 4] = 0xea
  writeFileSync(join(dir, 'digest.roa'), digest)
  const d = await svcc(['inspect', join(dir, 'digest.roa')])
  t.equal(d.code, 1, 'a wrong message digest: exit 1')
  t.match(d.stdout, /error RFC 6488 §2\.1\.6\.4\.2: message-digest attribute does not match the SHA-256 of the eContent/)
  t.notMatch(d.stdout, /CMS signature does not verify/, 'the signature over the signed attributes still verifies')

  // A manifest beside its files: one file differs from the hash the manifest lists.
  const mftDir = join(dir, 'pp')
  mkdirSync(mftDir)
  for (const f of readdirSync(obj('sample/repo/ca'))) copyFileSync(obj(`sample/repo/ca/${f}`), join(mftDir, f))
  const m0 = await svcc(['inspect', join(mftDir, `${ca}.mft`)])
  t.equal(m0.code, 0, m0.stdout)
  t.match(m0.stdout, /Verified:\s+CMS signature and digest ok, manifest file hashes ok/)
  copyFileSync(obj('sample/repo/ca/AS65003.roa'), join(mftDir, 'AS65002.roa'))
  const m = await svcc(['inspect', join(mftDir, `${ca}.mft`)])
  t.equal(m.code, 1, 'a listed hash that does not match the file beside the manifest: exit 1')
  t.match(m.stdout, /error RFC 9286 §6\.5: bad message digest for AS65002\.roa/)
  rmSync(join(mftDir, 'AS65001.roa'))
  t.match((await svcc(['inspect', join(mftDir, `${ca}.mft`)])).stdout, /error RFC 9286 §6\.4: AS65001\.roa is listed but missing/)
  // Alone (no listed file beside it), a manifest is not checked against files.
  copyFileSync(obj(`sample/repo/ca/${ca}.mft`), join(dir, 'alone.mft'))
  const alone = await svcc(['inspect', join(dir, 'alone.mft')])
  t.equal(alone.code, 0)
  t.match(alone.stdout, /Verified:\s+CMS signature and digest ok\n/)
})

t.test('issue 12: --issuer verifies a certificate, a CRL or an EE certificate one step up the chain', async (t) => {
  const caCert = obj(`sample/repo/ta/${ca}.cer`)
  const roa = await svcc(['inspect', obj('sample/repo/ca/AS65001.roa'), '--issuer', caCert])
  t.equal(roa.code, 0, roa.stdout)
  t.match(roa.stdout, /Verified:\s+CMS signature and digest ok, issuer ok/)
  const crl = await svcc(['inspect', obj(`sample/repo/ca/${ca}.crl`), '--issuer', caCert])
  t.equal(crl.code, 0, crl.stdout)
  t.match(crl.stdout, /Verified:\s+issuer ok/)
  const taDir = obj('sample/repo/ta')
  const taCrl = readdirSync(taDir).find((f) => f.endsWith('.crl'))!
  // The wrong issuer: the CA certificate did not issue the TA's CRL, nor its own certificate.
  const wrongCrl = await svcc(['inspect', join(taDir, taCrl), '--issuer', caCert])
  t.equal(wrongCrl.code, 1)
  t.match(wrongCrl.stdout, /error RFC 5280 §6\.3\.3: CRL issuer differs from the CA's subject/)
  const wrongEe = await svcc(['inspect', obj('sample/repo/ca/AS65001.roa'), '--issuer', obj('bpki/id-ta.cer')])
  t.equal(wrongEe.code, 1)
  t.match(wrongEe.stdout, /Verified:\s+CMS signature and digest ok, issuer FAILED/)
  t.match(wrongEe.stdout, /error RFC 5280 §6\.1\.4: the issuer is not a CA certificate|error RFC 5280 §6\.1\.3: /)
  const notCert = await svcc(['inspect', caCert, '--issuer', obj('sample/repo/ca/AS65001.roa')])
  t.equal(notCert.code, 2, '--issuer must be a certificate')
})
