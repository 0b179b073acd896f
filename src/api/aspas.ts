/**
 * Wire types of ASPA management (krill-reference.md §1.1 "ASPA", krill:src/api/aspa.rs): the definitions update of
 * POST /api/v1/cas/{ca}/aspas and the providers update of POST /api/v1/cas/{ca}/aspas/as/{customer}, with their body
 * checks. AS numbers are JSON numbers (rpki-rs `Asn` serialises as a u32); the listing type is api/cas.ts's
 * AspaDefinitionJson.
 */
import { ASN_MAX, parseAsn } from '../resources/asn.js'
import type { AspaDefinitionJson } from './cas.js'

/** POST /api/v1/cas/{ca}/aspas: `{"add_or_replace":[{"customer":65000,"providers":[65001]}],"remove":[65002]}`. */
export interface AspaDefinitionUpdatesJson {
  add_or_replace: AspaDefinitionJson[]
  remove: number[]
}

/** POST /api/v1/cas/{ca}/aspas/as/{customer}: `{"added":[65005],"removed":[65001]}`. */
export interface AspaProvidersUpdateJson {
  added: number[]
  removed: number[]
}

const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isAsn = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= ASN_MAX

/** A list of AS numbers under `name`, or what is wrong with it. */
function asnList(v: unknown, name: string): string | undefined {
  if (!Array.isArray(v)) return `"${name}" must be a list of AS numbers`
  const bad = v.find((x) => !isAsn(x))
  return bad === undefined ? undefined : `"${name}": ${JSON.stringify(bad)} is not an AS number (0 to ${ASN_MAX})`
}

export function checkAspaDefinitionUpdates(v: unknown): string | undefined {
  if (!obj(v) || !Array.isArray(v.add_or_replace) || !Array.isArray(v.remove)) return 'expected {"add_or_replace":[{"customer":…,"providers":[…]}],"remove":[…]}'
  for (const d of v.add_or_replace as unknown[]) {
    if (!obj(d) || !isAsn(d.customer)) return `each definition needs "customer" (an AS number, 0 to ${ASN_MAX}) and "providers"`
    const p = asnList(d.providers, 'providers')
    if (p) return p
  }
  return asnList(v.remove, 'remove')
}

export function checkAspaProvidersUpdate(v: unknown): string | undefined {
  if (!obj(v)) return 'expected {"added":[…],"removed":[…]}'
  return asnList(v.added, 'added') ?? asnList(v.removed, 'removed')
}

/** The customer in a path (`AS65000` or `65000`), or undefined when it is not an AS number. */
export function customerFromPath(text: string): number | undefined {
  try {
    return parseAsn(text)
  } catch {
    return undefined
  }
}
