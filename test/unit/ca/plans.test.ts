/**
 * The pure rules of change plans (ca/plans.ts; design.md §12, issue 27): every refusal of checkPlanStep by label, the
 * author and another user under four-eyes and without, a stale plan, every status; the fingerprint (order and comments
 * do not count); the impact functions and changeToReach on small exact inputs.
 */
import t from 'tap'
import type { RoaConfig } from '../../../src/ca/roas.js'
import {
  announcementChanges, aspaEffect, changeToReach, checkPlanStep, configFingerprint, planAfter, routeValidity, vrpEffect, type PlanAction, type PlanRecord, type PlanStatus,
} from '../../../src/ca/plans.js'
import { AppError } from '../../../src/errors.js'

const alice = { id: 'alice', provider: 'config-file' }
const bob = { id: 'bob', provider: 'config-file' }
const at = '2026-11-27T10:00:00.000Z'
const roa = (asn: number, prefix: string, maxLength: number, comment?: string): RoaConfig => ({ asn, prefix, maxLength, since: at, ...(comment ? { comment } : {}) })

function plan(over: Partial<PlanRecord> = {}): PlanRecord {
  return {
    id: 7, ca: 'ca1', status: 'open', comment: '', source: 'delta', base: 'base',
    change: { roas: { added: [{ asn: 65000, prefix: '10.0.0.0/16' }], removed: [] }, aspas: { add_or_replace: [], remove: [] } },
    impact: {
      analysed_at: at, bgp: { available: true, turned_valid: 0, turned_invalid: 0, turned_not_found: 0, changes: [], truncated: false },
      vrps: { added: [], removed: [], added_count: 0, removed_count: 0, before: 0, after: 0 }, aspas: { added: [], changed: [], removed: [] },
    },
    created: { by: 'alice', provider: 'config-file', at },
    ...over,
  }
}

/** The label checkPlanStep refuses with, or 'ok'. */
function step(p: PlanRecord, action: PlanAction, o: { actor?: typeof alice; fourEyes?: boolean; current?: string; acceptInvalid?: boolean } = {}): string {
  try {
    checkPlanStep(p, action, { actor: o.actor ?? alice, fourEyes: o.fourEyes ?? false, current: o.current ?? 'base', ...(o.acceptInvalid === undefined ? {} : { acceptInvalid: o.acceptInvalid }) })
    return 'ok'
  } catch (e) {
    if (e instanceof AppError) return e.label
    throw e
  }
}

t.test('checkPlanStep: an open plan without four-eyes', async (t) => {
  const p = plan()
  t.equal(step(p, 'apply'), 'ok', 'its author applies it')
  t.equal(step(p, 'apply', { actor: bob }), 'ok', 'another user applies it')
  t.equal(step(p, 'approve'), 'ok', 'its author may approve it without four-eyes')
  t.equal(step(p, 'reject', { actor: bob }), 'ok')
  t.equal(step(p, 'reject'), 'ok', 'its author may reject it too')
  t.equal(step(p, 'withdraw'), 'ok', 'its author withdraws it')
  t.equal(step(p, 'withdraw', { actor: bob }), 'api-insufficient-rights', 'nobody else withdraws it')
  t.equal(step(p, 'withdraw', { actor: { id: 'alice', provider: 'openid-connect' } }), 'api-insufficient-rights', 'the same id from another provider is another user')
})

t.test('checkPlanStep: four-eyes', async (t) => {
  const p = plan()
  t.equal(step(p, 'approve', { fourEyes: true }), 'ca-plan-own-approval', 'the author cannot approve')
  t.equal(step(p, 'approve', { fourEyes: true, actor: { id: 'alice', provider: 'openid-connect' } }), 'ok', 'a user of another provider is another user')
  t.equal(step(p, 'approve', { fourEyes: true, actor: bob }), 'ok', 'another user approves')
  t.equal(step(p, 'apply', { fourEyes: true }), 'ca-plan-not-approved', 'an open plan is not applied')
  t.equal(step(p, 'apply', { fourEyes: true, actor: bob }), 'ca-plan-not-approved', 'by nobody')
  const approved = planAfter(p, 'approve', { by: 'bob', provider: 'config-file', at })
  t.equal(approved.status, 'approved')
  t.same(approved.approved, { by: 'bob', provider: 'config-file', at })
  t.equal(step(approved, 'apply', { fourEyes: true }), 'ok', 'approved, its author may apply it')
  t.equal(step(approved, 'approve', { fourEyes: true, actor: bob }), 'ca-plan-status', 'approved once only')
  t.equal(step(approved, 'reject', { actor: bob, fourEyes: true }), 'ok', 'an approved plan may still be rejected')
  t.equal(step(approved, 'withdraw', { fourEyes: true }), 'ok', 'or withdrawn by its author')
})

