/** `svcc roas …`: route origin authorisations (spec §2.7, §2.8, §4.2). */
import { ROAS_PAGE_MAX, type ConfiguredRoa, type RoaJson } from '../../api/cas.js'
import { ClientError } from '../../client/api-client.js'
import { calls } from '../../client/calls.js'
import { formatPrefix } from '../../resources/ip.js'
import { formatRoaPayload, parseRoaDelta, parseRoaPayload, type RoaDelta, type RoaPayload } from '../../resources/roa-payload.js'
import type { CliContext } from '../args.js'
import { option, view, type CommandDef } from '../command.js'
import { reportText, suggestionText } from './bgp-report.js'
import { deltaErrorLines } from '../error-details.js'
import { DetailedServerError, UsageError } from '../report.js'

export const roasCommands: CommandDef[] = [
  {
    path: ['roas', 'list'],
    summary: 'Show the current authorisations',
    options: [
      option('--offset <number>', 'authorisations to skip'),
      option('--limit <number>', `one page of at most this many authorisations (1 to ${ROAS_PAGE_MAX}); without it, every page`),
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
    summary: 'Add and remove authorisations: a delta file (A: / R: lines, # comments), --add, --remove; --dryrun shows the BGP analysis it would lead to',
    options: [
      option('--delta <file>', 'ROA delta file'),
      option('--add <roa>', "an authorisation to add, '<prefix>[-<max>] => <asn> [# comment]' (more at once: --delta)"),
      option('--remove <roa>', "an authorisation to remove, '<prefix>[-<max>] => <asn>'"),
      option('--dryrun', 'change nothing: show the BGP analysis of the ROAs the update would leave'),
    ],
    async run(ctx, opts) {
      if (opts.delta === undefined && opts.add === undefined && opts.remove === undefined) throw new UsageError('roas update needs --delta, --add or --remove')
      const { delta, text } = deltaFromOptions(ctx, opts)
      const json = (p: RoaPayload): RoaJson => ({ asn: p.asn, prefix: formatPrefix(p.prefix), max_length: p.maxLength })
      const body = { added: delta.added.map((a) => ({ ...json(a.payload), ...(a.comment ? { comment: a.comment } : {}) })), removed: delta.removed.map(json) }
      try {
        if (opts.dryrun) {
          const report = await ctx.send(calls.caRoutesDryRun(ctx.ca(), body))
          return { json: report, text: reportText(report) }
        }
        await ctx.send(calls.caRoasUpdate(ctx.ca(), body))
      } catch (e) {
        // A refused delta names the lines of the file that are wrong, and why (issue 12 item 7).
        if (e instanceof ClientError && e.body?.delta_error !== undefined) throw new DetailedServerError(e, deltaErrorLines(e.body, text))
        throw e
      }
      return { text: '' }
    },
  },
  view(['roas', 'bgp', 'analyze'], 'Show the BGP analysis of the ROAs: each ROA and each announcement in the resources, with its state (RIS whois dumps: config bgp_riswhois_*)', [], (ctx) => calls.caRoutesAnalysis(ctx.ca()), (report) => reportText(report)),
  view(['roas', 'bgp', 'suggest'], 'Show ROA changes the BGP announcements suggest (none without BGP data)', [
    option('-4, --ipv4 <prefixes>', 'only for these IPv4 resources'),
    option('-6, --ipv6 <prefixes>', 'only for these IPv6 resources'),
  ], (ctx, opts) => {
    const scoped = opts.ipv4 !== undefined || opts.ipv6 !== undefined
    const scope = { asn: '', ipv4: typeof opts.ipv4 === 'string' ? opts.ipv4 : '', ipv6: typeof opts.ipv6 === 'string' ? opts.ipv6 : '' }
    return scoped ? calls.caRoutesSuggestScoped(ctx.ca(), scope) : calls.caRoutesSuggest(ctx.ca())
  }, (suggestion) => suggestionText(suggestion)),
]

/** The delta of --delta, --add and --remove together, and its text (for errors by line): --add and --remove come after the file's lines. */
export function deltaFromOptions(ctx: CliContext, opts: Record<string, string | boolean | undefined>): { delta: RoaDelta; text: string } {
  const lines: string[] = []
  const file = typeof opts.delta === 'string' ? opts.delta : undefined
  if (file !== undefined) lines.push(ctx.readFile(file, '--delta'))
  for (const [flag, kind] of [['add', 'A'], ['remove', 'R']] as const) {
    const v = opts[flag]
    if (typeof v !== 'string') continue
    if (v.includes('\n')) throw new UsageError(`--${flag}: one authorisation (more at once with --delta)`)
    if (kind === 'R' && v.includes('#')) throw new UsageError('--remove: no comment')
    lines.push(`${kind}: ${v}`)
  }
  const text = lines.join('\n')
  try {
    return { delta: parseRoaDelta(text), text }
  } catch (e) {
    if (e instanceof UsageError) throw e
    const where = file !== undefined ? `--delta '${file}'` : opts.add !== undefined ? '--add' : '--remove'
    throw new UsageError(`${where}: ${(e as Error).message}`)
  }
}

function count(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
  return Number(v)
}
