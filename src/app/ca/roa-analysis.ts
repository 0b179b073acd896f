/**
 * What the BGP analysis answers of CaService (routes/analysis/full, /suggest, /dryrun; krill-reference.md §1.1) are
 * computed from, besides the configured ROAs as listed: the configuration a ROA delta would leave (checked exactly
 * as the update checks it, with nothing changed), and the scope of a suggestion. The analysis is bgp-analysis.ts.
 */
import type { ConfiguredRoa, RoaDeltaJson } from '../../api/cas.js'
import { applyRoaChanges, checkRoaDeltaInput, roaConfigPayload, type RoaConfig } from '../../ca/roas.js'
import { heldResources } from '../../ca/children.js'
import type { CaState } from '../../ca/state.js'
import { AppError, reasonOf } from '../../errors.js'
import { compareRoaPayloads, type RoaPayload } from '../../resources/roa-payload.js'
import { ResourceSet, type ResourceSetText } from '../../resources/resource-set.js'
import { runSliced, sliceCounter, sortSteps, type Sliced } from '../../util/slices.js'

/**
 * The configured ROAs (without objects: none are made in a dry run) that the delta would leave, in listing order. A
 * delta the update would refuse is refused here the same way (ca-roa-delta-syntax, ca-roa-delta-error). Done in
 * slices, awaiting `pause` between them: a dry run of 400,000 held the event loop for 10 s (issue 22).
 */
export async function roasAfterDelta(s: CaState, delta: RoaDeltaJson, now: Date, pause?: () => Promise<void>): Promise<ConfiguredRoa[]> {
  const changes = await checkRoaDeltaInput(s.routes, { added: delta.added ?? [], removed: delta.removed ?? [] }, heldResources(s), now, pause, s.handle)
  return runSliced(afterSteps(s.routes, changes), pause)
}

function* afterSteps(current: Record<string, RoaConfig>, changes: Parameters<typeof applyRoaChanges>[1]): Sliced<ConfiguredRoa[]> {
  const due = sliceCounter()
  // A copy: applyRoaChanges edits comments in place, and the state's configurations must stay as they are.
  const routes: Record<string, RoaConfig> = {}
  for (const key in current) {
    routes[key] = current[key]!
    if (due()) yield
  }
  for (const { key } of changes.comments) {
    const r = routes[key]
    if (r) routes[key] = { ...r }
  }
  applyRoaChanges(routes, changes)
  yield
  const keyed: { r: RoaConfig; p: RoaPayload }[] = []
  for (const key in routes) {
    const r = routes[key]!
    keyed.push({ r, p: roaConfigPayload(r) })
    if (due()) yield
  }
  yield* sortSteps(keyed, (a, b) => compareRoaPayloads(a.p, b.p))
  const out: ConfiguredRoa[] = []
  for (const { r } of keyed) {
    out.push({ asn: r.asn, prefix: r.prefix, max_length: r.maxLength, comment: r.comment ?? null, roa_objects: [] })
    if (due()) yield
  }
  return out
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