t.test('checkPlanStep: stale', async (t) => {
  const p = plan()
  t.equal(step(p, 'apply', { current: 'other' }), 'ca-plan-stale')
  t.equal(step(p, 'approve', { current: 'other', actor: bob, fourEyes: true }), 'ca-plan-stale', 'a stale plan is not approved')
  t.equal(step(p, 'reject', { current: 'other', actor: bob }), 'ok', 'a stale plan may be rejected')
  t.equal(step(p, 'withdraw', { current: 'other' }), 'ok', 'or withdrawn')
})

t.test('checkPlanStep: invalidating needs accept_invalid', async (t) => {
  const p = plan({ impact: { ...plan().impact, bgp: { ...plan().impact.bgp, turned_invalid: 2 } } })
  t.equal(step(p, 'apply'), 'ca-plan-invalidates')
  t.equal(step(p, 'apply', { acceptInvalid: false }), 'ca-plan-invalidates')
  t.equal(step(p, 'apply', { acceptInvalid: true }), 'ok')
  t.equal(step(p, 'approve', { actor: bob, fourEyes: true }), 'ok', 'approving alone does not change anything: no need to accept')
  try {
    checkPlanStep(p, 'apply', { actor: alice, fourEyes: false, current: 'base' })
  } catch (e) {
    t.same((e as AppError).args, { ca: 'ca1', plan: '7', count: '2' }, 'the refusal names the count')
    t.equal((e as AppError).status, 409)
  }
})

t.test('checkPlanStep: closed plans take no step', async (t) => {
  const closed: PlanStatus[] = ['applied', 'rejected', 'withdrawn']
  for (const status of closed) {
    for (const action of ['approve', 'apply', 'reject', 'withdraw'] as const) t.equal(step(plan({ status }), action, { actor: bob }), 'ca-plan-status', `${status}: no ${action}`)
  }
  try {
    checkPlanStep(plan({ status: 'applied' }), 'reject', { actor: bob, fourEyes: false, current: 'base' })
  } catch (e) {
    t.same((e as AppError).args, { ca: 'ca1', plan: '7', status: 'applied', action: 'rejected' })
  }
})

t.test('planAfter: each step stamps its part', async (t) => {
  const s = { by: 'bob', provider: 'config-file', at }
  t.match(planAfter(plan(), 'reject', s, 'no'), { status: 'rejected', rejected: { ...s, reason: 'no' } })
  t.match(planAfter(plan(), 'reject', s), { status: 'rejected', rejected: { reason: '' } })
  t.match(planAfter(plan(), 'withdraw', s), { status: 'withdrawn', withdrawn: s })
  t.match(planAfter(plan(), 'apply', { ...s, version: 12 }), { status: 'applied', applied: { ...s, version: 12 } })
  const p = plan()
  planAfter(p, 'approve', s)
  t.equal(p.status, 'open', 'a copy: the plan itself is unchanged')
})

t.test('configFingerprint: order, comments and since do not count; every field that routes does', async (t) => {
  const a = { k1: roa(65000, '10.0.0.0/16', 16, 'one'), k2: roa(65001, '10.1.0.0/16', 24) }
  const b = { k2: { ...roa(65001, '10.1.0.0/16', 24), since: '2020-01-01T00:00:00Z' }, k1: roa(65000, '10.0.0.0/16', 16, 'another comment') }
  const aspas = { 65000: { customer: 65000, providers: [65002, 65001] } }
  const aspas2 = { 65000: { customer: 65000, providers: [65001, 65002] } }
  t.equal(configFingerprint(a, aspas), configFingerprint(b, aspas2), 'the same configuration')
  t.equal(configFingerprint({}, undefined), configFingerprint({}, {}), 'no ASPAs')
  t.not(configFingerprint(a, aspas), configFingerprint({ ...a, k2: roa(65001, '10.1.0.0/16', 23) }, aspas), 'max length counts')
  t.not(configFingerprint(a, aspas), configFingerprint({ ...a, k2: roa(65002, '10.1.0.0/16', 24) }, aspas), 'the ASN counts')
  t.not(configFingerprint(a, aspas), configFingerprint({ k1: a.k1 }, aspas), 'a ROA less counts')
  t.not(configFingerprint(a, aspas), configFingerprint(a, { 65000: { customer: 65000, providers: [65001] } }), 'providers count')
  t.not(configFingerprint(a, aspas), configFingerprint(a, undefined), 'an ASPA less counts')
})

