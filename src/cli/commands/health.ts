/**
 * `svcc health` (issue 26 §2; api/health.ts): the repository as relying parties see it, per CA — functional, hours to
 * manifest, CRL and certificate expiry, last good fetch per transport, rsync lag, findings — then each finding and the
 * delegated children elsewhere with the dates a registry would revoke them. It still checks, as Krill's `health` does,
 * that the server answers and accepts the token; the exit code is also 1 when a checked CA is not functional.
 */
import type { HealthCaJson, HealthChildJson, HealthPageJson } from '../../api/health.js'
import { calls } from '../../client/calls.js'
import type { CliContext } from '../args.js'
import { option, type CommandDef } from '../command.js'
import type { Report } from '../report.js'

/** Rows per request when reading every CA. */
const PAGE = 1_000

export const healthCommands: CommandDef[] = [
  {
    path: ['health'],
    summary: 'Show each CA as relying parties see its repository (functional, expiries, last fetch, findings); exit code 1 when a CA is not functional',
    options: [option('--check', 'check every CA now (needs ca-admin) and show the fresh result')],
    async run(ctx, opts) {
      const one = ctx.caFlag() !== undefined ? ctx.ca() : undefined
      let cas: HealthCaJson[]
      let json: unknown
      if (opts.check === true && one === undefined) {
        const page = await ctx.send(calls.healthCheck({ offset: 0, limit: PAGE }))
        cas = await rest(ctx, page)
        json = { ...page, cas, offset: 0, limit: cas.length }
      } else {
        if (opts.check === true) await ctx.send(calls.healthCheck({ offset: 0, limit: 1 }))
        if (one !== undefined) {
          const ca = await ctx.send(calls.healthCa(one))
          cas = [ca]
          json = ca
        } else {
          const page = await ctx.send(calls.healthCas({ offset: 0, limit: PAGE }))
          cas = await rest(ctx, page)
          json = { ...page, cas, offset: 0, limit: cas.length }
        }
      }
      return healthReport(cas, json, ctx.now())
    },
  },
]

/** The rows of every page after `first`. */
async function rest(ctx: CliContext, first: HealthPageJson): Promise<HealthCaJson[]> {
  const cas = [...first.cas]
  while (cas.length < first.total) {
    const next = await ctx.send(calls.healthCas({ offset: cas.length, limit: PAGE }))
    if (next.cas.length === 0) break
    cas.push(...next.cas)
  }
  return cas
}

/** The report: the summary line, the table, the findings, the children; exit 1 when a checked CA is not functional. */
export function healthReport(cas: readonly HealthCaJson[], json: unknown, now: number): Report {
  const bad = cas.filter((c) => c.functional === false)
  const unchecked = cas.filter((c) => c.functional === null).length
  const summary = bad.length
    ? `Not healthy: ${bad.length} of ${cas.length} CA${cas.length === 1 ? '' : 's'} not functional (${bad.map((c) => c.ca).join(', ')})`
    : `Healthy: ${cas.length - unchecked} CA${cas.length - unchecked === 1 ? '' : 's'} functional${unchecked ? `, ${unchecked} not checked yet` : ''}`
  const lines = [summary, '', ...table(cas, now)]
  const findings = cas.flatMap((c) => c.points.flatMap((p) => p.findings.map((f) => `  ${c.ca}: ${f.kind}${f.transport ? ` over ${f.transport}` : ''}${f.uri ? ` ${f.uri}` : ''}: ${f.detail}${f.rule ? ` (${f.rule})` : ''}`)))
  if (findings.length) lines.push('', 'Findings:', ...findings)
  const children = cas.flatMap((c) => c.children.map((ch) => childLine(c.ca, ch)))
  if (children.length) lines.push('', 'Children publishing elsewhere:', ...children)
  return { json, text: lines.join('\n'), exitCode: bad.length ? 1 : 0 }
}

const HEAD = ['CA', 'functional', 'manifest', 'CRL', 'certificates', 'rrdp fetch', 'rsync fetch', 'rsync lag', 'findings']

function table(cas: readonly HealthCaJson[], now: number): string[] {
  const rows = cas.map((c) => [
    c.ca, c.functional === null ? 'not checked' : c.functional ? 'yes' : 'NO', hours(c.hours_to_manifest_expiry), hours(c.hours_to_crl_expiry), hours(c.hours_to_cert_expiry),
    ago(c.last_good_fetch.rrdp, now), ago(c.last_good_fetch.rsync, now), c.rsync_lag_seconds === null ? '-' : `${c.rsync_lag_seconds}s`, String(c.findings_count),
  ])
  const widths = HEAD.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k]!.length)))
  const line = (r: string[]) => r.map((v, k) => v.padEnd(widths[k]!)).join('  ').trimEnd()
  return [line(HEAD), ...rows.map(line)]
}

/** Hours left as "in 12.5h", or "expired 2h ago". */
function hours(h: number | null): string {
  if (h === null) return '-'
  return h >= 0 ? `in ${h}h` : `expired ${-h}h ago`
}

/** How long ago an ISO time was: "40s ago", "12m ago", "3h ago", "2d ago"; "never" when null. */
export function ago(iso: string | null, now: number): string {
  if (iso === null) return 'never'
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 120) return `${s}s ago`
  if (s < 7_200) return `${Math.round(s / 60)}m ago`
  if (s < 172_800) return `${Math.round(s / 3600)}h ago`
  return `${Math.round(s / 86_400)}d ago`
}

function childLine(ca: string, ch: HealthChildJson): string {
  if (ch.functional) return `  ${ca}/${ch.child}: functional (${ch.point.dir})`
  const since = ch.non_functional_since ? ` since ${ch.non_functional_since}` : ''
  const revoke = ch.revoke_at ? `; a registry would revoke it at ${ch.revoke_at} (in ${ch.hours_to_revoke}h)` : ''
  return `  ${ca}/${ch.child}: NOT functional${since}${revoke} (${ch.point.dir})`
}
