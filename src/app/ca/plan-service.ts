/**
 * Change plans (design.md §12, issue 27): a ROA/ASPA change made into a plan with its impact (the BGP analysis before
 * and after, the VRPs and ASPAs it adds and removes), approved by a second user when the CA requires four-eyes,
 * applied later in one CA command that refuses it when the configuration changed meanwhile (ca/plans.ts: the rules;
 * ca/cert-auth.ts: the command). The plan's steps are compare-and-set on its status, and its `applied` stamp is
 * written in the transaction that stores the command: a plan is applied exactly once, and says by which history version.
 * Every step is in the audit trail (`plan-create`, `plan-approve`, `plan-reject`, `plan-withdraw`, in the transaction
 * of the plan's row; applying is the CA command `plan-apply`), and so is every refused step (success false).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { BgpAnalysisSuggestion } from '../../api/cas.js'
import type { ChangeControlJson, PlanChangeJson, PlanCreateJson, PlanJson, PlanListJson, PlanSuggestedJson } from '../../api/plans.js'
import { checkAspasUpdate } from '../../ca/aspas.js'
import { heldResources } from '../../ca/children.js'
import {
  announcementChanges, aspaEffect, checkPlanStep, fourEyesRequired, planAfter, stateFingerprint, vrpEffect, type PlanAction, type PlanChange, type PlanImpact, type PlanRecord, type PlanStamp, type PlanStatus, type PlanVrp,
} from '../../ca/plans.js'
import type { CaState } from '../../ca/state.js'
import { AppError } from '../../errors.js'
import type { Logger } from '../../log.js'
import { ResourceSet } from '../../resources/resource-set.js'
import type { PlanStore } from '../../store/interfaces.js'
import type { AuditEntry } from '../access/audit-service.js'
import { currentActor } from '../shared/acting.js'
import type { BgpAnnouncements } from './bgp-analysis.js'
import { inThreadAnalyser, type RouteAnalyser } from '../bgp/analyser.js'
import type { CaCommands } from './ca-commands.js'
import { caPath } from './inputs.js'
import { suggestionChange } from './plan-suggestion.js'
import { roasAfterDelta } from './roa-analysis.js'

/** Kept in step with api/plans.ts (PLAN_IMPACT_LIST_MAX, PLAN_OPEN_MAX): the application imports api/ types only. */
const IMPACT_LIST_MAX = 1000
const LIVE_MAX = 100
const pause = () => yieldToLoop()
const DONE: Record<PlanAction, string> = { approve: 'approved', apply: 'applied', reject: 'rejected', withdraw: 'withdrawn' }

export interface PlanServiceDeps {
  commands: CaCommands
  plans: PlanStore
  now: () => Date
  log: Logger
  /** The BGP announcements loaded last, if any (the analysis of the plan's impact). */
  bgp?: () => BgpAnnouncements | undefined
  /** Where the analysis runs (svcd: the analysis worker, app/bgp/analysis-pool.ts); default: here, in slices, against `bgp`. */
  analyser?: RouteAnalyser
  /** `change_control_four_eyes`: every CA requires four-eyes, whatever its own setting. */
  fourEyesEverywhere: boolean
  /** The audit trail (AuditService.record): each step and each refused step. */
  audit?: (e: AuditEntry) => void
  /** One transaction over the stores (Stores.transaction): a step's plan row and its audit record land together. */
  transaction?: <T>(fn: () => T) => T
  /** The BGP analysis's suggestion (CaService.caRoutesSuggest), for POST …/plans/suggested. */
  suggest?: (ca: string, scope?: { asn?: string; ipv4?: string; ipv6?: string }) => Promise<BgpAnalysisSuggestion>
}

type AuditKind = 'plan-create' | 'plan-approve' | 'plan-apply' | 'plan-reject' | 'plan-withdraw'
const KIND: Record<PlanAction, AuditKind> = { approve: 'plan-approve', apply: 'plan-apply', reject: 'plan-reject', withdraw: 'plan-withdraw' }

export class PlanService {
  private readonly analyser: RouteAnalyser

  constructor(private readonly d: PlanServiceDeps) {
    this.analyser = d.analyser ?? inThreadAnalyser(() => d.bgp?.(), pause)
  }

  /** GET …/plans: newest first, optionally only those of one status. */
  list(ca: string, q: { status?: PlanStatus; offset: number; limit: number }): PlanListJson {
    const s = this.d.commands.state(caPath(ca))
    const r = this.d.plans.list(s.handle, q)
    return { total: r.total, plans: r.plans.map((p) => this.json(p, s)) }
  }

  show(ca: string, id: number): PlanJson {
    const s = this.d.commands.state(caPath(ca))
    return this.json(this.get(s.handle, id), s)
  }

