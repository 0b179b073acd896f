/**
 * `svcc audit` (issue 24, beyond Krill): the audit trail across CAs and the publication server (GET /api/v1/audit),
 * as a table of time, actor (provider[/token]), kind, CA and result, or the API's JSON with --format json.
 */
import { actorLabel, AUDIT_PAGE_MAX, type AuditPageJson } from '../../api/audit.js'
import { calls } from '../../client/calls.js'
import { option, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'
import { messageBeforeDetails } from '../error-details.js'

export const auditCommands: CommandDef[] = [
  {
    path: ['audit'],
    summary: 'Show the audit trail: who did what, across CAs (-c for one) and the publication server',
    options: [
      option('--actor <id>', 'only what this actor did (a user id, admin-token, svc, anonymous)'),
      option('--kind <kind>', 'only records of this kind (roas-update, ca-init, publisher-add, login, login-failed, token-add…)'),
      option('--since <time>', 'only records at or after this ISO 8601 time, e.g. 2026-11-27T09:00:00Z'),
      option('--until <time>', 'only records before this ISO 8601 time'),
      option('--rows <number>', `number of records (default 100, at most ${AUDIT_PAGE_MAX})`),
      option('--offset <number>', 'number of records to skip'),
      option('--order <order>', 'asc (oldest first, the default) or desc (newest first)'),
    ],
    async run(ctx, opts) {
      const text = (v: unknown) => (v === undefined ? undefined : String(v))
      const num = (flag: string, v: unknown) => {
        if (v === undefined) return undefined
        if (typeof v !== 'string' || !/^[0-9]{1,12}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
        return Number(v)
      }
      const order = text(opts.order)
      if (order !== undefined && order !== 'asc' && order !== 'desc') throw new UsageError(`--order '${order}' is invalid: use asc or desc`)
      const rows = num('--rows', opts.rows)
      if (rows !== undefined && (rows < 1 || rows > AUDIT_PAGE_MAX)) throw new UsageError(`--rows ${rows} is out of range: 1 to ${AUDIT_PAGE_MAX}`)
      const q = {
        actor: text(opts.actor), ca: ctx.hasCa() ? ctx.ca() : undefined, kind: text(opts.kind), since: text(opts.since), until: text(opts.until),
        offset: num('--offset', opts.offset), limit: rows, order,
      }
      const page = await ctx.send(calls.audit(q))
      return { json: page, text: auditTable(page) }
    },
  },
]

/** The page as a table, with a line saying which records of how many it shows. */
export function auditTable(page: AuditPageJson): string {
  const head = ['TIME', 'ACTOR', 'KIND', 'CA', 'RESULT']
  const rows = page.records.map((r) => [r.time.replace(/\.\d{3}Z$/, 'Z'), actorLabel(r.actor, r.provider, r.token), r.kind, r.ca ?? '-', r.success ? 'OK' : `ERROR${typeof r.details.error === 'object' && r.details.error !== null && 'msg' in r.details.error ? `: ${messageBeforeDetails(String(r.details.error.msg))}` : ''}`])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ')
  const from = page.records.length ? page.offset + 1 : 0
  return [line(head), ...rows.map(line), `${from}-${page.offset + page.records.length} of ${page.total}`].join('\n')
}
