/**
 * ASPA definitions (krill-reference.md §1.1 "ASPA", Krill's functional_aspa.rs): every refusal with its label and
 * nothing changed, add or replace, removal, providers update semantics (idempotent, remove-all deletes, add creates),
 * the history text, and which ASPA objects a key plans (only customers its certificate holds).
 */
import t, { type Test } from 'tap'
import { applyAspaEvent, aspaConfigs, checkAspaProvidersUpdate, checkAspasUpdate, planAspas, type AspaConfig } from '../../../src/ca/aspas.js'
import { commandSummary } from '../../../src/ca/commands.js'
import { eventSummary } from '../../../src/ca/events.js'
import { AppError } from '../../../src/errors.js'
import { AsBlocks } from '../../../src/resources/asn.js'
import { ResourceSet } from '../../../src/resources/resource-set.js'

const held = ResourceSet.parse({ asn: 'AS65000-65010', ipv4: '10.0.0.0/8', ipv6: '' })
const def = (customer: number, ...providers: number[]): AspaConfig => ({ customer, providers })

function configs(...defs: AspaConfig[]): Record<string, AspaConfig> {
  const c: Record<string, AspaConfig> = {}
  for (const e of checkAspasUpdate('ca1', c, held, defs, [])) applyAspaEvent(c, e)
  return c
}

function refused(t: Test, fn: () => unknown, label: string, args?: Record<string, string>): void {
  try {
    fn()
    t.fail(`expected ${label}`)
  } catch (e) {
    t.ok(e instanceof AppError, 'an AppError')
    t.equal((e as AppError).label, label)
    t.equal((e as AppError).status, 400)
    if (args) t.match((e as AppError).args, args)
  }
}

t.test('add: providers sorted; a replace records what changed; the same definition again changes nothing', async (t) => {
  const c = configs(def(65000, 65002, 65001))
  t.same(aspaConfigs(c), [def(65000, 65001, 65002)])
  t.same(checkAspasUpdate('ca1', c, held, [def(65000, 65002, 65001)], []), [], 'idempotent')
  const replaced = checkAspasUpdate('ca1', c, held, [def(65000, 65002, 65005)], [])
  t.same(replaced, [{ type: 'aspa-config-updated', customer: 65000, providers: [65002, 65005], added: [65005], removed: [65001] }])
  t.equal(eventSummary(replaced[0]!), 'updated ASPA AS65000 => AS65002, AS65005 (added: AS65005; removed: AS65001)')
})

t.test('refusals, each with its label; nothing changes', async (t) => {
  const c = configs(def(65000, 65001))
  const before = structuredClone(c)
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(64999, 65001)], []), 'ca-aspa-not-entitled', { ca: 'ca1', customer: 'AS64999' })
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65001, 65001, 65002)], []), 'ca-aspa-customer-as-provider', { customer: 'AS65001' })
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65001, 65002, 65003, 65002)], []), 'ca-aspa-provider-duplicates', { providers: 'AS65002' })
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65001)], []), 'ca-aspa-provider-as-empty')
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65001, 0, 65002)], []), 'ca-aspa-provider-as0')
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65001, 65002), def(65001, 65003)], []), 'ca-aspa-customer-as-duplicate')
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65000, 65003)], [65000]), 'ca-aspa-customer-as-duplicate')
  refused(t, () => checkAspasUpdate('ca1', c, held, [], [65003]), 'ca-aspa-unknown-customer-as', { customer: 'AS65003' })
  // One bad definition refuses the whole update, the good one included.
  refused(t, () => checkAspasUpdate('ca1', c, held, [def(65002, 65003), def(65004)], []), 'ca-aspa-provider-as-empty')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 65000, [65000], []), 'ca-aspa-customer-as-provider')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 65000, [65003, 65003], []), 'ca-aspa-provider-duplicates')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 65000, [65003], [65003]), 'ca-aspa-provider-duplicates')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 65000, [0], []), 'ca-aspa-provider-as0')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 65009, [], [65001]), 'ca-aspa-unknown-customer-as')
  refused(t, () => checkAspaProvidersUpdate('ca1', c, held, 64000, [65001], []), 'ca-aspa-not-entitled')
  t.same(c, before, 'the configuration is unchanged')
  t.same(checkAspasUpdate('ca1', c, held, [def(65001, 0)], []), [{ type: 'aspa-config-added', customer: 65001, providers: [0] }], 'AS0 alone is fine')
})

t.test('providers update: add, remove, idempotent, remove-all deletes, add to an unknown customer creates', async (t) => {
  const c = configs(def(65000, 65001, 65002))
  t.same(checkAspaProvidersUpdate('ca1', c, held, 65000, [65005], [65001]), [{ type: 'aspa-config-updated', customer: 65000, providers: [65002, 65005], added: [65005], removed: [65001] }])
  t.same(checkAspaProvidersUpdate('ca1', c, held, 65000, [65001], [65009]), [], 'adding a present and removing an absent provider changes nothing')
  t.same(checkAspaProvidersUpdate('ca1', c, held, 65000, [], [65001, 65002]), [{ type: 'aspa-config-removed', customer: 65000 }], 'removing all deletes')
  t.same(checkAspaProvidersUpdate('ca1', c, held, 65003, [65001], []), [{ type: 'aspa-config-added', customer: 65003, providers: [65001] }], 'adding creates')
  for (const e of checkAspaProvidersUpdate('ca1', c, held, 65000, [], [65001, 65002])) applyAspaEvent(c, e)
  t.same(aspaConfigs(c), [])
})

t.test('removal, listing order and the history text', async (t) => {
  const c = configs(def(65007, 65001), def(65000, 65001))
  t.same(aspaConfigs(c).map((x) => x.customer), [65000, 65007], 'customer ascending')
  const events = checkAspasUpdate('ca1', c, held, [], [65007])
  t.same(events, [{ type: 'aspa-config-removed', customer: 65007 }])
  t.equal(eventSummary(events[0]!), 'removed the ASPA of AS65007')
  t.same(commandSummary({ type: 'aspas-update', addOrReplace: [def(65000, 65001, 65002)], remove: [65007] }), {
    label: 'cmd-ca-aspas-update', msg: "Update ASPAs: add or replace 'AS65000 => AS65001, AS65002'; remove 'AS65007'", args: { added: '1', removed: '1' },
  })
  t.equal(commandSummary({ type: 'aspas-update', addOrReplace: [], remove: [65007] }).label, 'cmd-ca-aspas-remove')
  t.same(commandSummary({ type: 'aspa-providers-update', customer: 65000, added: [65005], removed: [65001] }), {
    label: 'cmd-ca-aspas-update-existing', msg: 'Update ASPA providers of AS65000: add AS65005, remove AS65001', args: { customer: 'AS65000', added: 'AS65005', removed: 'AS65001' },
  })
})

t.test('planning: one ASPA per customer the key holds, named AS<customer>.asa', async (t) => {
  const c = configs(def(65003, 65001), def(65000, 65002, 65001))
  t.same(planAspas(c, AsBlocks.parse('AS65000-65010')), [
    { name: 'AS65000.asa', customer: 65000, providers: [65001, 65002] },
    { name: 'AS65003.asa', customer: 65003, providers: [65001] },
  ])
  t.same(planAspas(c, AsBlocks.parse('AS65000')).map((p) => p.name), ['AS65000.asa'], 'a customer no longer held has no ASPA')
  t.same(planAspas(undefined, AsBlocks.parse('AS65000')), [], 'a CA without definitions plans none')
})