  /**
   * A new plan: the change is checked as the direct update would check it (a refused delta or ASPA update is refused
   * here, with the same labels) and its impact computed against the configuration now. `source` and `rollback_to`
   * only describe where it came from.
   */
  async create(ca: string, body: PlanCreateJson & { change: PlanChangeJson }): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    return this.refusalAudited('plan-create', s.handle, {}, () => this.make(s, body))
  }

  /**
   * A plan of the BGP analysis's suggestion (app/ca/plan-suggestion.ts: what Krill's UI applies), optionally for part
   * of the resources; `ca-plan-empty` when it suggests nothing (also: no BGP data loaded).
   */
  async createSuggested(ca: string, body: PlanSuggestedJson = {}): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    return this.refusalAudited('plan-create', s.handle, { source: 'suggestion' }, async () => {
      const scoped = body.asn !== undefined || body.ipv4 !== undefined || body.ipv6 !== undefined
      const scope = { ...(body.asn === undefined ? {} : { asn: body.asn }), ...(body.ipv4 === undefined ? {} : { ipv4: body.ipv4 }), ...(body.ipv6 === undefined ? {} : { ipv6: body.ipv6 }) }
      const suggestion = this.d.suggest ? await this.d.suggest(s.handle, scoped ? scope : undefined) : {}
      const fresh = this.d.commands.state(s.handle)
      return this.make(fresh, { comment: body.comment ?? 'BGP analysis suggestion', source: 'suggestion', change: suggestionChange(suggestion) })
    })
  }

  private async make(s: CaState, body: PlanCreateJson & { change: PlanChangeJson }): Promise<PlanJson> {
    const change = normalised(body.change)
    if (change.roas.added.length + change.roas.removed.length + change.aspas.add_or_replace.length + change.aspas.remove.length === 0) throw new AppError('ca-plan-empty', { ca: s.handle })
    const live = this.d.plans.countLive(s.handle)
    if (live >= LIVE_MAX) throw new AppError('ca-plan-too-many', { ca: s.handle, count: String(live) })
    const impact = await this.impact(s, change)
    const record: Omit<PlanRecord, 'id'> = {
      ca: s.handle,
      status: 'open',
      comment: body.comment ?? '',
      source: body.source ?? 'delta',
      ...(body.rollback_to === undefined ? {} : { rollback_to: body.rollback_to }),
      base: stateFingerprint(s),
      change,
      impact,
      created: this.stamp(),
    }
    const p = this.transaction(() => {
      const made = this.d.plans.create(record)
      const counts = { roas_added: change.roas.added.length, roas_removed: change.roas.removed.length, aspas_changed: change.aspas.add_or_replace.length, aspas_removed: change.aspas.remove.length }
      this.d.audit?.({ kind: 'plan-create', ca: s.handle, details: { plan: made.id, comment: made.comment, source: made.source, ...counts, turned_invalid: impact.bgp.turned_invalid } })
      return made
    })
    this.d.log.info('plan made', { ca: s.handle, plan: p.id, by: p.created.by })
    return this.json(p, s)
  }

  /**
   * Approve a plan (a different user than its author when four-eyes is on), and by default apply it at once. With
   * `apply`, a plan that turns seen announcements invalid needs `accept_invalid`; then nothing changes unless both can be done.
   */
  async approve(ca: string, id: number, o: { apply?: boolean; accept_invalid?: boolean } = {}): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    const apply = o.apply !== false
    const approved = await this.refusalAudited('plan-approve', s.handle, { plan: id, apply }, () => {
      const p = this.get(s.handle, id)
      const fourEyes = fourEyesRequired(s, this.d.fourEyesEverywhere)
      const actor = currentActor()
      checkPlanStep(p, 'approve', { actor, fourEyes, current: stateFingerprint(s) })
      const next = planAfter(p, 'approve', this.stamp())
      if (apply) checkPlanStep(next, 'apply', { actor, fourEyes, current: stateFingerprint(s), ...(o.accept_invalid === undefined ? {} : { acceptInvalid: o.accept_invalid }) })
      this.step(p, next, 'approve', { apply })
      return next
    })
    return apply ? this.applyNow(approved) : this.json(approved, s)
  }

  /** Apply a plan: approved first when four-eyes is on; refused when stale, and when it invalidates without `accept_invalid`. */
  async apply(ca: string, id: number, o: { accept_invalid?: boolean } = {}): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    // A step refused here is audited as a refused plan-apply; once the command runs, the command's own record says it.
    const p = await this.refusalAudited('plan-apply', s.handle, { plan: id }, () => {
      const p = this.get(s.handle, id)
      checkPlanStep(p, 'apply', { actor: currentActor(), fourEyes: fourEyesRequired(s, this.d.fourEyesEverywhere), current: stateFingerprint(s), ...(o.accept_invalid === undefined ? {} : { acceptInvalid: o.accept_invalid }) })
      return p
    })
    return this.applyNow(p)
  }

  /** A reviewer turns the plan down (it can no longer be approved or applied). */
  reject(ca: string, id: number, reason?: string): Promise<PlanJson> {
    return this.close(ca, id, 'reject', reason)
  }

  /** Its author takes the plan back. */
  withdraw(ca: string, id: number): Promise<PlanJson> {
    return this.close(ca, id, 'withdraw')
  }

  /** GET …/change-control. */
  changeControl(ca: string): ChangeControlJson {
    const s = this.d.commands.state(caPath(ca))
    return { four_eyes: fourEyesRequired(s, this.d.fourEyesEverywhere), ...(this.d.fourEyesEverywhere ? { enforced: true } : {}) }
  }

  /** PUT …/change-control: the CA's own setting, recorded in its history (the configuration's, when set, still holds). */
  async setChangeControl(ca: string, fourEyes: boolean): Promise<ChangeControlJson> {
    const handle = caPath(ca)
    this.d.commands.state(handle)
    await this.d.commands.run(handle, { type: 'change-control-update', fourEyes })
    return this.changeControl(handle)
  }

  /** A direct ROA or ASPA update of a CA that requires four-eyes is refused, naming the plan workflow. */
  requireNoFourEyes(ca: string): void {
    const s = this.d.commands.state(caPath(ca))
    if (fourEyesRequired(s, this.d.fourEyesEverywhere)) throw new AppError('ca-plan-required', { ca: s.handle })
  }

  /** The CA is gone: so are its plans. */
  forget(ca: string): void {
    this.d.plans.removeCa(ca)
  }

  //------------ inside ----------------------------------------------------------------------------------------------

  private get(ca: string, id: number): PlanRecord {
    const p = Number.isSafeInteger(id) && id > 0 ? this.d.plans.get(ca, id) : undefined
    if (!p) throw new AppError('ca-plan-unknown', { ca, plan: String(id) })
    return p
  }

  private close(ca: string, id: number, action: 'reject' | 'withdraw', reason?: string): Promise<PlanJson> {
    const s = this.d.commands.state(caPath(ca))
    const why = action === 'reject' ? { reason: reason ?? '' } : {}
    return this.refusalAudited(KIND[action], s.handle, { plan: id, ...why }, () => {
      const p = this.get(s.handle, id)
      checkPlanStep(p, action, { actor: currentActor(), fourEyes: fourEyesRequired(s, this.d.fourEyesEverywhere), current: stateFingerprint(s) })
      const next = action === 'reject' ? planAfter(p, 'reject', this.stamp(), reason) : planAfter(p, 'withdraw', this.stamp())
      this.step(p, next, action, why)
      return this.json(next, s)
    })
  }

  /**
   * Store a step, only if nobody else took one on the plan meanwhile; with its audit record in the same transaction
   * (not for `apply`: the CA command that applies is the audit record, and this runs inside its transaction).
   */
  private step(p: PlanRecord, next: PlanRecord, action: PlanAction, details: Record<string, unknown> = {}): void {
    this.transaction(() => {
      if (!this.d.plans.update(next, p.status)) {
        const now = this.d.plans.get(p.ca, p.id)
        throw new AppError('ca-plan-status', { ca: p.ca, plan: String(p.id), status: now?.status ?? 'gone', action: DONE[action] })
      }
      if (action !== 'apply') this.d.audit?.({ kind: KIND[action], ca: p.ca, details: { plan: p.id, comment: p.comment, ...details } })
    })
    this.d.log.info(`plan ${action}`, { ca: p.ca, plan: p.id, by: next.approved?.by ?? next.rejected?.by ?? next.withdrawn?.by ?? next.applied?.by })
  }

  /** One CA command (ca/cert-auth.ts plan-apply); the plan is marked applied in the transaction that stores it. */
  private async applyNow(p: PlanRecord): Promise<PlanJson> {
    const stamp = this.stamp()
    let applied: PlanRecord | undefined
    const cmd = {
      type: 'plan-apply' as const,
      plan: p.id,
      base: p.base,
      roas: {
        added: p.change.roas.added.map((r) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length ?? prefixLength(r.prefix), ...(r.comment ? { comment: r.comment } : {}) })),
        removed: p.change.roas.removed.map((r) => ({ asn: r.asn, prefix: r.prefix, max_length: r.max_length ?? prefixLength(r.prefix) })),
      },
      aspas: { addOrReplace: p.change.aspas.add_or_replace.map((a) => ({ customer: a.customer, providers: [...a.providers] })), remove: [...p.change.aspas.remove] },
    }
    let lost = false
    let r: Awaited<ReturnType<CaCommands['run']>>
    try {
      r = await this.d.commands.run(p.ca, cmd, undefined, {
        onSaved: (version) => {
          applied = planAfter(p, 'apply', { ...stamp, version })
          lost = true // until the step lands: another request stepped the plan first, and the command is undone with it
          this.step(p, applied, 'apply')
          lost = false
        },
      })
    } catch (e) {
      // A refused command is in the audit trail as the command; a step lost to another request undid it: record that.
      if (lost && e instanceof AppError) this.d.audit?.({ kind: 'plan-apply', ca: p.ca, success: false, details: { plan: p.id, error: { label: e.label, msg: e.message } } })
      throw e
    }
    if (!applied) {
      // Nothing to change (the configuration already is what the plan makes it): applied at the version it is.
      // No command was stored: the audit record says it here.
      const done = planAfter(p, 'apply', { ...stamp, version: r.version })
      this.transaction(() => {
        this.step(p, done, 'apply')
        this.d.audit?.({ kind: 'plan-apply', ca: p.ca, details: { plan: p.id, comment: p.comment, version: r.version, unchanged: true } })
      })
      applied = done
    }
    return this.json(applied, r.state)
  }

  /** Run a step; a labelled refusal is also an audit record (success false, with the label), as a refused CA command is. */
  private async refusalAudited<T>(kind: AuditKind, ca: string, details: Record<string, unknown>, fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      if (e instanceof AppError && this.d.audit) this.d.audit({ kind, ca, success: false, details: { ...details, error: { label: e.label, msg: e.message } } })
      throw e
    }
  }

  private transaction<T>(fn: () => T): T {
    return this.d.transaction ? this.d.transaction(fn) : fn()
  }

  private stamp(): PlanStamp {
    const a = currentActor()
    return { by: a.id, provider: a.provider, ...(a.token === undefined ? {} : { token: a.token }), at: this.d.now().toISOString() }
  }

  private json(p: PlanRecord, s: CaState): PlanJson {
    const live = p.status === 'open' || p.status === 'approved'
    const { base: _base, ...rest } = p
    return { ...rest, source: p.source as PlanJson['source'], stale: live && p.base !== stateFingerprint(s), needs_approval: fourEyesRequired(s, this.d.fourEyesEverywhere) }
  }

  /** What the change would do to the CA `s`: checked as the update checks it, then analysed before and after. */
  private async impact(s: CaState, change: PlanChange): Promise<PlanImpact> {
    const now = this.d.now()
    const before = await roasAfterDelta(s, { added: [], removed: [] }, now, pause)
    const after = await roasAfterDelta(s, change.roas, now, pause) // a delta the update refuses is refused here
    if (change.aspas.add_or_replace.length || change.aspas.remove.length) checkAspasUpdate(s.handle, s.aspas, heldResources(s), change.aspas.add_or_replace, change.aspas.remove)
    const held = heldResources(s)
    const bgp = this.d.bgp?.()
    let announcements: Omit<PlanImpact['bgp'], 'available'> = { turned_valid: 0, turned_invalid: 0, turned_not_found: 0, changes: [], truncated: false }
    if (bgp) {
      const a0 = await this.analyser.report(before, held)
      const a1 = await this.analyser.report(after, held)
      announcements = announcementChanges(a0, a1, IMPACT_LIST_MAX)
    }
    const vrps = async (roas: readonly { asn: number; prefix: string; max_length: number }[]) => {
      const out: PlanVrp[] = []
      for (let i = 0; i < roas.length; i++) {
        const r = roas[i]!
        if (heldPrefix(held, r.prefix)) out.push({ asn: r.asn, prefix: r.prefix, max_length: r.max_length })
        if (i % 2000 === 1999) await pause()
      }
      return out
    }
    return {
      analysed_at: now.toISOString(),
      bgp: { available: bgp !== undefined, ...announcements },
      vrps: vrpEffect(await vrps(before), await vrps(after), IMPACT_LIST_MAX),
      aspas: aspaEffect(s.aspas, change.aspas),
    }
  }
}

function prefixLength(prefix: string): number {
  return Number(prefix.split('/')[1])
}

/** A configured authorisation is a VRP only while the CA holds its prefix (resources can shrink under it). */
function heldPrefix(held: ResourceSet, prefix: string): boolean {
  try {
    return held.contains(ResourceSet.parse(prefix.includes(':') ? { ipv6: prefix } : { ipv4: prefix }))
  } catch {
    return false
  }
}

/** The change with every list present and comments as given. */
function normalised(c: PlanChangeJson): PlanChange {
  return {
    roas: { added: c.roas.added.map((r) => ({ ...r })), removed: c.roas.removed.map((r) => ({ asn: r.asn, prefix: r.prefix, ...(r.max_length === undefined ? {} : { max_length: r.max_length }) })) },
    aspas: { add_or_replace: c.aspas.add_or_replace.map((a) => ({ customer: a.customer, providers: [...a.providers] })), remove: [...c.aspas.remove] },
  }
}
