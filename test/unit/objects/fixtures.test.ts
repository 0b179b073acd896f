/**
 * Every real-world object in ../shared/fixtures/objects/ decodes; the good ones have no profile error, the known-bad
 * ones exactly the errors their names (or provenance) say; the consistent chains verify end to end at a fixed time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { decodeAspa, inspectAspa } from '../../../src/objects/aspa.js'
import { decodeCert, inspectCert, type ResourceCert, verifyCert } from '../../../src/objects/cert.js'
import { decodeCrl, inspectCrl, verifyCrl } from '../../../src/objects/crl.js'
import { decodeCsr } from '../../../src/objects/csr.js'
import { decodeManifest, inspectManifest, verifyManifest } from '../../../src/objects/manifest.js'
import { errorsOf, type Problem } from '../../../src/objects/problem.js'
import { decodeRoa, inspectRoa, verifyRoa } from '../../../src/objects/roa.js'
import { decodeSignedObject, inspectSignedObject } from '../../../src/objects/signed-object.js'
import { decodeTal } from '../../../src/objects/tal.js'
import { LibraryError } from '../../../src/util/errors.js'
import { NO_SHARED, sharedFixture } from '../../helpers/paths.js'

const BER = ['RFC 6488 §3']
/** Known-bad objects and the error rules inspect must report (nothing else). */
const KNOWN_BAD: Record<string, string[]> = {
  'conformance-bbn/root/CRLEntryHasExtension/badCRLEntryHasExtension.crl': ['RFC 6487 §5'],
  'conformance-bbn/root/CRLNoAKI/badCRLNoAKI.crl': ['RFC 6487 §5'],
  'conformance-bbn/root/MFTHashAlg/badMFTHashAlg.mft': ['RFC 9286 §4.2.1'],
  'conformance-bbn/root/badCMSHasCRL.roa': ['RFC 6488 §2.1.5'],
  'conformance-bbn/root/badCMSSigInfoAttrs2BinSigTime.roa': ['RFC 6488 §2.1.6.4', 'RFC 9589 §4'],
  'conformance-bbn/root/badCMSSigInfoAttrs2SigTime.roa': ['RFC 6488 §2.1.6.4'],
  'conformance-bbn/root/badCMSSigInfoAttrsNoContType.roa': ['RFC 6488 §2.1.6.4.1'],
  'conformance-bbn/root/badCMSSigInfoForbiddenAttr.roa': ['RFC 6488 §2.1.6.4'],
  'conformance-bbn/root/badCMSSigInfoNoAttrs.roa': ['RFC 6488 §2.1.6.4'],
  'conformance-bbn/root/badCMSSigInfoUnSigAttrs.roa': ['RFC 6488 §2.1.6.7'],
  'conformance-bbn/root/badCMSVersion4.roa': ['RFC 6488 §2.1.1'],
  'conformance-bbn/root/badCertNoAKI.cer': ['RFC 6487 §4.8.3'],
  'conformance-bbn/root/badCertResourcesBadV4Order.cer': ['RFC 3779 §2.2.3.6'],
  'conformance-bbn/root/badCertResourcesIPEmpty.cer': ['RFC 6487 §4.8.10'],
  'conformance-bbn/root/badCertSIANoMFT.cer': ['RFC 6487 §4.8.8.1'],
  'conformance-bbn/root/badROAFamily.roa': ['RFC 9582 §4.3'],
  'conformance-bbn/root/badROAIPv4MaxLthShort.roa': ['RFC 9582 §4.3.2.2'],
  'misc/koenvh-unknown-critical-extension.cer': ['RFC 6487 §4.8'],
  // BER (indefinite lengths): RFC 6488 §3 wants DER; older RIPE NCC objects and the ARIN and LACNIC TA manifests.
  'ripencc-ta-chain-2019/rpki.ripe.net/repository/ripe-ncc-ta.mft': BER,
  'ripencc-ta-chain-2019/rpki.ripe.net/repository/aca/Kn3R14fXk-TIr1bhl9Tu2Sr2uhM.mft': BER,
  'rir/arin/arin-rpki-ta.mft': BER,
  'rir/lacnic/rta-lacnic-rpki.mft': BER,
  'rir/ripencc/Q8uCW6eAw7tnl2QxNmQTf50fxAg.mft': BER,
  'rir/ripencc/YYecYKU1I6R-hHpxDrOH7_zzyVw.roa': BER,
}
/** Objects that must not decode, with the rule of the DecodeError. */
const UNDECODABLE: Record<string, string> = {
  'aspa/ripencc-prepdev-2022-old-draft.asa': 'draft-ietf-sidrops-aspa-profile §3',
  'aspa/krill-accept-2021-profile13-AS211321.asa': 'draft-ietf-sidrops-aspa-profile §3',
  'aspa/rpkimancer-profile13-no-signingtime.asa': 'draft-ietf-sidrops-aspa-profile §3',
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]))
}

