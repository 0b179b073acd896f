/**
 * Route origin authorisations of a CA (spec §2.7–§2.8, krill-reference.md §5): the configured authorisations, the
 * atomic delta check (unknowns, duplicates, invalid lengths, not held: all reported together), the per-resource-class
 * aggregation mode with hysteresis, and the grouping of authorisations into ROA objects. Pure domain code.
 */
import { AppError, reasonOf, type DeltaRoa } from '../errors.js'
import { formatPrefix, parsePrefix } from '../resources/ip.js'
import { checkMaxLength, compareRoaPayloads, parseRoaPayload, roaPayloadKey, type RoaConfiguration, type RoaPayload } from '../resources/roa-payload.js'
import type { ResourceSet } from '../resources/resource-set.js'
import { runSliced, runSync, sliceCounter, sortSteps, type Sliced } from '../util/slices.js'

/** Stored in the CA snapshot: changing this shape needs a migration. */
export interface RoaConfig {
  asn: number
  prefix: string
  maxLength: number
  comment?: string
  /** When it was added (ISO 8601). */
  since: string
}

export interface RoaChanges {
  added: RoaConfig[]
  removed: string[]
  comments: { key: string; comment?: string }[]
}

export type RoaMode = 'simple' | 'aggregate'

/** The payload of a stored configuration. */
export function roaConfigPayload(r: RoaConfig): RoaPayload {
  return { asn: r.asn, prefix: parsePrefix(r.prefix), maxLength: r.maxLength }
}

/** A delta as the API and the command carry it: max_length absent means the prefix length. */
export interface RoaDeltaInput {
  added: readonly { asn: number; prefix: string; max_length?: number; comment?: string | null }[]
  removed: readonly { asn: number; prefix: string; max_length?: number }[]
}

/**
 * Check a delta against the current configuration and the CA's resources; all problems are reported together in
 * one `ca-roa-delta-error` (with Krill's `delta_error` lists) and then nothing changes.
 */
export function checkRoaDelta(current: Record<string, RoaConfig>, added: readonly RoaConfiguration[], removed: readonly RoaPayload[], held: ResourceSet, now: Date): RoaChanges {
  return runSync(checkSteps(current, added, removed, held, now))
}

/**
 * Parse a delta (a line that does not parse: `ca-roa-delta-syntax`) and check it as checkRoaDelta does, awaiting
 * `pause` between slices of a few thousand lines so that a large delta does not hold the event loop (issue 22).
 */
export async function checkRoaDeltaInput(current: Record<string, RoaConfig>, delta: RoaDeltaInput, held: ResourceSet, now: Date, pause?: () => Promise<void>, ca?: string): Promise<RoaChanges> {
  const { added, removed } = await runSliced(parseSteps(delta), pause)
  try {
    return await runSliced(checkSteps(current, added, removed, held, now), pause)
  } catch (e) {
    // Krill names the CA in the args of a refused delta.
    if (ca !== undefined && e instanceof AppError && e.label === 'ca-roa-delta-error') throw new AppError(e.label, { ca }, { extra: e.extra })
    throw e
  }
}

function* parseSteps(delta: RoaDeltaInput): Sliced<{ added: RoaConfiguration[]; removed: RoaPayload[] }> {
  const text = (r: RoaDeltaInput['removed'][number]) => `${r.prefix}-${r.max_length ?? r.prefix.split('/')[1]} => ${r.asn}`
  const added: RoaConfiguration[] = []
  const removed: RoaPayload[] = []
  const due = sliceCounter()
  try {
    for (const r of delta.added) {
      added.push({ payload: parseRoaPayload(text(r)), ...(r.comment ? { comment: r.comment } : {}) })
      if (due()) yield
    }
    for (const r of delta.removed) {
      removed.push(parseRoaPayload(text(r)))
      if (due()) yield
    }
  } catch (e) {
    throw new AppError('ca-roa-delta-syntax', { reason: reasonOf(e) })
  }
  return { added, removed }
}

function* checkSteps(current: Record<string, RoaConfig>, added: readonly RoaConfiguration[], removed: readonly RoaPayload[], held: ResourceSet, now: Date): Sliced<RoaChanges> {
  const problems = { unknowns: [] as DeltaRoa[], duplicates: [] as DeltaRoa[], invalid_length: [] as DeltaRoa[], notheld: [] as DeltaRoa[] }
  const due = sliceCounter()
  const removing = new Set<string>()
  for (const p of removed) {
    const key = roaPayloadKey(p)
    if (!(key in current) || removing.has(key)) problems.unknowns.push(deltaRoa(p))
    removing.add(key)
    if (due()) yield
  }
  const changes: RoaChanges = { added: [], removed: [...removing], comments: [] }
  const adding = new Set<string>()
  const since = now.toISOString()
  for (const { payload, comment } of added) {
    const prefix = formatPrefix(payload.prefix)
    // roaPayloadKey(payload), and routeKey of the configuration made of it.
    const key = `${prefix}-${payload.maxLength} => ${payload.asn}`
    const lengthProblem = checkMaxLength(payload)
    if (lengthProblem) problems.invalid_length.push({ ...deltaRoa(payload), reason: lengthProblem })
    else if (!held.ipv4.containsPrefix(payload.prefix) && !held.ipv6.containsPrefix(payload.prefix)) problems.notheld.push(deltaRoa(payload))
    if (adding.has(key)) problems.duplicates.push(deltaRoa(payload))
    else if (key in current && !removing.has(key)) {
      if ((current[key].comment ?? undefined) === (comment || undefined)) problems.duplicates.push(deltaRoa(payload))
      else changes.comments.push(comment ? { key, comment } : { key })
    } else changes.added.push({ asn: payload.asn, prefix, maxLength: payload.maxLength, ...(comment ? { comment } : {}), since })
    adding.add(key)
    if (due()) yield
  }
  const count = Object.values(problems).reduce((n, l) => n + l.length, 0)
  if (count > 0) {
    const delta_error = Object.fromEntries(Object.entries(problems).filter(([, l]) => l.length > 0))
    throw new AppError('ca-roa-delta-error', {}, { extra: { delta_error } })
  }
  return changes
}

