/**
 * `svcc roas export|import`, `svcc aspas export|import`, `svcc plan rollback` (issue 27, design.md §12; api/roa-io.ts):
 * an export prints (or writes with -o) the CA's ROAs or ASPAs as CSV (the default) or JSON (`--format json`); an
 * import sends a file and prints the plan made of it (its id, counts and BGP impact), applying it with --apply when
 * four-eyes does not stand in the way; a rollback prints the plan back to an earlier version of `svcc history`.
 */
import { writeFileSync } from 'node:fs'
import type { PlanJson } from '../../api/plans.js'
import type { IoFormat, IoKind, PlanImportJson, PlanRollbackJson } from '../../api/roa-io.js'
import type { ApiCall, HttpMethod } from '../../client/api-client.js'
import { seg } from '../../client/calls.js'
import type { CliContext } from '../args.js'
import { option, required, type CommandDef, type CommandOptions } from '../command.js'
import { UsageError, type Report } from '../report.js'

const call = <T>(method: HttpMethod, path: string, expect: ApiCall<T>['expect'], body?: unknown): ApiCall<T> => (body === undefined ? { method, path, expect } : { method, path, expect, body })

/** One function per endpoint (client/calls.ts style). */
export const roaIoCalls = {
  roasExport: (ca: string, format: IoFormat): ApiCall<string> => call('GET', `/api/v1/cas/${seg(ca)}/routes/export?format=${format}`, 'text'),
  aspasExport: (ca: string, format: IoFormat): ApiCall<string> => call('GET', `/api/v1/cas/${seg(ca)}/aspas/export?format=${format}`, 'text'),
  importPlan: (ca: string, body: PlanImportJson): ApiCall<PlanJson> => call('POST', `/api/v1/cas/${seg(ca)}/plans/import`, 'json', body),
  rollback: (ca: string, body: PlanRollbackJson): ApiCall<PlanJson> => call('POST', `/api/v1/cas/${seg(ca)}/plans/rollback`, 'json', body),
  planApply: (ca: string, id: number, acceptInvalid: boolean): ApiCall<PlanJson> => call('POST', `/api/v1/cas/${seg(ca)}/plans/${id}/apply`, 'json', acceptInvalid ? { accept_invalid: true } : {}),
}

const NOUN: Record<IoKind, string> = { roas: 'ROAs', aspas: 'ASPA definitions' }

