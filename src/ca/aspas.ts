/**
 * ASPA configuration of a CA (krill-reference.md §1.1 "ASPA", draft-ietf-sidrops-aspa-profile): the checks of a
 * definitions update and of a providers update (Krill's `ca-aspa-*` labels; when one fails nothing changes), the
 * events they produce, and the ASPA objects a resource class issues (one per customer AS it holds). Pure domain code.
 */
import { AppError } from '../errors.js'
import { aspaFileName } from '../objects/naming.js'
import type { AsBlocks } from '../resources/asn.js'
import type { ResourceSet } from '../resources/resource-set.js'

/** Stored in the CA snapshot: changing this shape needs a migration. Providers ascending and unique. */
export interface AspaConfig {
  customer: number
  providers: number[]
}

/** Stored in the history (inside aspa events): changing this shape needs a migration. */
export type AspaEvent =
  | { type: 'aspa-config-added'; customer: number; providers: number[] }
  | { type: 'aspa-config-updated'; customer: number; providers: number[]; added: number[]; removed: number[] }
  | { type: 'aspa-config-removed'; customer: number }

/** The configurations, customer ascending (the listing order). */
export function aspaConfigs(configs: Record<string, AspaConfig> | undefined): AspaConfig[] {
  return Object.values(configs ?? {}).sort((a, b) => a.customer - b.customer)
}

/**
 * Krill's `AspaDefinitionUpdates`: definitions to add or replace and customers to remove, checked together. A
 * customer may appear once; a removed customer must have a definition; each definition must pass `checkAspa`.
 */
export function checkAspasUpdate(ca: string, configs: Record<string, AspaConfig> | undefined, held: ResourceSet, addOrReplace: readonly AspaConfig[], remove: readonly number[]): AspaEvent[] {
  const seen = new Set<number>()
  const events: AspaEvent[] = []
  for (const customer of remove) {
    if (seen.has(customer)) throw new AppError('ca-aspa-customer-as-duplicate', { ca, customer: asText(customer) })
    seen.add(customer)
    if (!configs?.[customer]) throw new AppError('ca-aspa-unknown-customer-as', { ca, customer: asText(customer) })
    events.push({ type: 'aspa-config-removed', customer })
  }
  for (const d of addOrReplace) {
    if (seen.has(d.customer)) throw new AppError('ca-aspa-customer-as-duplicate', { ca, customer: asText(d.customer) })
    seen.add(d.customer)
    const providers = checkAspa(ca, held, d.customer, d.providers)
    const before = configs?.[d.customer]
    if (!before) events.push({ type: 'aspa-config-added', customer: d.customer, providers })
    else if (!sameList(before.providers, providers)) events.push(changed(before, providers))
  }
  return events
}

/**
 * Krill's `AspaProvidersUpdate` on one customer: add and remove providers. Adding to an unknown customer creates its
 * definition; removing every provider removes it; adding a present or removing an absent provider changes nothing.
 */
export function checkAspaProvidersUpdate(ca: string, configs: Record<string, AspaConfig> | undefined, held: ResourceSet, customer: number, added: readonly number[], removed: readonly number[]): AspaEvent[] {
  const listed = [...added, ...removed]
  const twice = listed.filter((p, i) => listed.indexOf(p) !== i)
  if (twice.length > 0) throw new AppError('ca-aspa-provider-duplicates', { ca, customer: asText(customer), providers: asList([...new Set(twice)]) })
  const before = configs?.[customer]
  if (!before && added.length === 0) throw new AppError('ca-aspa-unknown-customer-as', { ca, customer: asText(customer) })
  const gone = new Set(removed)
  const next = [...new Set([...(before?.providers ?? []), ...added])].filter((p) => !gone.has(p))
  if (before && next.length === 0) return [{ type: 'aspa-config-removed', customer }]
  const providers = checkAspa(ca, held, customer, next)
  if (!before) return [{ type: 'aspa-config-added', customer, providers }]
  return sameList(before.providers, providers) ? [] : [changed(before, providers)]
}

/**
 * One definition's rules (draft-ietf-sidrops-aspa-profile §3.3 and Krill #1050, #1058): at least one provider, no
 * provider twice, the customer not among its providers, AS0 only alone; and the customer AS held by the CA (Krill's
 * `ca-aspa-not-entitled`). Returns the providers ascending.
 */
export function checkAspa(ca: string, held: ResourceSet, customer: number, providers: readonly number[]): number[] {
  const args = { ca, customer: asText(customer) }
  if (providers.length === 0) throw new AppError('ca-aspa-provider-as-empty', args)
  const twice = providers.filter((p, i) => providers.indexOf(p) !== i)
  if (twice.length > 0) throw new AppError('ca-aspa-provider-duplicates', { ...args, providers: asList([...new Set(twice)]) })
  if (providers.includes(customer)) throw new AppError('ca-aspa-customer-as-provider', args)
  // draft-ietf-sidrops-aspa-profile §3.3: AS0 says "no provider at all", so it stands alone.
  if (providers.includes(0) && providers.length > 1) throw new AppError('ca-aspa-provider-as0', args)
  if (!held.asn.containsAsn(customer)) throw new AppError('ca-aspa-not-entitled', args)
  return [...providers].sort((a, b) => a - b)
}

/** Fold an ASPA event into the configurations (used by the aggregate's apply). */
export function applyAspaEvent(configs: Record<string, AspaConfig>, e: AspaEvent): void {
  if (e.type === 'aspa-config-removed') delete configs[e.customer]
  else configs[e.customer] = { customer: e.customer, providers: e.providers }
}

/** One ASPA object to issue: its file name and content. */
export interface PlannedAspa {
  name: string
  customer: number
  providers: number[]
}

/**
 * The ASPA objects of a key: one per configured customer AS that its certificate holds, customer ascending. An ASPA
 * whose customer is no longer held disappears, and comes back with the resource, because this is recomputed each time.
 */
export function planAspas(configs: Record<string, AspaConfig> | undefined, held: AsBlocks): PlannedAspa[] {
  return aspaConfigs(configs).filter((c) => held.containsAsn(c.customer)).map((c) => ({ name: aspaFileName(c.customer), customer: c.customer, providers: c.providers }))
}

/** "AS65000 => AS65001, AS65002", the text form of a definition (Krill's `AspaDefinition` Display). */
export function aspaLine(c: AspaConfig): string {
  return `${asText(c.customer)} => ${asList(c.providers)}`
}

/** A one-line description of an ASPA event, for `svcc action`. */
export function aspaEventSummary(e: AspaEvent): string {
  switch (e.type) {
    case 'aspa-config-added': return `added ASPA ${aspaLine(e)}`
    case 'aspa-config-updated': return `updated ASPA ${aspaLine(e)} (added: ${asList(e.added) || 'none'}; removed: ${asList(e.removed) || 'none'})`
    case 'aspa-config-removed': return `removed the ASPA of ${asText(e.customer)}`
  }
}

function changed(before: AspaConfig, providers: number[]): AspaEvent {
  const added = providers.filter((p) => !before.providers.includes(p))
  const removed = before.providers.filter((p) => !providers.includes(p))
  return { type: 'aspa-config-updated', customer: before.customer, providers, added, removed }
}

export function asText(asn: number): string {
  return `AS${asn}`
}

export function asList(asns: readonly number[]): string {
  return asns.map(asText).join(', ')
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}
