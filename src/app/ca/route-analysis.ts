/**
 * What the BGP analysis answers of CaService (routes/analysis/full, /suggest, /dryrun; krill-reference.md §1.1) are
 * computed from, besides the configured ROAs as listed: the configuration a ROA delta would leave (checked exactly
 * as the update checks it, with nothing changed), and the scope of a suggestion. The analysis is bgp-analysis.ts.
 */
import type { ConfiguredRoa, RoaDeltaJson } from '../../api/cas.js'
import { applyRouteChanges, checkRoaDelta, routePayload, type RouteConfig } from '../../ca/routes.js'
import { heldResources } from '../../ca/children.js'
import type { CaState } from '../../ca/state.js'
import { AppError, reasonOf } from '../../errors.js'
import { compareRoaPayloads, parseRoaPayload, type RoaConfiguration, type RoaPayload } from '../../resources/roa-payload.js'
import { ResourceSet, type ResourceSetText } from '../../resources/resource-set.js'

/**
 * The configured ROAs (without objects: none are made in a dry run) that the delta would leave, in listing order. A
 * delta the update would refuse is refused here the same way (ca-roa-delta-syntax, ca-roa-delta-error).
 */
export function roasAfterDelta(s: CaState, delta: RoaDeltaJson, now: Date): ConfiguredRoa[] {
  const text = (r: RoaDeltaJson['added'][number]) => `${r.prefix}-${r.max_length ?? r.prefix.split('/')[1]} => ${r.asn}`
  let added: RoaConfiguration[]
  let removed: RoaPayload[]
  try {
    added = (delta.added ?? []).map((r) => ({ payload: parseRoaPayload(text(r)), ...(r.comment ? { comment: r.comment } : {}) }))
    removed = (delta.removed ?? []).map((r) => parseRoaPayload(text(r)))
  } catch (e) {
    throw new AppError('ca-roa-delta-syntax', { reason: reasonOf(e) })
  }
  const changes = checkRoaDelta(s.routes, added, removed, heldResources(s), now)
  // A copy: applyRouteChanges edits comments in place, and the state's configurations must stay as they are.
  const routes: Record<string, RouteConfig> = { ...s.routes }
  for (const { key } of changes.comments) {
    const r = routes[key]
    if (r) routes[key] = { ...r }
  }
  applyRouteChanges(routes, changes)
  return Object.values(routes)
    .map((r) => ({ r, p: routePayload(r) }))
    .sort((a, b) => compareRoaPayloads(a.p, b.p))
    .map(({ r }) => ({ asn: r.asn, prefix: r.prefix, max_length: r.maxLength, comment: r.comment ?? null, roa_objects: [] }))
}

/** The resource set a suggestion is limited to (Krill's POST …/suggest body); bad text is a labelled 400. */
export function suggestionScope(body: Partial<ResourceSetText> & { v4?: string; v6?: string }): ResourceSet {
  // `v4` and `v6` are accepted for `ipv4` and `ipv6`, as rpki-rs reads a ResourceSet (api/cas.ts resourcesFromJson).
  const r = { asn: body.asn, ipv4: body.ipv4 ?? body.v4, ipv6: body.ipv6 ?? body.v6 }
  try {
    return ResourceSet.parse({ asn: r.asn ?? '', ipv4: r.ipv4 ?? '', ipv6: r.ipv6 ?? '' })
  } catch (e) {
    throw new AppError('api-invalid-body', { reason: `resources: ${reasonOf(e)}` })
  }
}
