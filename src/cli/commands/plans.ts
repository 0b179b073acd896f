/**
 * `svcc plan …`: change plans (design.md §12, issue 27; api/plans.ts). `create` takes the change as `roas update`
 * does (a delta file, --add, --remove; the same parsing and the same by-line errors) plus ASPA definitions, or the
 * BGP analysis's suggestion (--suggested); it prints the plan with its diff, BGP impact and VRP/ASPA effect. The
 * steps (approve, apply, reject, withdraw) print the plan after them; `four-eyes` shows or sets the CA's setting.
 */
import { PLAN_STATUSES, type PlanCreateJson, type PlanStatus } from '../../api/plans.js'
import { ClientError } from '../../client/api-client.js'
import { planCalls } from '../../client/plan-calls.js'
import { formatPrefix } from '../../resources/ip.js'
import { option, required, view, type CommandDef, type CommandOptions } from '../command.js'
import { deltaErrorLines } from '../error-details.js'
import { DetailedServerError, UsageError } from '../report.js'
import { parseAspaDefinition } from './aspas.js'
import { parseAsn } from '../../resources/asn.js'
import { planListText, planText } from './plan-text.js'
import { deltaFromOptions } from './roas.js'

const PLAN = required('--plan <id>', 'the plan, by id (plan list shows them)')
const ACCEPT_INVALID = option('--accept-invalid', 'apply even though announcements RIS sees turn invalid')

