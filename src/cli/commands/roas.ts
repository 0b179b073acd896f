/** `svcc roas …`: route origin authorisations (spec §2.7, §2.8, §4.2). */
import { ROAS_PAGE_MAX, type ConfiguredRoa, type RoaJson } from '../../api/cas.js'
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
]

function count(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
  return Number(v)
}
