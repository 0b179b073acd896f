/**
 * ROA/ASPA export and import, and rollback, as plans (issue 27, design.md §12). Export hands out a CA's ROAs (in the
 * listing order) and ASPAs for http/routes/roa-io.ts to write as CSV or JSON (api/roa-io.ts). An import reads a file
 * (every bad line named: ca-import-syntax) and makes a plan of it: `replace` reaches exactly the file's ROAs (or
 * ASPAs; the other kind is left alone), `add` adds what the CA lacks. A rollback makes a plan back to the configuration
 * right after a history version (config-history.ts). The plan service checks the change and computes its impact;
 * nothing changes until the plan is applied.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { AspaDefinitionJson } from '../../api/cas.js'
import type { PlanJson, PlanSource } from '../../api/plans.js'
import { aspaImportSteps, roaImportSteps, type PlanImportJson, type PlanRollbackJson, type RoaExportJson } from '../../api/roa-io.js'
import { aspaConfigs, type AspaConfig } from '../../ca/aspas.js'
import { changeToReach, type PlanChange } from '../../ca/plans.js'
import { roaConfigPayload, type RoaConfig } from '../../ca/roas.js'
import { AppError } from '../../errors.js'
import { compareRoaPayloads } from '../../resources/roa-payload.js'
import type { CaStore } from '../../store/interfaces.js'
import { runSliced, sliceCounter, sortSteps, type Sliced } from '../../util/slices.js'
import type { CaCommands } from './ca-commands.js'
import { configAt, type CaConfig } from './config-history.js'
import { caPath } from './inputs.js'
import type { PlanService } from './plan-service.js'

const pause = () => yieldToLoop()

export interface RoaIoServiceDeps {
  commands: Pick<CaCommands, 'state'>
  plans: Pick<PlanService, 'create'>
  history: Pick<CaStore, 'history' | 'command'>
}

export class RoaIoService {
  constructor(private readonly d: RoaIoServiceDeps) {}

  /** GET …/routes/export: every configured ROA in the listing order (RFC 9582 payload order), the max length given. */
  roasExport(ca: string): Promise<RoaExportJson[]> {
    const s = this.d.commands.state(caPath(ca))
    return runSliced(exportSteps(Object.values(s.routes)), pause)
  }

  /** GET …/aspas/export: the ASPA definitions, customer ascending. */
  aspasExport(ca: string): AspaDefinitionJson[] {
    return aspaConfigs(this.d.commands.state(caPath(ca)).aspas).map((a) => ({ customer: a.customer, providers: [...a.providers] }))
  }

  /** POST …/plans/import: the file read (ca-import-syntax names every bad line), then a plan of the change it asks for. */
  async importPlan(ca: string, body: PlanImportJson): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    const current: CaConfig = { routes: s.routes, aspas: s.aspas ?? {} }
    let change: PlanChange
    if (body.kind === 'roas') {
      const rows = await runSliced(roaImportSteps(body.format, body.content), pause)
      change = body.mode === 'replace' ? reach(current, { routes: routesOf(rows), aspas: current.aspas }) : addRoas(current.routes, rows)
    } else {
      const defs = await runSliced(aspaImportSteps(body.format, body.content), pause)
      change = body.mode === 'replace' ? reach(current, { routes: current.routes, aspas: Object.fromEntries(defs.map((a) => [a.customer, a])) }) : addAspas(current.aspas, defs)
    }
    const what = `${body.kind === 'roas' ? 'ROA' : 'ASPA'} import (${body.format.toUpperCase()}, ${body.mode})`
    return this.d.plans.create(s.handle, { comment: body.comment ?? what, source: body.format as PlanSource, change })
  }

  /**
   * POST …/plans/rollback: a plan back to the configuration right after history version `version` (404
   * ca-plan-rollback-unknown when there is none; ca-plan-empty when it is the configuration now). `mayChangeAspas`
   * is called when the plan would change ASPAs (the route checks aspas-update there).
   */
  async rollback(ca: string, body: PlanRollbackJson, mayChangeAspas: () => void = () => undefined): Promise<PlanJson> {
    const handle = caPath(ca)
    const s = this.d.commands.state(handle)
    const source = {
      page: (offset: number, rows: number) => this.d.history.history(s.handle, { offset, rows, full: false, order: 'asc' }).records,
      exists: (version: number) => this.d.history.command(s.handle, version) !== undefined,
    }
    const target = await configAt(source, body.version, pause)
    if (!target) throw new AppError('ca-plan-rollback-unknown', { ca: s.handle, version: String(body.version) })
    const now = this.d.commands.state(handle)
    const change = reach({ routes: now.routes, aspas: now.aspas ?? {} }, target)
    if (change.aspas.add_or_replace.length + change.aspas.remove.length > 0) mayChangeAspas()
    return this.d.plans.create(s.handle, { comment: body.comment ?? `rollback to version ${body.version}`, source: 'rollback', rollback_to: body.version, change })
  }
}

