/**
 * Signed checklists (RFC 9323): the exact eContent (version left out, ResourceBlock, sha256 without parameters,
 * FileNameAndHash), an EE certificate without SIA holding exactly the checklist's resources, the build refusals, every
 * inspection rule on hand-made checklists, verification against the CA, and the file digests checked by name.
 */
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import t from 'tap'
import { bitString, explicit, ia5String, int, nul, octetString, oid, seq, seqOf } from '../../../src/asn1/der.js'
import { idCtSignedChecklist, idPeSubjectInfoAccess, sha256 } from '../../../src/asn1/oids.js'
import { decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { detectObjectType } from '../../../src/objects/object-type.js'
import { errorsOf } from '../../../src/objects/problem.js'
import { buildRsc, checkRscFiles, decodeRsc, encodeRscContent, inspectRsc, rscFileProblems, verifyRsc } from '../../../src/objects/rsc.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_NOW, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'
import { fixture } from '../../helpers/paths.js'
import { handMadeObject } from '../../helpers/signed-objects.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ca = testKey('rpki-ca')
const issuer = { key: ca, name: ca.keyId, crlUri: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, certUri: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer` }
const ee = { serial: 9n, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM }
const res = (asn: string, ipv4 = '', ipv6 = '') => ResourceSet.parse({ asn, ipv4, ipv6 })
const HASH = new Uint8Array(32).fill(0x11)
const caCert = () => verifyCert(decodeCert(golden(`sample/repo/ta/${ca.keyId}.cer`)), verifyCert(decodeCert(golden('sample/ta/ta.cer')), 'self', GOLDEN_NOW), GOLDEN_NOW)

t.test('eContent: no version (DEFAULT 0), asID [0] and ipAddrBlocks [1] in RFC 3779 form, sha256 without parameters, the list', async (t) => {
  const der = encodeRscContent({ resources: res('AS65001', '10.1.0.0/24'), files: [{ name: 'a.txt', hash: HASH }] })
  const resourceBlock = '301f' + 'a00b3009a0073005020300fde9' + 'a110300e300c040200013006030400' + '0a0100'
  const digest = '300b0609608648016503040201'
  const list = '302b3029' + '1605612e747874' + '0420' + '11'.repeat(32)
  t.equal(toHex(der), '305b' + resourceBlock + digest + list)
  const ipv6Only = '3015' + 'a1133011300f04020002300903070020010db80000'
  t.equal(toHex(encodeRscContent({ resources: res('', '', '2001:db8::/48'), files: [{ hash: HASH }] })), '304a' + ipv6Only + digest + '30243022' + '0420' + '11'.repeat(32), 'IPv6 only, an entry without a name')
})

t.test('buildRsc: a signed object of id-ct-signedChecklist whose EE has no SIA and exactly the resources; it verifies', async (t) => {
  const der = buildRsc({ resources: res('AS65001', '10.1.0.0/24'), files: [{ name: 'a.txt', hash: HASH }, { name: 'B-2_x.tar.gz', hash: new Uint8Array(32) }] }, testKey('rpki-ee-5'), issuer, ee)
  const r = decodeRsc(der)
  t.equal(r.signedObject.eContentType, idCtSignedChecklist)
  t.equal(r.version, 0)
  t.equal(r.versionEncoded, false)
  t.equal(r.resources.toJSON().asn, 'AS65001')
  t.equal(r.resources.toJSON().ipv4, '10.1.0.0/24')
  t.same(r.files.map((f) => [f.name, toHex(f.hash)]), [['a.txt', '11'.repeat(32)], ['B-2_x.tar.gz', '00'.repeat(32)]])
  t.equal(r.ee.extensions.sia, undefined, 'RFC 9323 §2: no SIA')
  t.notOk(toHex(r.ee.bytes).includes(toHex(oid(idPeSubjectInfoAccess))), 'no SIA extension in the DER at all')
  t.equal(r.ee.extensions.as?.asn?.toString(), 'AS65001')
  t.equal(r.ee.extensions.ip?.ipv4?.toString(), '10.1.0.0/24')
  t.equal(r.ee.extensions.ip?.ipv6, undefined, 'no IPv6 family when the checklist has none')
  t.equal(r.ee.serial, 9n)
  t.same(inspectRsc(r), [], 'conforms')
  const v = verifyRsc(r, caCert(), GOLDEN_NOW)
  t.ok(v.resources.equals(res('AS65001', '10.1.0.0/24')), 'the EE holds exactly the checklist resources')
  t.equal(detectObjectType(der, 'x.bin'), 'rsc', 'recognised by content')
  t.equal(detectObjectType(new Uint8Array([1, 2]), 'files.sig'), 'rsc', 'and .sig by name')
})

t.test('buildRsc refusals: empty list, bad digest, bad name, no resources', async (t) => {
  const k = testKey('rpki-ee-5')
  throwsRule(t, () => buildRsc({ resources: res('AS65001'), files: [] }, k, issuer, ee), 'RFC 9323 §4.4')
  throwsRule(t, () => buildRsc({ resources: res('AS65001'), files: [{ name: 'a', hash: new Uint8Array(20) }] }, k, issuer, ee), 'RFC 9323 §4.4', { message: /32 octets/ })
  throwsRule(t, () => buildRsc({ resources: res('AS65001'), files: [{ name: 'a b', hash: HASH }] }, k, issuer, ee), 'RFC 9323 §4.4', { message: /PortableFilename/ })
  throwsRule(t, () => buildRsc({ resources: res('AS65001'), files: [{ name: 'dir/a', hash: HASH }] }, k, issuer, ee), 'RFC 9323 §4.4')
  throwsRule(t, () => buildRsc({ resources: ResourceSet.empty(), files: [{ name: 'a', hash: HASH }] }, k, issuer, ee), 'RFC 9323 §4.2')
})

/** A checklist in a hand-made envelope (its EE has an SIA, as handMadeObject builds it: a problem of its own). */
function handMade(content: Uint8Array, resources: object = { asn: AsBlocks.parse('AS65001') }) {
  return decodeRsc(handMadeObject(idCtSignedChecklist, content, resources))
}
const block = seq(explicit(0, seq(explicit(0, seqOf([int(65001)])))))
const alg = seq(oid(sha256))
const entry = (name: string | undefined, hash = HASH) => (name === undefined ? seq(octetString(hash)) : seq(ia5String(name), octetString(hash)))
const rules = (r: ReturnType<typeof handMade>) => errorsOf(inspectRsc(r)).map((p) => [p.rule, p.message]).filter(([rule]) => rule !== 'RFC 9323 §2')

t.test('inspect: version, ResourceBlock, digest algorithm, checkList, EE resources and SIA', async (t) => {
  t.same(rules(handMade(seq(block, alg, seqOf([entry('a.txt')])))), [], 'a good checklist')
  t.same(errorsOf(inspectRsc(handMade(seq(block, alg, seqOf([entry('a.txt')]))))).map((p) => [p.rule, p.message]), [['RFC 9323 §2', 'the EE certificate has an SIA extension']], 'an EE with SIA')
  t.same(rules(handMade(seq(explicit(0, int(0)), block, alg, seqOf([entry('a')])))), [['RFC 9323 §4.1', 'version 0 is encoded (DER omits the DEFAULT)']])
  t.same(rules(handMade(seq(explicit(0, int(1)), block, alg, seqOf([entry('a')])))), [['RFC 9323 §4.1', 'version 1, expected 0']])
  t.same(rules(handMade(seq(seq(), alg, seqOf([entry('a')])))), [['RFC 9323 §4.2', 'one of asID or ipAddrBlocks must be present']])
  t.same(rules(handMade(seq(block, seq(oid(sha256), nul()), seqOf([entry('a')])))), [['RFC 9323 §4.3', 'sha256 with parameters']])
  t.same(rules(handMade(seq(block, seq(oid('1.3.14.3.2.26')), seqOf([entry('a')])))), [['RFC 9323 §4.3', 'digest algorithm 1.3.14.3.2.26, expected sha256']])
  t.same(rules(handMade(seq(block, alg, seqOf([])))), [['RFC 9323 §4.4', 'the checkList is empty']])
  t.same(rules(handMade(seq(block, alg, seqOf([entry('a/b')])))), [['RFC 9323 §4.4', `"a/b": not a PortableFilename (a-z, A-Z, 0-9, '.', '_', '-')`]])
  t.same(rules(handMade(seq(block, alg, seqOf([entry(undefined, new Uint8Array(20))])))), [['RFC 9323 §4.4', 'entry 1: a SHA-256 digest has 32 octets, not 20']])
  t.same(rules(handMade(seq(block, alg, seqOf([entry('a')])), { asn: AsBlocks.parse('AS65002') })), [['RFC 9323 §5', 'resources asn: AS65001 of the checklist are not held by the EE certificate']])
  t.same(rules(handMade(seq(block, alg, seqOf([entry('a')])), { asn: 'inherit' })), [], 'inherit: the RFC 9323 §2 problem only')
  t.same(errorsOf(inspectRsc(handMade(seq(block, alg, seqOf([entry('a')])), { asn: 'inherit' }))).map((p) => p.message), ['the EE certificate has an SIA extension', 'inherit elements not allowed in the EE certificate'])
  const withSafi = seq(explicit(1, seq(seq(octetString(Uint8Array.of(0, 1, 1)), seqOf([bitString(Uint8Array.of(10, 1))])))))
  t.same(rules(handMade(seq(withSafi, alg, seqOf([entry('a')])), { ipv4: IpBlocks.parse('10.1.0.0/16', 4) })), [['RFC 6487 §4.8.10', 'IPv4 carries a SAFI']], 'ConstrainedIPAddressFamily: a two-octet AFI')
})

t.test('decode refusals: another content type, inherit in the ResourceBlock, trailing elements', async (t) => {
  throwsRule(t, () => decodeRsc(handMadeObject('1.2.840.113549.1.9.16.1.49', seq(block, alg, seqOf([entry('a')])), { asn: AsBlocks.parse('AS65001') })), 'RFC 9323 §3')
  throwsRule(t, () => handMade(seq(seq(explicit(0, seq(explicit(0, nul())))), alg, seqOf([entry('a')]))), 'RFC 9323 §4.2', { message: /inherit/ })
  throwsRule(t, () => handMade(seq(block, alg, seqOf([entry('a')]), int(1))), 'RFC 9323 §4')
  throwsRule(t, () => handMade(seq(block, alg, seqOf([seq(octetString(HASH), ia5String('a'))]))), 'RFC 9323 §4.4')
})

t.test('verify: the chain, and the ResourceBlock within the EE resources', async (t) => {
  const k = testKey('rpki-ee-5')
  const r = decodeRsc(buildRsc({ resources: res('AS65001-65002', '', '2001:db8::/48'), files: [{ name: 'a', hash: HASH }] }, k, issuer, ee))
  t.same(inspectRsc(r), [])
  t.equal(verifyRsc(r, caCert(), GOLDEN_NOW).resources.ipv6.toString(), '2001:db8::/48')
  throwsRule(t, () => verifyRsc(r, caCert(), new Date('2040-01-01T00:00:00Z')), 'RFC 5280 §6.1.3', { message: /expired/ })
  const outside = decodeRsc(buildRsc({ resources: res('AS64000'), files: [{ name: 'a', hash: HASH }] }, k, issuer, ee))
  throwsRule(t, () => verifyRsc(outside, caCert(), GOLDEN_NOW), 'RFC 6487 §7.2', { message: /AS64000/ })
  const wider = handMade(seq(seq(explicit(0, seq(explicit(0, seqOf([seq(int(65001), int(65003))]))))), alg, seqOf([entry('a')])))
  throwsRule(t, () => verifyRsc(wider, caCert(), GOLDEN_NOW), 'RFC 9323 §5', { message: /AS65002-AS65003/ })
})

t.test('checkRscFiles: match, mismatch, missing, unnamed; only portable names are looked up', async (t) => {
  const body = Buffer.from('hello\n')
  const digest = new Uint8Array(createHash('sha256').update(body).digest())
  const r = decodeRsc(buildRsc({ resources: res('AS65001'), files: [{ name: 'hello.txt', hash: digest }, { name: 'changed.txt', hash: digest }, { name: 'gone.txt', hash: digest }, { hash: digest }] }, testKey('rpki-ee-5'), issuer, ee))
  const asked: string[] = []
  const files: Record<string, Uint8Array> = { 'hello.txt': body, 'changed.txt': Buffer.from('hello!\n') }
  const checks = checkRscFiles(r, (n) => (asked.push(n), files[n]))
  t.same(checks.map((c) => [c.name, c.state]), [['hello.txt', 'match'], ['changed.txt', 'mismatch'], ['gone.txt', 'missing'], [undefined, 'unnamed']])
  t.same(asked, ['hello.txt', 'changed.txt', 'gone.txt'])
  t.same(rscFileProblems(checks).map((p) => [p.severity, p.rule, p.message]), [
    ['error', 'RFC 9323 §5', 'changed.txt: the SHA-256 of the file differs from the checklist'],
    ['error', 'RFC 9323 §5', 'gone.txt: no such file to check'],
    ['note', 'RFC 9323 §5', `an entry without a file name (${toHex(digest)}) is not checked`],
  ])
  const dots = handMade(seq(block, alg, seqOf([entry('..')])))
  t.same(checkRscFiles(dots, (n) => (asked.push(n), body)).map((c) => c.state), ['missing'], "'..' is never read")
  t.equal(asked.length, 3)
})
