/**
 * Change plans in the OpenAPI description (design.md §12; api/plans.ts, http/routes/plans.ts; beyond Krill): the
 * list, the new plan with its impact, the steps (approve, apply, reject, withdraw), the four-eyes setting; and their schemas.
 */
import { json, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Schema, SchemaObject } from './openapi-types.js'
import { PLAN_COMMENT_MAX, PLAN_IMPACT_LIST_MAX, PLAN_OPEN_MAX, PLAN_SOURCES, PLAN_STATUSES } from './plans.js'

const TAG = 'plans'
const ERRORS = ['400', '401', '403', '404', '409', '413', '500', '503', '507'] as const
const plan = json('PlanJson', 'The plan after the step')

export function planRoutes(): DescribedRoute[] {
  return [
    route('get', '/cas/{ca}/plans', {
      id: 'planList', tag: TAG, summary: "A CA's change plans, newest first", ok: json('PlanListJson', 'Plans'),
      params: [
        { name: 'status', in: 'query', required: false, description: 'Only plans in this status', schema: { type: 'string', enum: [...PLAN_STATUSES] } },
        { name: 'offset', in: 'query', required: false, description: 'Plans to skip', schema: { type: 'integer', minimum: 0 } },
        { name: 'limit', in: 'query', required: false, description: 'Plans to answer (1 to 500, default 50)', schema: { type: 'integer', minimum: 1, maximum: 500 } },
      ],
      errors: ['400', '401', '403', '404', '500'],
    }),
    route('post', '/cas/{ca}/plans', {
      id: 'planCreate', tag: TAG, summary: 'Make a plan of a ROA/ASPA change: checked as the update would be, with its BGP impact and VRP effect', body: jsonBody('PlanCreateJson', 'The change'), ok: json('PlanJson', 'The new plan'),
      description: `Nothing changes until the plan is applied. A change the direct update would refuse is refused the same way (ca-roa-delta-error, ca-aspa-*). An empty change: 400 ca-plan-empty; more than ${PLAN_OPEN_MAX} open plans: 409 ca-plan-too-many. A plan with ASPA changes also needs aspas-update.`,
      errors: [...ERRORS],
    }),
    route('post', '/cas/{ca}/plans/suggested', {
      id: 'planSuggested', tag: TAG, summary: "Make a plan of the BGP analysis's suggestion (source suggestion)", body: jsonBody('PlanSuggestedJson', 'A comment, and resources to limit the suggestion to (the body may be left out)'), ok: json('PlanJson', 'The new plan'),
      description: 'Adds a ROA for each announcement not found or invalid (its prefix and origin, max length = prefix length) and the ROAs replacing a too-permissive one; removes stale, redundant and redundant AS0 ROAs and the too-permissive ones replaced (as POST …/routes/analysis/suggest lists them). Nothing to suggest (also: no BGP data loaded): 400 ca-plan-empty.',
      errors: [...ERRORS],
    }),
    route('get', '/cas/{ca}/plans/{id}', { id: 'planShow', tag: TAG, summary: 'A plan, with whether it is stale now', ok: json('PlanJson', 'The plan'), errors: ['401', '403', '404', '500'] }),
    route('post', '/cas/{ca}/plans/{id}/approve', {
      id: 'planApprove', tag: TAG, summary: 'Approve a plan, and apply it at once unless apply is false', body: jsonBody('PlanApproveJson', 'Options (the body may be left out)'), ok: plan,
      description: "Under four-eyes the approver must be a different user than the author (403 ca-plan-own-approval). A stale plan: 409 ca-plan-stale. With apply, a plan that turns seen announcements invalid needs accept_invalid (409 ca-plan-invalidates); then nothing is done. The approval and the application are both in the plan, the CA's history and the audit.",
      errors: [...ERRORS],
    }),
    route('post', '/cas/{ca}/plans/{id}/apply', {
      id: 'planApply', tag: TAG, summary: "Apply a plan in one CA command; refused when the CA's ROAs or ASPAs changed since it was made", body: jsonBody('PlanApplyJson', 'Options (the body may be left out)'), ok: plan,
      description: 'Under four-eyes only an approved plan is applied (409 ca-plan-not-approved). Stale: 409 ca-plan-stale, and nothing changes. The plan records the history version that applied it.',
      errors: [...ERRORS],
    }),
    route('post', '/cas/{ca}/plans/{id}/reject', { id: 'planReject', tag: TAG, summary: 'Turn a plan down (plans-approve)', body: jsonBody('PlanRejectJson', 'Why (the body may be left out)'), ok: plan, errors: [...ERRORS] }),
    route('post', '/cas/{ca}/plans/{id}/withdraw', { id: 'planWithdraw', tag: TAG, summary: 'Take back a plan (its author only)', ok: plan, errors: [...ERRORS] }),
    route('get', '/cas/{ca}/change-control', { id: 'changeControl', tag: TAG, summary: 'Whether ROA/ASPA changes of the CA need four-eyes approval', ok: json('ChangeControlJson', 'The setting'), errors: ['401', '403', '404', '500'] }),
    route('post', '/cas/{ca}/change-control', {
      id: 'setChangeControl', tag: TAG, summary: "Turn four-eyes on or off for the CA (ca-admin); recorded in the CA's history", body: jsonBody('ChangeControlJson', 'The setting'), ok: json('ChangeControlJson', 'The setting now'),
      description: 'With change_control_four_eyes = true in the configuration, four-eyes stays on whatever the CA says (enforced: true).',
      errors: [...ERRORS],
    }),
  ]
}

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const int = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'integer', description, ...extra })
const bool = (description: string): SchemaObject => ({ type: 'boolean', description })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const arr = (items: Schema, description: string): SchemaObject => ({ type: 'array', items, description })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})
const validity = str('RFC 6811 outcome', { enum: ['valid', 'invalid', 'not_found'] })
const stamp = (what: string, extra: Record<string, Schema> = {}) => obj(what, { by: str('User id (or admin-token)'), provider: str('How they logged in'), token: str('The API token used, by name'), at: str('When', { format: 'date-time' }), ...extra }, ['token'])
const vrp = obj('A validated ROA payload', { asn: int('AS number', { minimum: 0 }), prefix: str('Prefix'), max_length: int('Max length') })