function* exportSteps(routes: RoaConfig[]): Sliced<RoaExportJson[]> {
  const due = sliceCounter()
  const keyed = []
  for (const r of routes) {
    keyed.push({ p: roaConfigPayload(r), r })
    if (due()) yield
  }
  yield* sortSteps(keyed, (a, b) => compareRoaPayloads(a.p, b.p))
  const out: RoaExportJson[] = []
  for (const { r } of keyed) {
    out.push({ asn: r.asn, prefix: r.prefix, max_length: r.maxLength, comment: r.comment ?? null })
    if (due()) yield
  }
  return out
}

const routeKey = (r: { asn: number; prefix: string; maxLength: number }) => `${r.prefix}-${r.maxLength} => ${r.asn}`

function routesOf(rows: readonly RoaExportJson[]): Record<string, RoaConfig> {
  const routes: Record<string, RoaConfig> = {}
  for (const r of rows) {
    const c: RoaConfig = { asn: r.asn, prefix: r.prefix, maxLength: r.max_length, since: '', ...(r.comment ? { comment: r.comment } : {}) }
    routes[routeKey(c)] = c
  }
  return routes
}

/**
 * The change from `current` to exactly `target` (ca/plans.ts changeToReach), comments included: an authorisation in
 * both whose comment differs is added again with the target's comment (a delta's way of changing a comment).
 */
export function reach(current: CaConfig, target: CaConfig): PlanChange {
  const change = changeToReach(current, target)
  for (const [key, t] of Object.entries(target.routes)) {
    const c = current.routes[routeKey(t)] ?? current.routes[key]
    if (c && (c.comment || undefined) !== (t.comment || undefined)) change.roas.added.push({ asn: t.asn, prefix: t.prefix, max_length: t.maxLength, ...(t.comment ? { comment: t.comment } : {}) })
  }
  return change
}

/** `add` for ROAs: the file's authorisations the CA does not have (those it has keep their comments). */
function addRoas(current: Record<string, RoaConfig>, rows: readonly RoaExportJson[]): PlanChange {
  const added = rows.filter((r) => !current[`${r.prefix}-${r.max_length} => ${r.asn}`]).map((r) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length, ...(r.comment ? { comment: r.comment } : {}) }))
  return { roas: { added, removed: [] }, aspas: { add_or_replace: [], remove: [] } }
}

/** `add` for ASPAs: new customers' definitions, and the providers an existing definition lacks (nothing is removed). */
function addAspas(current: Record<string, AspaConfig>, defs: readonly AspaDefinitionJson[]): PlanChange {
  const add: AspaConfig[] = []
  for (const d of defs) {
    const c = current[d.customer]
    const providers = [...new Set([...(c?.providers ?? []), ...d.providers])].sort((a, b) => a - b)
    if (!c || providers.length !== c.providers.length) add.push({ customer: d.customer, providers })
  }
  return { roas: { added: [], removed: [] }, aspas: { add_or_replace: add.sort((a, b) => a.customer - b.customer), remove: [] } }
}
