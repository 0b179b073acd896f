/**
 * BGPsec router key definitions (krill-reference.md §1.1 "BGPsec"): each refusal with its label and nothing changed
 * (unreadable request, not P-256, not signed by its key, AS not held, unknown key), idempotent add, Krill's key names,
 * the history text, and which router certificates a key plans.
 */
import t, { type Test } from 'tap'
import { applyBgpSecEvent, bgpSecDefinitions, bgpSecKey, checkBgpSecUpdate, planRouterCerts, type BgpSecDefinition } from '../../../src/ca/bgpsec.js'
import { commandSummary } from '../../../src/ca/commands.js'
import { eventSummary } from '../../../src/ca/events.js'
import { AppError } from '../../../src/errors.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'
import { toBase64 } from '../../../src/util/base64.js'
import { routerCsr, routerKey } from '../../helpers/router.js'

const held = ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '' })
const key = routerKey()
const csr = toBase64(routerCsr(key))

function refused(t: Test, fn: () => unknown, label: string): void {
  try {
    fn()
    t.fail(`expected ${label}`)
  } catch (e) {
    t.ok(e instanceof AppError)
    t.equal((e as AppError).label, label)
    t.equal((e as AppError).status, 400)
  }
}

t.test('add: named ROUTER-<asn hex>-<key id>; the same request again changes nothing', async (t) => {
  const defs: Record<string, BgpSecDefinition> = {}
  const events = checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr }], [])
  t.same(events, [{ type: 'bgpsec-definition-added', definition: { asn: 65000, keyId: key.keyId, csr } }])
  for (const e of events) applyBgpSecEvent(defs, e)
  t.same(Object.keys(defs), [`ROUTER-0000FDE8-${key.keyId}`])
  t.equal(bgpSecKey({ asn: 65000, keyId: key.keyId.toLowerCase() }), `ROUTER-0000FDE8-${key.keyId}`)
  t.same(checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr }], []), [], 'idempotent')
  t.equal(eventSummary(events[0]!), `added router key ROUTER-0000FDE8-${key.keyId} for AS65000`)
  const other = checkBgpSecUpdate('ca1', defs, held, [{ asn: 65001, csr }], [])
  t.equal(other.length, 1, 'the same key for another AS is another definition')
})

t.test('refusals, each with its label; nothing changes', async (t) => {
  const defs: Record<string, BgpSecDefinition> = {}
  for (const e of checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr }], [])) applyBgpSecEvent(defs, e)
  const before = structuredClone(defs)
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr: 'AAAA' }], []), 'ca-bgpsec-csr-invalid')
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr: toBase64(routerCsr(routerKey('P-384'))) }], []), 'ca-bgpsec-csr-invalid')
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [{ asn: 65000, csr: toBase64(routerCsr(key, { signer: routerKey().privateKey })) }], []), 'ca-bgpsec-invalidly-signed')
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [{ asn: 64000, csr }], []), 'ca-bgpsec-not-entitled')
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [], [`ROUTER-0000FDE9-${key.keyId}`]), 'ca-bgpsec-unknown')
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [], [`ROUTER-0000FDE8-${key.keyId}`, `ROUTER-0000FDE8-${key.keyId}`]), 'ca-bgpsec-unknown')
  // A good removal with a bad addition: nothing at all.
  refused(t, () => checkBgpSecUpdate('ca1', defs, held, [{ asn: 64000, csr }], [`ROUTER-0000FDE8-${key.keyId}`]), 'ca-bgpsec-not-entitled')
  t.same(defs, before)
  const removed = checkBgpSecUpdate('ca1', defs, held, [], [`router-0000fde8-${key.keyId.toLowerCase()}`])
  t.same(removed, [{ type: 'bgpsec-definition-removed', key: `ROUTER-0000FDE8-${key.keyId}` }], 'names are not case sensitive')
})

t.test('history text and planning', async (t) => {
  t.same(commandSummary({ type: 'bgpsec-update', add: [{ asn: 65000, csr }], remove: ['ROUTER-0000FDE8-AB'] }), {
    label: 'cmd-bgpsec-update', msg: "Update BGPsec router keys: add a router key for AS65000; remove 'ROUTER-0000FDE8-AB'", args: { added: '1', removed: '1' },
  })
  const defs: Record<string, BgpSecDefinition> = {}
  for (const e of checkBgpSecUpdate('ca1', defs, held, [{ asn: 65003, csr }, { asn: 65000, csr }], [])) applyBgpSecEvent(defs, e)
  t.same(bgpSecDefinitions(defs).map((d) => d.asn), [65000, 65003])
  t.same(planRouterCerts(defs, AsBlocks.parse('AS65000-65002')).map((p) => p.name), [`ROUTER-0000FDE8-${key.keyId}.cer`], 'only ASes the key holds')
  t.same(planRouterCerts(undefined, AsBlocks.parse('AS65000')), [])
})