t.test('routeValidity: RFC 6811 outcomes of the analysis states', async (t) => {
  t.equal(routeValidity('announcement_valid'), 'valid')
  t.equal(routeValidity('announcement_not_found'), 'not_found')
  for (const s of ['announcement_invalid_asn', 'announcement_invalid_length', 'announcement_disallowed']) t.equal(routeValidity(s), 'invalid', s)
})

t.test('announcementChanges: exact counts and order, invalid first', async (t) => {
  const before = [
    { asn: 65001, prefix: '10.0.0.0/24', state: 'announcement_not_found' },
    { asn: 65002, prefix: '10.0.1.0/24', state: 'announcement_not_found' },
    { asn: 65000, prefix: '10.0.2.0/24', state: 'announcement_valid' },
    { asn: 65000, prefix: '10.0.3.0/24', state: 'announcement_valid' },
    { asn: 65000, prefix: '10.0.0.0/16', state: 'roa_seen' },
  ]
  const after = [
    { asn: 65001, prefix: '10.0.0.0/24', state: 'announcement_invalid_asn' },
    { asn: 65002, prefix: '10.0.1.0/24', state: 'announcement_valid' },
    { asn: 65000, prefix: '10.0.2.0/24', state: 'announcement_not_found' },
    { asn: 65000, prefix: '10.0.3.0/24', state: 'announcement_invalid_length' },
    { asn: 65009, prefix: '10.9.0.0/24', state: 'announcement_invalid_asn' },
    { asn: 65000, prefix: '10.0.0.0/16', state: 'roa_unseen' },
  ]
  const r = announcementChanges(before, after, 10)
  t.same({ valid: r.turned_valid, invalid: r.turned_invalid, not_found: r.turned_not_found, truncated: r.truncated }, { valid: 1, invalid: 2, not_found: 1, truncated: false }, 'an announcement only after (another dump) and ROA entries do not count')
  t.same(r.changes, [
    { asn: 65001, prefix: '10.0.0.0/24', before: 'not_found', after: 'invalid', detail: 'announcement_invalid_asn' },
    { asn: 65000, prefix: '10.0.3.0/24', before: 'valid', after: 'invalid', detail: 'announcement_invalid_length' },
    { asn: 65000, prefix: '10.0.2.0/24', before: 'valid', after: 'not_found', detail: 'announcement_not_found' },
    { asn: 65002, prefix: '10.0.1.0/24', before: 'not_found', after: 'valid', detail: 'announcement_valid' },
  ])
  const cut = announcementChanges(before, after, 1)
  t.equal(cut.changes.length, 1)
  t.ok(cut.truncated)
  t.equal(cut.turned_invalid, 2, 'counts are whole')
  t.same(announcementChanges(before, before, 10).changes, [], 'no change')
  t.same(announcementChanges(before, [{ asn: 65001, prefix: '10.0.0.0/24', state: 'announcement_disallowed' }], 10).changes[0], { asn: 65001, prefix: '10.0.0.0/24', before: 'not_found', after: 'invalid', detail: 'announcement_disallowed' }, 'AS0 disallows: invalid')
})

t.test('vrpEffect: added and removed, counted', async (t) => {
  const v = (asn: number, prefix: string, max_length: number) => ({ asn, prefix, max_length })
  const r = vrpEffect([v(1, '10.0.0.0/8', 8), v(2, '10.0.0.0/8', 8)], [v(2, '10.0.0.0/8', 8), v(1, '10.0.0.0/8', 9), v(3, '10.1.0.0/16', 16)], 1)
  t.same(r, { added: [v(1, '10.0.0.0/8', 9)], removed: [v(1, '10.0.0.0/8', 8)], added_count: 2, removed_count: 1, before: 2, after: 3 })
  t.same(vrpEffect([], [], 5), { added: [], removed: [], added_count: 0, removed_count: 0, before: 0, after: 0 })
})

t.test('aspaEffect: added, changed, removed against the configuration', async (t) => {
  const now = { 65000: { customer: 65000, providers: [65001, 65002] }, 65003: { customer: 65003, providers: [65001] } }
  const r = aspaEffect(now, { add_or_replace: [{ customer: 65005, providers: [1] }, { customer: 65000, providers: [65002, 65001] }, { customer: 65003, providers: [65002] }], remove: [65003, 65009] })
  t.same(r, { added: [65005], changed: [65003], removed: [65003] }, 'the same providers in another order is no change; removing an unknown customer is nothing')
  t.same(aspaEffect(undefined, { add_or_replace: [{ customer: 2, providers: [3] }, { customer: 1, providers: [3] }], remove: [] }), { added: [1, 2], changed: [], removed: [] }, 'sorted')
})

