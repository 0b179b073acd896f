/** CA-level subcommands: list, add, show, delete, history, action, issues (spec §4.1, §4.2 `show`). */
import { MAX_HISTORY_ROWS, type CaIssuesJson, type CertAuthInfo } from '../../api/cas.js'
import { actorLabel } from '../../api/audit.js'
import { calls } from '../../client/calls.js'
import { idCertPem } from '../../protocol/id-cert.js'
import { fromBase64 } from '../../util/base64.js'
import { action, option, required, view, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'
import { messageBeforeDetails } from '../error-details.js'

export const caCommands: CommandDef[] = [
  view(['list'], 'List the CAs', [], (ctx) => calls.caList(), (list) => list.cas.map((c) => c.handle).join('\n')),
  action(['add'], 'Add a CA (-c <name>; a-z, A-Z, 0-9, - and _ only)', [], (ctx) => calls.caAdd(ctx.ca())),
  view(['show'], 'Show CA details', [], (ctx) => calls.caShow(ctx.ca()), (info) => showText(info)),
  action(['delete'], 'Delete a CA: revoke its children, withdraw its objects, tell its parents (best effort)', [], (ctx) => calls.caDelete(ctx.ca())),
  {
    path: ['history'],
    summary: 'Show the history of a CA',
    options: [
      option('--full', 'include publication entries'),
      option('--after <time>', 'only commands after this RFC 3339 time'),
      option('--before <time>', 'only commands before this RFC 3339 time'),
      option('--offset <number>', 'number of results to skip'),
      option('--rows <number>', 'number of results (max 250)'),
    ],
    async run(ctx, opts) {
      const rows = count(opts.rows, '--rows', 100)
      if (rows < 1 || rows > MAX_HISTORY_ROWS) throw new UsageError(`--rows ${rows} is out of range: at most ${MAX_HISTORY_ROWS} rows per request (spec §8)`)
      const q = { rows, offset: count(opts.offset, '--offset', 0), after: rfc3339(opts.after, '--after'), before: rfc3339(opts.before, '--before'), full: opts.full === true }
      const h = await ctx.send(calls.caHistory(ctx.ca(), q))
      // Krill's time::command::version::success, and (beyond Krill) who: ::actor (provider[/token]).
      const line = (r: (typeof h.commands)[number]) => `${new Date(r.timestamp).toISOString().replace(/\.\d{3}Z$/, 'Z')}::${r.summary.msg}::${r.version}::${'Ok' in r.effect ? 'OK' : `ERROR: ${messageBeforeDetails(r.effect.Error)}`}::${actorLabel(r.actor, r.actor_provider, r.actor_token)}`
      return { json: h, text: h.commands.map(line).join('\n') }
    },
  },
  {
    path: ['action'],
    summary: 'Show one historic CA action',
    options: [required('--key <key>', 'action key string (from history)')],
    async run(ctx, opts) {
      const d = await ctx.send(calls.caHistoryDetails(ctx.ca(), String(opts.key)))
      const lines = [`time:   ${d.time}`, `actor:  ${actorLabel(d.actor, d.actor_provider, d.actor_token)}`, `action: ${d.msg}`]
      if (d.effect.result === 'success') lines.push('result: OK', 'changes:', ...(d.effect.events.length ? d.effect.events.map((e) => `  ${e.msg}`) : ['  none']))
      else lines.push(`result: ERROR: ${d.effect.msg}`)
      return { json: d, text: lines.join('\n') }
    },
  },
  {
    path: ['issues'],
    summary: 'Show issues of one CA (-c) or of all CAs',
    async run(ctx) {
      if (ctx.hasCa()) {
        const i = await ctx.send(calls.caIssues(ctx.ca()))
        return { json: i, text: issuesText(i) || 'no issues' }
      }
      const all = await ctx.send(calls.bulkIssues())
      const pubd = (all.publication_server ?? []).map((p) => `Publication server issue: ${p.msg} (${p.label})`)
      const signers = (all.signers ?? []).map((p) => `Signer issue: ${p.msg} (${p.label})`)
      const quarantined = (all.quarantined ?? []).map((q) => `Quarantined ${q.what} ${q.subject} (id ${q.id}, since ${q.at}): ${q.reason}`)
      const stalled = (all.stalled ?? []).map((p) => `Stalled: ${p.msg} (${p.label})`)
      const text = [...Object.entries(all.cas).map(([ca, i]) => `CA '${ca}':\n${issuesText(i)}`), ...pubd, ...signers, ...quarantined, ...stalled].join('\n')
      return { json: all, text: text || 'no issues' }
    },
  },
]

/** Spec §4.2 `show`: Name, Base uri, RRDP uri, ID cert PEM, Hash, Total resources, Parents, Children. */
export function showText(i: CertAuthInfo): string {
  const lines = [`Name:     ${i.handle}`, '']
  if (i.repo_info) lines.push(`Base uri: ${i.repo_info.sia_base}`, `RRDP uri: ${i.repo_info.rrdp_notification_uri}`)
  else lines.push('Base uri: <none>', 'RRDP uri: <none>')
  lines.push('', 'ID cert PEM:', idCertPem(fromBase64(i.id_cert.base64)).trimEnd(), `Hash: ${i.id_cert.hash}`, '')
  if (i.id_cert_pending) lines.push(`Identity key roll pending: new id cert hash ${i.id_cert_pending.hash} (svcc id show)`, '')
  lines.push('Total resources:', `    ASNs: ${i.resources.asn}`, `    IPv4: ${i.resources.ipv4}`, `    IPv6: ${i.resources.ipv6}`, '')
  lines.push('Parents:')
  if (i.parents.length === 0) lines.push('<none>')
  for (const p of i.parents) {
    lines.push(`Handle: ${p.handle} Kind: RFC 6492 Parent`)
    for (const [name, rc] of Object.entries(i.resource_classes).filter(([, rc]) => rc.parent_handle === p.handle)) {
      const [state, keys] = Object.entries(rc.keys)[0] ?? ['pending', {}]
      const cert = Object.values(keys).find((k) => k.incoming_cert)?.incoming_cert
      lines.push(`  Resource Class: ${name}`, `  Parent: ${p.handle}`, `  State: ${state}`)
      if (cert) lines.push(`  Resources:`, `    ASNs: ${cert.resources.asn}`, `    IPv4: ${cert.resources.ipv4}`, `    IPv6: ${cert.resources.ipv6}`)
      lines.push('  Current objects:', ...rc.current_objects.map((o) => `    ${o}`))
    }
  }
  lines.push('', 'Children:')
  lines.push(...(i.children.length ? i.children : ['<none>']))
  return lines.join('\n')
}

function issuesText(i: CaIssuesJson): string {
  const lines: string[] = []
  if (i.repo_issue) lines.push(`Repository issue: ${i.repo_issue.msg} (${i.repo_issue.label})`)
  for (const p of i.parent_issues) lines.push(`Parent '${p.parent}' issue: ${p.issue.msg} (${p.issue.label})`)
  if (i.objects_issue) lines.push(`Objects issue: ${i.objects_issue.msg} (${i.objects_issue.label})`)
  return lines.join('\n')
}

/** A non-negative count option, or the default. */
function count(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
  return Number(v)
}

/** An RFC 3339 date-time (RFC 3339 §5.6) as unix seconds; anything else is a usage error. */
export function rfc3339(v: unknown, flag: string): number | undefined {
  if (v === undefined) return undefined
  const text = String(v)
  const ok = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')))
  if (!ok) throw new UsageError(`${flag} '${text}' is not an RFC 3339 date-time such as 2026-11-22T10:00:00Z`)
  return Math.floor(Date.parse(text.replace(' ', 'T')) / 1000)
}
