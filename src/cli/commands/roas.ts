/** `svcc roas …`: route origin authorisations (spec §2.7, §2.8, §4.2). */
import { ROAS_PAGE_MAX, type BgpAnalysisEntry, type ConfiguredRoa, type RoaJson } from '../../api/cas.js'
import { ClientError } from '../../client/api-client.js'
import { calls } from '../../client/calls.js'
import { formatPrefix } from '../../resources/ip.js'
import { formatRoaPayload, parseRoaDelta, parseRoaPayload, type RoaPayload } from '../../resources/roa-payload.js'
import type { CommandDef } from '../command.js'
import { deltaErrorLines } from '../error-details.js'
import { DetailedServerError, UsageError } from '../report.js'

export const roasCommands: CommandDef[] = [
  {
    path: ['roas', 'list'],
    summary: 'Show the current authorisations',
    options: [
      { flags: '--offset <number>', description: 'authorisations to skip' },
      { flags: '--limit <number>', description: `one page of at most this many authorisations (1 to ${ROAS_PAGE_MAX}); without it, every page` },
    ],
    async run(ctx, opts) {
      const ca = ctx.ca()
      const offset = count(opts.offset, '--offset', 0)
      const limit = count(opts.limit, '--limit', ROAS_PAGE_MAX)
      if (limit < 1 || limit > ROAS_PAGE_MAX) throw new UsageError(`--limit ${limit} is out of range: 1 to ${ROAS_PAGE_MAX} per request`)
      // Every page from --offset on (a full page means there may be more), or the one page --limit asks for.
      const one = opts.limit !== undefined
      const roas: ConfiguredRoa[] = []
      for (let at = offset; ; ) {
        const page = await ctx.send(calls.caRoas(ca, { offset: at, limit }))
        roas.push(...page)
        at += page.length
        if (one || page.length < limit) break
      }
      const lines = roas.map((r) => formatRoaPayload(parseRoaPayload(`${r.prefix}-${r.max_length} => ${r.asn}`)))
      return { json: roas, text: lines.join('\n') }
    },
  },
  {
    path: ['roas', 'update'],
    summary: 'Apply a ROA delta file (A: / R: lines, # comments)',
    options: [{ flags: '--delta <file>', description: 'ROA delta file', required: true }],
    async run(ctx, opts) {
      const file = String(opts.delta)
      const text = ctx.readFile(file, '--delta')
      let delta
      try {
        delta = parseRoaDelta(text)
      } catch (e) {
        if (e instanceof UsageError) throw e
        throw new UsageError(`--delta '${file}': ${(e as Error).message}`)
      }
      const json = (p: RoaPayload): RoaJson => ({ asn: p.asn, prefix: formatPrefix(p.prefix), max_length: p.maxLength })
      try {
        await ctx.send(calls.caRoasUpdate(ctx.ca(), { added: delta.added.map((a) => ({ ...json(a.payload), ...(a.comment ? { comment: a.comment } : {}) })), removed: delta.removed.map(json) }))
      } catch (e) {
        // A refused delta names the lines of the file that are wrong, and why (issue 12 item 7).
        if (e instanceof ClientError && e.body?.delta_error !== undefined) throw new DetailedServerError(e, deltaErrorLines(e.body, text))
        throw e
      }
      return { text: '' }
    },
  },
  {
    path: ['roas', 'bgp', 'analyze'],
    summary: 'Show the BGP analysis of the configured ROAs (svcd has no BGP data: each ROA without announcement info, or not held)',
    async run(ctx) {
      const report = await ctx.send(calls.caRoutesAnalysis(ctx.ca()))
      const line = (r: BgpAnalysisEntry) => `  ${formatRoaPayload(parseRoaPayload(`${r.prefix}-${r.max_length} => ${r.asn}`))}`
      const notHeld = report.filter((r) => r.state === 'roa_not_held')
      const text = [
        ...(report.some((r) => r.state === 'roa_no_announcement_info') ? ['no BGP announcements known'] : []),
        ...(notHeld.length > 0 ? ['ROA configurations for which no ROAs can be made - you do not have the prefix on your certificate(s):', ...notHeld.map(line)] : []),
      ]
      return { json: report, text: text.length > 0 ? text.join('\n') : 'no ROAs configured' }
    },
  },
  {
    path: ['roas', 'bgp', 'suggest'],
    summary: 'Show ROA suggestions from BGP data (none without BGP data)',
    async run(ctx) {
      const suggestion = await ctx.send(calls.caRoutesSuggest(ctx.ca()))
      const lists = Object.entries(suggestion).filter(([, l]) => Array.isArray(l) && l.length > 0)
      return { json: suggestion, text: lists.length === 0 ? 'no suggestions' : lists.map(([k, l]) => `${k}: ${(l as unknown[]).length}`).join('\n') }
    },
  },
]

function count(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
  return Number(v)
}