function inspectFile(path: string, bytes: Uint8Array): Problem[] {
  if (path.endsWith('.cer')) return inspectCert(decodeCert(bytes))
  if (path.endsWith('.crl')) return inspectCrl(decodeCrl(bytes))
  if (path.endsWith('.mft')) return inspectManifest(decodeManifest(bytes))
  if (path.endsWith('.roa')) return inspectRoa(decodeRoa(bytes))
  if (path.endsWith('.asa')) return inspectAspa(decodeAspa(bytes))
  if (path.endsWith('.gbr')) return inspectSignedObject(decodeSignedObject(bytes), '1.2.840.113549.1.9.16.1.35')
  if (path.endsWith('.tal')) return decodeTal(bytes) && []
  if (path.endsWith('.der')) return decodeCsr(bytes) && [] // the BGPsec router CSR: decoded only (not a CA request)
  throw new Error(`no decoder for ${path}`)
}

t.test('every real-world object decodes and is classified as good or as its known problem', { skip: NO_SHARED }, async (t) => {
  const root = sharedFixture('objects')!
  let good = 0
  for (const f of walk(root)) {
    const rel = relative(root, f)
    const bytes = new Uint8Array(readFileSync(f))
    if (UNDECODABLE[rel] !== undefined) {
      try {
        inspectFile(rel, bytes)
        t.fail(`${rel} should not decode`)
      } catch (e) {
        t.ok(e instanceof LibraryError && e.rule === UNDECODABLE[rel], `${rel}: ${(e as Error).message}`)
      }
      continue
    }
    const rules = [...new Set(errorsOf(inspectFile(rel, bytes)).map((p) => p.rule))].sort()
    t.same(rules, [...(KNOWN_BAD[rel] ?? [])].sort(), rel)
    if (KNOWN_BAD[rel] === undefined) good++
  }
  t.ok(good >= 60, `${good} good objects without a profile error`)
  const names = walk(root).map((f) => relative(root, f))
  for (const listed of [...Object.keys(KNOWN_BAD), ...Object.keys(UNDECODABLE)]) t.ok(names.includes(listed), `${listed} exists`)
})

const read = (p: string): Uint8Array => new Uint8Array(readFileSync(sharedFixture('objects', p)!))