export const planCommands: CommandDef[] = [
  {
    path: ['plan', 'create'],
    summary: 'Make a change plan (nothing changes until it is applied): a ROA delta as roas update takes it, ASPA definitions, or --suggested',
    options: [
      option('--delta <file>', 'ROA delta file (A: / R: lines, # comments)'),
      option('--add <roa>', "an authorisation to add, '<prefix>[-<max>] => <asn> [# comment]'"),
      option('--remove <roa>', "an authorisation to remove, '<prefix>[-<max>] => <asn>'"),
      option('--aspa <definition>', 'an ASPA definition to add or replace, "AS65000 => AS65001, AS65002"'),
      option('--aspa-remove <asn>', 'the customer AS whose ASPA definition to remove, e.g. AS65000'),
      option('--comment <text>', 'why (shown in the plan, the list and the audit)'),
      option('--suggested', "the BGP analysis's suggestion instead (roas bgp suggest); with -4/-6 only for those resources"),
      option('-4, --ipv4 <prefixes>', 'with --suggested: only for these IPv4 resources'),
      option('-6, --ipv6 <prefixes>', 'with --suggested: only for these IPv6 resources'),
    ],
    async run(ctx, opts) {
      const comment = typeof opts.comment === 'string' ? { comment: opts.comment } : {}
      const changes = ['delta', 'add', 'remove', 'aspa', 'aspaRemove'].filter((k) => opts[k] !== undefined)
      if (opts.suggested) {
        if (changes.length) throw new UsageError('--suggested makes the plan of the suggestion alone: no --delta, --add, --remove, --aspa or --aspa-remove with it')
        const scope = { ...(typeof opts.ipv4 === 'string' ? { ipv4: opts.ipv4 } : {}), ...(typeof opts.ipv6 === 'string' ? { ipv6: opts.ipv6 } : {}) }
        const p = await ctx.send(planCalls.planSuggested(ctx.ca(), { ...comment, ...scope }))
        return { json: p, text: planText(p) }
      }
      if (opts.ipv4 !== undefined || opts.ipv6 !== undefined) throw new UsageError('-4/-6 only limit --suggested')
      if (changes.length === 0) throw new UsageError('plan create needs --delta, --add, --remove, --aspa, --aspa-remove or --suggested')
      const roasGiven = opts.delta !== undefined || opts.add !== undefined || opts.remove !== undefined
      const { delta, text } = roasGiven ? deltaFromOptions(ctx, opts) : { delta: { added: [], removed: [] }, text: '' }
      const roa = (p: { asn: number; prefix: Parameters<typeof formatPrefix>[0]; maxLength: number }) => ({ asn: p.asn, prefix: formatPrefix(p.prefix), max_length: p.maxLength })
      const body: PlanCreateJson = {
        ...comment,
        roas: { added: delta.added.map((a) => ({ ...roa(a.payload), ...(a.comment ? { comment: a.comment } : {}) })), removed: delta.removed.map(roa) },
        aspas: { add_or_replace: typeof opts.aspa === 'string' ? [parseAspaDefinition(opts.aspa)] : [], remove: typeof opts.aspaRemove === 'string' ? [asn(opts.aspaRemove)] : [] },
      }
      try {
        const p = await ctx.send(planCalls.planCreate(ctx.ca(), body))
        return { json: p, text: planText(p) }
      } catch (e) {
        // A refused delta names the lines that are wrong, and why, as roas update does.
        if (e instanceof ClientError && e.body?.delta_error !== undefined) throw new DetailedServerError(e, deltaErrorLines(e.body, text))
        throw e
      }
    },
  },
  view(['plan', 'list'], "List a CA's plans, newest first", [
    option('--status <status>', `only plans in this status: ${PLAN_STATUSES.join(', ')}`),
    option('--offset <number>', 'plans to skip'),
    option('--limit <number>', 'at most this many (1 to 500; default 50)'),
  ], (ctx, opts) => planCalls.planList(ctx.ca(), { ...status(opts), ...count(opts, 'offset'), ...count(opts, 'limit') }), (l) => planListText(l.total, l.plans)),
  view(['plan', 'show'], 'Show a plan: its diff, BGP impact, VRP and ASPA effect, and whether it is stale', [PLAN], (ctx, opts) => planCalls.planShow(ctx.ca(), planId(opts)), planText),
  view(['plan', 'approve'], "Approve a plan (under four-eyes: another user than its author) and apply it, unless --no-apply", [
    PLAN, option('--no-apply', 'approve only; plan apply applies it later'), ACCEPT_INVALID,
  ], (ctx, opts) => planCalls.planApprove(ctx.ca(), planId(opts), { ...(opts.apply === false ? { apply: false } : {}), ...acceptInvalid(opts) }), planText),
  view(['plan', 'apply'], "Apply a plan in one change (under four-eyes: once approved); refused when the CA's ROAs or ASPAs changed since", [PLAN, ACCEPT_INVALID], (ctx, opts) => planCalls.planApply(ctx.ca(), planId(opts), acceptInvalid(opts)), planText),
  view(['plan', 'reject'], 'Turn a plan down', [PLAN, option('--reason <text>', 'why')], (ctx, opts) => planCalls.planReject(ctx.ca(), planId(opts), typeof opts.reason === 'string' ? { reason: opts.reason } : {}), planText),
  view(['plan', 'withdraw'], 'Take back a plan you made', [PLAN], (ctx, opts) => planCalls.planWithdraw(ctx.ca(), planId(opts)), planText),
  {
    path: ['plan', 'four-eyes'],
    summary: "Show whether the CA's ROA/ASPA changes need a second user's approval; 'on' or 'off' sets it (ca-admin)",
    args: '[setting]',
    async run(ctx, _opts, args) {
      const setting = args[0]
      if (setting !== undefined && setting !== 'on' && setting !== 'off') throw new UsageError(`'${setting}': four-eyes is 'on' or 'off' (nothing: show it)`)
      const cc = await ctx.send(setting === undefined ? planCalls.changeControl(ctx.ca()) : planCalls.changeControlUpdate(ctx.ca(), { four_eyes: setting === 'on' }))
      return { json: cc, text: `four-eyes: ${cc.four_eyes ? 'on' : 'off'}${cc.enforced ? ' (enforced by the configuration: change_control_four_eyes)' : ''}` }
    },
  },
]

function planId(opts: CommandOptions): number {
  const v = String(opts.plan)
  if (!/^[1-9][0-9]{0,15}$/.test(v)) throw new UsageError(`--plan '${v}' is not a plan id`)
  return Number(v)
}

function acceptInvalid(opts: CommandOptions): { accept_invalid?: boolean } {
  return opts.acceptInvalid ? { accept_invalid: true } : {}
}

function status(opts: CommandOptions): { status?: PlanStatus } {
  if (opts.status === undefined) return {}
  const s = String(opts.status)
  if (!(PLAN_STATUSES as readonly string[]).includes(s)) throw new UsageError(`--status '${s}': one of ${PLAN_STATUSES.join(', ')}`)
  return { status: s as PlanStatus }
}

function count(opts: CommandOptions, name: 'offset' | 'limit'): { offset?: number; limit?: number } {
  const v = opts[name]
  if (v === undefined) return {}
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`--${name} '${String(v)}' is not a number`)
  return { [name]: Number(v) }
}

function asn(v: string): number {
  try {
    return parseAsn(v)
  } catch (e) {
    throw new UsageError(`--aspa-remove: ${(e as Error).message}`)
  }
}
