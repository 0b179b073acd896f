/** ASPA in the current profile: exact eContent, AS-only EE, inspection rules, real samples, legacy drafts refused. */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { explicit, int, seq, seqOf } from '../../../src/asn1/der.js'
import { idCtAspa } from '../../../src/asn1/oids.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { IpBlocks } from '../../../src/resources/ip.js'
import { buildAspa, decodeAspa, inspectAspa, verifyAspa } from '../../../src/objects/aspa.js'
import { decodeCert, verifyCert } from '../../../src/objects/cert.js'
import { errorsOf } from '../../../src/objects/problem.js'
import { toHex } from '../../../src/util/hex.js'
import { testKey } from '../../helpers/fixed-keys.js'
import { GOLDEN_BASE, GOLDEN_FROM, GOLDEN_NOW, GOLDEN_UNTIL } from '../../helpers/golden-objects.js'
import { fixture, NO_SHARED, sharedFixture } from '../../helpers/paths.js'
import { handMadeObject } from '../../helpers/signed-objects.js'
import { throwsRule } from '../../helpers/throws-rule.js'

const golden = (p: string): Uint8Array => new Uint8Array(readFileSync(fixture('objects', p)))
const ca = testKey('rpki-ca')
const issuer = { key: ca, name: ca.keyId, crlUri: `${GOLDEN_BASE}repo/ca/${ca.keyId}.crl`, certUri: `${GOLDEN_BASE}repo/ta/${ca.keyId}.cer` }
const ee = { serial: 6n, uri: `${GOLDEN_BASE}repo/ca/AS65001.asa`, notBefore: GOLDEN_FROM, notAfter: GOLDEN_UNTIL, signingTime: GOLDEN_FROM }
const PROFILE = 'draft-ietf-sidrops-aspa-profile'

t.test('our ASPA: version [0] 1, customer, providers ascending as plain INTEGERs; EE with the customer AS only', async (t) => {
  const a = decodeAspa(golden('sample/repo/ca/AS65001.asa'))
  t.equal(toHex(a.signedObject.eContent), '3016a003020101020300fde9300a020300fdea020300fdeb')
  t.equal(a.version, 1)
  t.equal(a.customer, 65001)
  t.same(a.providers, [65002, 65003], 'sorted although given as 65003, 65002')
  t.equal(a.ee.extensions.ip, undefined, 'no IP resources')
  t.equal(a.ee.extensions.as?.asn?.toString(), 'AS65001')
  t.same(inspectAspa(a), [])
  const taCert = verifyCert(decodeCert(golden('sample/ta/ta.cer')), 'self', GOLDEN_NOW)
  const caCert = verifyCert(decodeCert(golden(`sample/repo/ta/${ca.keyId}.cer`)), taCert, GOLDEN_NOW)
  t.equal(verifyAspa(a, caCert, GOLDEN_NOW).resources.asn.toString(), 'AS65001')
})

t.test('buildAspa: providers deduplicated; no empty set, no customer among them, AS numbers only', async (t) => {
  const k = testKey('rpki-ee-4')
  t.same(decodeAspa(buildAspa({ customer: 1, providers: [5, 3, 5, 4294967295] }, k, issuer, ee)).providers, [3, 5, 4294967295])
  throwsRule(t, () => buildAspa({ customer: 1, providers: [] }, k, issuer, ee), `${PROFILE} §3.3`)
  throwsRule(t, () => buildAspa({ customer: 1, providers: [2, 1] }, k, issuer, ee), `${PROFILE} §3.3`, { message: /own provider/ })
  throwsRule(t, () => buildAspa({ customer: -1, providers: [2] }, k, issuer, ee), `${PROFILE} §3.2`)
  throwsRule(t, () => buildAspa({ customer: 1, providers: [2 ** 32] }, k, issuer, ee), `${PROFILE} §3.3`)
})

t.test('inspect: version, provider order and uniqueness, customer as provider, EE resources', async (t) => {
  const aspa = (version: number, customer: number, providers: number[], res: object = { asn: AsBlocks.parse('AS65001') }) =>
    decodeAspa(handMadeObject(idCtAspa, seq(explicit(0, int(version)), int(customer), seqOf(providers.map((p) => int(p)))), res))
  const rules = (a: ReturnType<typeof aspa>) => errorsOf(inspectAspa(a)).map((p) => [p.rule, p.message])
  t.same(rules(aspa(1, 65001, [1, 2])), [])
  t.same(rules(aspa(2, 65001, [1, 2])), [[`${PROFILE} §3.1`, 'version 2, expected 1']])
  t.same(rules(aspa(1, 65001, [2, 1])), [[`${PROFILE} §3.3`, 'providers are not in ascending order without duplicates']])
  t.same(rules(aspa(1, 65001, [1, 1])), [[`${PROFILE} §3.3`, 'providers are not in ascending order without duplicates']])
  t.same(rules(aspa(1, 65001, [])), [[`${PROFILE} §3.3`, 'the provider set is empty']])
  t.same(rules(aspa(1, 65001, [65001])), [[`${PROFILE} §3.3`, 'the customer AS65001 is listed as its own provider']])
  t.same(rules(aspa(1, 65001, [1], { asn: AsBlocks.parse('AS65002') })), [[`${PROFILE} §4`, 'the EE certificate does not hold AS65001']])
  t.same(rules(aspa(1, 65001, [1], { asn: 'inherit' })), [[`${PROFILE} §4`, 'inherit elements not allowed in EE cert']])
  t.same(rules(aspa(1, 65001, [1], { asn: AsBlocks.parse('AS65001'), ipv4: IpBlocks.parse('10.0.0.0/8', 4) })), [[`${PROFILE} §4`, 'the EE certificate has IP resources']])
})

t.test('real ASPAs: the current profile decodes clean; legacy drafts fail to decode with a clear message', { skip: NO_SHARED }, async (t) => {
  const read = (f: string) => new Uint8Array(readFileSync(sharedFixture('objects/aspa', f)!))
  const current: [string, number, number[]][] = [
    ['krill-testbed-AS204325.asa', 204325, []], ['apnic-rpki-aspa-demo-AS1000.asa', 1000, [1025]],
    ['sobornost-draft-sample-5m80fwYws_3FiFD7JiQjAqZ1RYQ.asa', 15562, []],
  ]
  for (const [file, customer, providers] of current) {
    const a = decodeAspa(read(file))
    t.equal(a.customer, customer, `${file}: customer`)
    if (providers.length > 0) t.same(a.providers, providers, `${file}: providers`)
    t.same(errorsOf(inspectAspa(a)), [], `${file}: no profile problem`)
  }
  for (const file of ['ripencc-prepdev-2022-old-draft.asa', 'krill-accept-2021-profile13-AS211321.asa', 'rpkimancer-profile13-no-signingtime.asa']) {
    throwsRule(t, () => decodeAspa(read(file)), `${PROFILE} §3`, { name: 'DecodeError', message: /legacy ASPA from an older draft/ }, file)
  }
})