t.test('the Krill chain verifies: TA → testbed → benchmark-0 → ROAs, manifests and CRLs at every level', { skip: NO_SHARED }, async (t) => {
  const repo = 'krill-localhost-chain/localhost/repo'
  const mft = decodeManifest(read(`${repo}/benchmark-0/0/9E865AA31D1619E1829B65D298EEB194E041CDA3.mft`))
  const now = new Date(mft.thisUpdate.getTime() + 60_000)
  const ta = verifyCert(decodeCert(read('krill-localhost-chain/ta/ta.cer')), 'self', now)
  const testbed = verifyCert(decodeCert(read(`${repo}/2C1B201B6FB59BD811DB6D669D2503D0407BFC06.cer`)), ta, now)
  const bench = verifyCert(decodeCert(read(`${repo}/testbed/0/9E865AA31D1619E1829B65D298EEB194E041CDA3.cer`)), testbed, now)
  t.equal(bench.resources.ipv4.toString(), '10.0.0.0/24')
  verifyManifest(decodeManifest(read(`${repo}/CF62EDAA511CA98C086B0A9B46521D9D663D08B4.mft`)), ta, now)
  verifyCrl(decodeCrl(read(`${repo}/CF62EDAA511CA98C086B0A9B46521D9D663D08B4.crl`)), ta, now)
  verifyManifest(decodeManifest(read(`${repo}/testbed/0/2C1B201B6FB59BD811DB6D669D2503D0407BFC06.mft`)), testbed, now)
  verifyCrl(decodeCrl(read(`${repo}/testbed/0/2C1B201B6FB59BD811DB6D669D2503D0407BFC06.crl`)), testbed, now)
  verifyManifest(mft, bench, now)
  verifyCrl(decodeCrl(read(`${repo}/benchmark-0/0/9E865AA31D1619E1829B65D298EEB194E041CDA3.crl`)), bench, now)
  for (const f of mft.files.filter((x) => x.file.endsWith('.roa'))) {
    const roa = decodeRoa(read(`${repo}/benchmark-0/0/${f.file}`))
    t.equal(verifyRoa(roa, bench, now).resources.ipv4.toString(), '10.0.0.0/24', `${f.file} verifies`)
  }
  for (const f of readdirSync(sharedFixture('objects', `${repo}/testbed/0`)!).filter((x) => x.endsWith('.cer'))) {
    t.ok(verifyCert(decodeCert(read(`${repo}/testbed/0/${f}`)), testbed, now), `child ${f} verifies`)
  }
})

t.test('the RIPE NCC 2019 chain (BER manifests) and the AFRINIC TA objects verify', { skip: NO_SHARED }, async (t) => {
  const dir = 'ripencc-ta-chain-2019/rpki.ripe.net'
  const taMft = decodeManifest(read(`${dir}/repository/ripe-ncc-ta.mft`))
  let now = new Date(taMft.thisUpdate.getTime() + 60_000)
  const ta: ResourceCert = verifyCert(decodeCert(read(`${dir}/ta/ripe-ncc-ta.cer`)), 'self', now)
  verifyManifest(taMft, ta, now)
  verifyCrl(decodeCrl(read(`${dir}/repository/ripe-ncc-ta.crl`)), ta, now)
  const acaMft = decodeManifest(read(`${dir}/repository/aca/Kn3R14fXk-TIr1bhl9Tu2Sr2uhM.mft`))
  now = new Date(acaMft.thisUpdate.getTime() + 60_000)
  const aca = verifyCert(decodeCert(read(`${dir}/repository/2a7dd1d787d793e4c8af56e197d4eed92af6ba13.cer`)), verifyCert(decodeCert(read(`${dir}/ta/ripe-ncc-ta.cer`)), 'self', now), now)
  verifyManifest(acaMft, aca, now)
  verifyCrl(decodeCrl(read(`${dir}/repository/aca/Kn3R14fXk-TIr1bhl9Tu2Sr2uhM.crl`)), aca, now)
  const afMft = decodeManifest(read('rir/afrinic/62gPOPXWxxu0sQa4vQZYUBLaMbY.mft'))
  now = new Date(afMft.thisUpdate.getTime() + 60_000)
  const af = verifyCert(decodeCert(read('rir/afrinic/AfriNIC.cer')), 'self', now)
  verifyManifest(afMft, af, now)
  t.ok(verifyCert(decodeCert(read('rir/afrinic/arin-to-afrinic.cer')), af, now), 'the transfer certificate verifies against the AFRINIC TA')
})