/** A refused ROA as Krill's `delta_error` lists it: the max length only when it is not the prefix length. */
function deltaRoa(p: RoaPayload): DeltaRoa {
  return { asn: p.asn, prefix: formatPrefix(p.prefix), ...(p.maxLength === p.prefix.len ? {} : { max_length: p.maxLength }) }
}

/**
 * The key of a configuration the check made (its prefix is in canonical form, formatPrefix): roaPayloadKey of its
 * payload, without parsing the prefix again.
 */
function roaConfigKey(r: RoaConfig): string {
  return `${r.prefix}-${r.maxLength} => ${r.asn}`
}

/** Apply checked changes to a configuration (used by the aggregate's apply). */
export function applyRoaChanges(routes: Record<string, RoaConfig>, c: RoaChanges): void {
  for (const key of c.removed) delete routes[key]
  for (const r of c.added) routes[roaConfigKey(r)] = r
  for (const { key, comment } of c.comments) {
    if (!routes[key]) continue
    if (comment) routes[key].comment = comment
    else delete routes[key].comment
  }
}

/**
 * The aggregation mode of a resource class (krill-reference.md §5): above `aggregate` authorisations one ROA per
 * ASN, back to one ROA per authorisation below `deaggregate`; in between (and at 0) the mode stays.
 */
export function nextRoaMode(current: RoaMode, count: number, t: { aggregate: number; deaggregate: number }): RoaMode {
  if (current === 'simple' && count > t.aggregate) return 'aggregate'
  if (current === 'aggregate' && count > 0 && count < t.deaggregate) return 'simple'
  return current
}

/** One ROA object to issue: its file name, ASN and payloads (sorted, IPv4 first: RFC 9582 §4.3.1 order). */
export interface PlannedRoa {
  name: string
  asn: number
  payloads: RoaPayload[]
}

/**
 * The ROA objects of a resource class: the authorisations whose prefix the class holds, one object per
 * authorisation (simple) or per ASN (aggregate). ROAs for prefixes no longer held disappear, and come back
 * when the resources return, because this is recomputed from the configuration each time.
 */
export function planRoas(routes: readonly RoaConfig[], held: ResourceSet, mode: RoaMode, names: RoaNames): PlannedRoa[] {
  return runSync(planSteps(routes, held, mode, names))
}

/** planRoas in slices, awaiting `pause` between them (a CA with 100,000 authorisations; issue 22). */
export function planRoasSliced(routes: readonly RoaConfig[], held: ResourceSet, mode: RoaMode, names: RoaNames, pause: () => Promise<void>): Promise<PlannedRoa[]> {
  return runSliced(planSteps(routes, held, mode, names), pause)
}

type RoaNames = { simple(p: RoaPayload): string; aggregate(asn: number): string }

function* planSteps(routes: readonly RoaConfig[], held: ResourceSet, mode: RoaMode, names: RoaNames): Sliced<PlannedRoa[]> {
  const due = sliceCounter()
  const payloads: RoaPayload[] = []
  for (const r of routes) {
    const p = roaConfigPayload(r)
    if ((p.prefix.family === 4 ? held.ipv4 : held.ipv6).containsPrefix(p.prefix)) payloads.push(p)
    if (due()) yield
  }
  if (mode === 'simple') {
    yield* sortSteps(payloads, compareRoaPayloads)
    const out: PlannedRoa[] = []
    for (const p of payloads) {
      out.push({ name: names.simple(p), asn: p.asn, payloads: [p] })
      if (due()) yield
    }
    return out
  }
  const byAsn = new Map<number, RoaPayload[]>()
  for (const p of payloads) {
    const group = byAsn.get(p.asn)
    if (group) group.push(p)
    else byAsn.set(p.asn, [p])
  }
  const out: PlannedRoa[] = []
  for (const [asn, ps] of [...byAsn.entries()].sort(([a], [b]) => a - b)) {
    yield* sortSteps(ps, compareRoaPayloads)
    out.push({ name: names.aggregate(asn), asn, payloads: ps })
  }
  return out
}