export const PLAN_SCHEMAS: Record<string, Schema> = {
  PlanChangeJson: obj('A ROA delta and an ASPA update, in the shapes of POST …/routes and POST …/aspas', { roas: ref('RoaDeltaJson'), aspas: ref('AspaDefinitionUpdatesJson') }),
  PlanCreateJson: obj('A new plan: ROA and/or ASPA changes', {
    comment: str(`Why (at most ${PLAN_COMMENT_MAX} characters)`),
    source: str('Where the change came from', { enum: [...PLAN_SOURCES] }),
    roas: ref('RoaDeltaJson'),
    aspas: ref('AspaDefinitionUpdatesJson'),
    rollback_to: int('For a rollback: the history version restored', { minimum: 1 }),
  }, ['comment', 'source', 'roas', 'aspas', 'rollback_to']),
  PlanImpactJson: obj(`What the plan does, computed when it was made; lists cut at ${PLAN_IMPACT_LIST_MAX}, counts whole`, {
    analysed_at: str('When', { format: 'date-time' }),
    bgp: obj('Announcements whose outcome changes (the BGP analysis before and after)', {
      available: bool('False without BGP announcements loaded (bgp_riswhois_*)'),
      turned_valid: int('Count'), turned_invalid: int('Count'), turned_not_found: int('Count'),
      changes: arr(obj('An announcement whose outcome changes', { asn: int('Origin AS'), prefix: str('Prefix'), before: validity, after: validity, detail: str('The analysis state after') }), 'Invalid ones first'),
      truncated: bool('More changes than listed'),
    }),
    vrps: obj('VRPs the plan adds and removes', { added: arr(vrp, 'Added'), removed: arr(vrp, 'Removed'), added_count: int('Count'), removed_count: int('Count'), before: int('VRPs before'), after: int('VRPs after') }),
    aspas: obj('ASPA customers added, changed, removed', { added: arr(int('Customer AS'), 'Added'), changed: arr(int('Customer AS'), 'Other providers'), removed: arr(int('Customer AS'), 'Removed') }),
  }),
  PlanJson: obj('A change plan', {
    id: int('Plan id'), ca: str('CA handle'), status: str('Status', { enum: [...PLAN_STATUSES] }),
    stale: bool("The CA's ROAs or ASPAs changed after the plan was made: it can no longer be applied"),
    comment: str('Why'), source: str('Where the change came from', { enum: [...PLAN_SOURCES] }), rollback_to: int('For a rollback: the history version restored'),
    change: ref('PlanChangeJson'), impact: ref('PlanImpactJson'),
    needs_approval: bool("Applying needs a second user's approval (four-eyes)"),
    created: stamp('Made by'), approved: stamp('Approved by'), applied: stamp('Applied by', { version: int('The history version of the change') }),
    rejected: stamp('Rejected by', { reason: str('Why') }), withdrawn: stamp('Withdrawn by'),
  }, ['rollback_to', 'approved', 'applied', 'rejected', 'withdrawn']),
  PlanListJson: obj('Plans', { total: int('Plans that match'), plans: arr(ref('PlanJson'), 'Newest first') }),
  PlanSuggestedJson: obj('A plan of the BGP suggestion', { comment: str(`Why (at most ${PLAN_COMMENT_MAX} characters)`), asn: str('AS resources to limit it to'), ipv4: str('IPv4 resources to limit it to'), ipv6: str('IPv6 resources to limit it to') }, ['comment', 'asn', 'ipv4', 'ipv6']),
  PlanApproveJson: obj('Approval options', { apply: bool('Apply at once (default true)'), accept_invalid: bool('Apply even though seen announcements turn invalid') }, ['apply', 'accept_invalid']),
  PlanApplyJson: obj('Apply options', { accept_invalid: bool('Apply even though seen announcements turn invalid') }, ['accept_invalid']),
  PlanRejectJson: obj('Why the plan is turned down', { reason: str(`Why (at most ${PLAN_COMMENT_MAX} characters)`) }, ['reason']),
  ChangeControlJson: obj('Four-eyes approval of ROA/ASPA changes', { four_eyes: bool('Required'), enforced: bool('The configuration requires it for every CA') }, ['enforced']),
}