function exportCommand(kind: IoKind): CommandDef {
  return {
    path: [kind, 'export'],
    summary: `Export the ${NOUN[kind]} as CSV (default; ${kind === 'roas' ? 'asn,prefix,max_length,comment' : 'customer,providers'}) or JSON (--format json)`,
    options: [option('-o, --out <file>', 'write the file here, byte for byte, instead of printing it (printed text is made safe for a terminal: LF line ends, control characters escaped)')],
    async run(ctx, opts) {
      const format: IoFormat = ctx.format === 'json' ? 'json' : 'csv'
      const ca = ctx.ca()
      const text = await ctx.send(kind === 'roas' ? roaIoCalls.roasExport(ca, format) : roaIoCalls.aspasExport(ca, format))
      if (typeof opts.out === 'string') {
        try {
          writeFileSync(opts.out, text)
        } catch (e) {
          throw new UsageError(`cannot write --out file '${opts.out}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
        }
        return { text: '', csv: '' }
      }
      return format === 'json' ? { json: JSON.parse(text) as unknown, text } : { text, csv: text }
    },
  }
}

function importCommand(kind: IoKind): CommandDef {
  return {
    path: [kind, 'import'],
    summary: `Make a plan of a CSV or JSON file of ${NOUN[kind]} (as export writes it): --replace (default) to end with exactly the file, --add for only what is missing; --apply to apply it`,
    options: [
      required('--file <file>', `the file ('-': standard input); CSV or JSON, told apart by its first character ([ is JSON) unless --format csv|json says`),
      option('--replace', `the CA ends with exactly the file's ${NOUN[kind]} (the default; the ${kind === 'roas' ? 'ASPAs' : 'ROAs'} are left alone)`),
      option('--add', 'only add what the file has and the CA lacks'),
      option('--comment <text>', 'why (shown with the plan)'),
      ...applyOptions(),
    ],
    async run(ctx, opts) {
      if (opts.replace && opts.add) throw new UsageError('--replace and --add exclude each other')
      const file = String(opts.file)
      const content = ctx.readFile(file, '--file')
      const format: IoFormat = ctx.format === 'csv' || ctx.format === 'json' ? ctx.format : /^\uFEFF?\s*[[{]/.test(content) ? 'json' : 'csv'
      const body: PlanImportJson = { format, kind, mode: opts.add ? 'add' : 'replace', content, ...(typeof opts.comment === 'string' ? { comment: opts.comment } : {}) }
      return planReport(ctx, opts, await ctx.send(roaIoCalls.importPlan(ctx.ca(), body)))
    },
  }
}

const applyOptions = () => [option('--apply', 'apply the plan at once (unless the CA requires four-eyes approval)'), option('--accept-invalid', 'with --apply: apply even if seen BGP announcements turn invalid')]

export const roaIoCommands: CommandDef[] = [
  exportCommand('roas'),
  importCommand('roas'),
  exportCommand('aspas'),
  importCommand('aspas'),
  {
    path: ['plan', 'rollback'],
    summary: 'Make a plan that restores the ROAs and ASPAs of an earlier version: N is the version `svcc history` shows (time::action::N::result::actor)',
    options: [required('--to <version>', 'the history version whose ROA/ASPA configuration to restore (svcc history: the third field)'), option('--comment <text>', 'why (shown with the plan)'), ...applyOptions()],
    async run(ctx, opts) {
      const to = String(opts.to)
      if (!/^[1-9][0-9]{0,15}$/.test(to)) throw new UsageError(`--to '${to}' is not a history version (1 or more; see svcc history)`)
      const body: PlanRollbackJson = { version: Number(to), ...(typeof opts.comment === 'string' ? { comment: opts.comment } : {}) }
      return planReport(ctx, opts, await ctx.send(roaIoCalls.rollback(ctx.ca(), body)))
    },
  },
]

/** The plan made, and with --apply the plan applied (or why not: four-eyes, exit 1). */
async function planReport(ctx: CliContext, opts: CommandOptions, plan: PlanJson): Promise<Report> {
  const lines = planLines(plan)
  if (!opts.apply) return { json: plan, text: lines.join('\n'), csv: lines.join('\n') + '\n' }
  if (plan.needs_approval) {
    lines.push(`not applied: CA '${plan.ca}' requires four-eyes approval; a different user with the plans-approve permission must approve plan ${plan.id} (POST /api/v1/cas/${plan.ca}/plans/${plan.id}/approve)`)
    return { json: plan, text: lines.join('\n'), csv: lines.join('\n') + '\n', exitCode: 1 }
  }
  const applied = await ctx.send(roaIoCalls.planApply(plan.ca, plan.id, opts.acceptInvalid === true))
  lines.push(`applied: history version ${applied.applied?.version ?? '?'}`)
  return { json: applied, text: lines.join('\n'), csv: lines.join('\n') + '\n' }
}

/** A plan in a few lines: id and status, what it changes, its VRP effect and its BGP impact (the invalid ones named). */
export function planLines(p: PlanJson): string[] {
  const c = p.change
  const i = p.impact
  const lines = [
    `plan ${p.id} (${p.status}${p.stale ? ', stale' : ''}${p.needs_approval ? ', needs approval' : ''}): ${p.comment}`,
    `  ROAs: ${c.roas.added.length} added, ${c.roas.removed.length} removed; ASPAs: ${i.aspas.added.length} added, ${i.aspas.changed.length} changed, ${i.aspas.removed.length} removed`,
    `  VRPs: ${i.vrps.before} before, ${i.vrps.after} after (${i.vrps.added_count} added, ${i.vrps.removed_count} removed)`,
    i.bgp.available ? `  BGP: ${i.bgp.turned_invalid} announcements turn invalid, ${i.bgp.turned_valid} valid, ${i.bgp.turned_not_found} not found` : '  BGP: no announcements loaded (nothing known of the impact on routing)',
  ]
  for (const a of i.bgp.changes.filter((x) => x.after === 'invalid').slice(0, 20)) lines.push(`    turns invalid: ${a.prefix} AS${a.asn} (${a.detail})`)
  return lines
}