t.test('changeToReach: the change from one configuration to another', async (t) => {
  const current = { routes: { a: roa(65000, '10.0.0.0/16', 16), b: roa(65001, '10.1.0.0/16', 24, 'old') }, aspas: { 65000: { customer: 65000, providers: [1, 2] }, 65001: { customer: 65001, providers: [3] } } }
  const target = { routes: { b2: roa(65001, '10.1.0.0/16', 24, 'kept'), c: roa(65002, '10.2.0.0/16', 20, 'new one') }, aspas: { 65000: { customer: 65000, providers: [2, 1] }, 65002: { customer: 65002, providers: [4] }, 65001: { customer: 65001, providers: [5] } } }
  t.same(changeToReach(current, target), {
    roas: { added: [{ asn: 65002, prefix: '10.2.0.0/16', max_length: 20, comment: 'new one' }], removed: [{ asn: 65000, prefix: '10.0.0.0/16', max_length: 16 }] },
    aspas: { add_or_replace: [{ customer: 65001, providers: [5] }, { customer: 65002, providers: [4] }], remove: [] },
  }, 'only what differs; a comment alone is no change; providers in another order are the same')
  t.same(changeToReach(target, { routes: {} }), {
    roas: { added: [], removed: [{ asn: 65001, prefix: '10.1.0.0/16', max_length: 24 }, { asn: 65002, prefix: '10.2.0.0/16', max_length: 20 }] },
    aspas: { add_or_replace: [], remove: [65000, 65001, 65002] },
  }, 'to nothing')
  t.same(changeToReach(current, current), { roas: { added: [], removed: [] }, aspas: { add_or_replace: [], remove: [] } }, 'to itself: nothing')
  const reached = changeToReach(current, target)
  t.equal(configFingerprint(current.routes, current.aspas) === configFingerprint(target.routes, target.aspas), false)
  t.ok(reached.roas.added.length + reached.roas.removed.length > 0)
})

t.test("suggestionChange: what a plan of the BGP suggestion adds and removes", async (t) => {
  const { suggestionChange } = await import('../../../src/app/ca/plan-suggestion.js')
  const c = (asn: number, prefix: string, max_length: number) => ({ asn, prefix, max_length, comment: null, roa_objects: [] })
  const change = suggestionChange({
    not_found: [{ asn: 65001, prefix: '10.0.0.0/24' }],
    invalid_asn: [{ asn: 65002, prefix: '10.1.0.0/24' }],
    invalid_length: [{ asn: 65000, prefix: '10.2.1.0/24' }, { asn: 65001, prefix: '10.0.0.0/24' }],
    too_permissive: [{ current: c(65003, '10.3.0.0/16', 24), new: [{ asn: 65003, prefix: '10.3.1.0/24', max_length: 24 }] }],
    stale: [c(65004, '10.4.0.0/16', 16)],
    redundant: [c(65000, '10.2.0.0/24', 24)],
    as0_redundant: [c(0, '10.5.0.0/16', 16)],
    disallowing: [c(65006, '10.6.0.0/16', 16)],
    not_held: [c(65007, '192.168.0.0/16', 16)],
    keep: [c(65008, '10.8.0.0/16', 16)],
    keep_disallowing: [{ asn: 65009, prefix: '10.9.0.0/24' }],
  })
  t.same(change.roas.added, [
    { asn: 65001, prefix: '10.0.0.0/24', max_length: 24 },
    { asn: 65002, prefix: '10.1.0.0/24', max_length: 24 },
    { asn: 65000, prefix: '10.2.1.0/24', max_length: 24 },
    { asn: 65003, prefix: '10.3.1.0/24', max_length: 24 },
  ], 'an announcement listed twice is added once')
  t.same(change.roas.removed, [
    { asn: 65003, prefix: '10.3.0.0/16', max_length: 24 },
    { asn: 65004, prefix: '10.4.0.0/16', max_length: 16 },
    { asn: 65000, prefix: '10.2.0.0/24', max_length: 24 },
    { asn: 0, prefix: '10.5.0.0/16', max_length: 16 },
  ], 'disallowing, not held and kept ROAs stay')
  t.same(change.aspas, { add_or_replace: [], remove: [] })
  t.same(suggestionChange({}), { roas: { added: [], removed: [] }, aspas: { add_or_replace: [], remove: [] } }, 'nothing suggested: an empty change')
})
