/**
 * `svcc alerts` (issue 26 §3, beyond Krill): the active alarms, then the latest webhook deliveries with their status,
 * attempts and last error (GET /api/v1/alerts); `--all` also the cleared alarms; `svcc alerts test [--webhook NAME]`
 * queues a signed test event (POST /api/v1/alerts/test). `--format json` prints the API's answer.
 */
import type { AlarmJson, AlertsJson, AlertTestResultJson, ClearedAlarmJson } from '../../api/alerts.js'
import { calls } from '../../client/calls.js'
import { option, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const alertsCommands: CommandDef[] = [
  {
    path: ['alerts'],
    summary: "Show the active alarms and the webhook deliveries; 'svcc alerts test' sends a signed test event",
    args: '[action]',
    options: [
      option('--all', 'also the cleared alarms'),
      option('--rows <number>', 'number of cleared alarms and deliveries (default 20, at most 1000)'),
      option('--webhook <name>', "with 'test': only this webhook (default: every one)"),
    ],
    async run(ctx, opts, args) {
      const action = args[0]
      if (action === 'test') {
        const body = typeof opts.webhook === 'string' ? { webhook: opts.webhook } : {}
        const r = await ctx.send(calls.alertsTest(body))
        return { json: r, text: testText(r) }
      }
      if (action !== undefined) throw new UsageError(`unknown action '${action}': use 'svcc alerts' or 'svcc alerts test'`)
      if (opts.webhook !== undefined) throw new UsageError("--webhook goes with 'svcc alerts test'")
      const rows = opts.rows === undefined ? 20 : Number(opts.rows)
      if (typeof opts.rows === 'string' && (!/^[0-9]{1,4}$/.test(opts.rows) || rows < 1 || rows > 1000)) throw new UsageError(`--rows '${opts.rows}' is out of range: 1 to 1000`)
      const view = await ctx.send(calls.alertsView({ ...(opts.all ? {} : { active: 'true' }), limit: rows }))
      return { json: view, text: alertsText(view) }
    },
  },
]

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ')
  return [line(head), ...rows.map(line)]
}

const time = (iso: string | null | undefined) => (iso ? iso.replace(/\.\d{3}Z$/, 'Z') : '-')
const alarmRow = (a: AlarmJson | ClearedAlarmJson) => [a.kind, a.subject, a.ca ?? '-', time(a.raised_at), ...('cleared_at' in a ? [time(a.cleared_at)] : []), a.reason]

/** The active alarms, the cleared ones (with --all), the deliveries, and the webhooks. */
export function alertsText(v: AlertsJson): string {
  const out: string[] = []
  out.push(v.active.length ? `Active alarms (${v.active.length}):` : 'No active alarms.')
  if (v.active.length) out.push(...table(['KIND', 'SUBJECT', 'CA', 'SINCE', 'REASON'], v.active.map(alarmRow)))
  if (v.recent.length) out.push('', 'Cleared alarms:', ...table(['KIND', 'SUBJECT', 'CA', 'RAISED', 'CLEARED', 'REASON'], v.recent.map(alarmRow)))
  out.push('')
  if (v.webhooks.length === 0) out.push('No webhooks configured ([[alerts.webhooks]]).')
  else out.push(`Webhooks: ${v.webhooks.map((w) => `${w.name} (${w.url})`).join(', ')}`)
  if (v.deliveries.length) {
    out.push('', 'Deliveries:', ...table(['ID', 'CREATED', 'WEBHOOK', 'EVENT', 'ALARM', 'STATUS', 'ATTEMPTS', 'LAST ERROR'], v.deliveries.map((d) => [
      String(d.id), time(d.created), d.webhook, d.event, d.alarm ?? '-', d.status === 'pending' && d.next_at ? `pending (next ${time(d.next_at)})` : d.status, String(d.attempts), d.last_error ?? '-',
    ])))
  }
  return out.join('\n')
}

function testText(r: AlertTestResultJson): string {
  return r.queued.length ? `test event queued for: ${r.queued.join(', ')} (see 'svcc alerts')` : 'no webhooks configured: nothing queued'
}
