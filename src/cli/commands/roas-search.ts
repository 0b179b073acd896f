/** `svcc roas search`: the configured ROAs matching a text, sorted and paged on the server (GET …/routes/page). */
import { ROA_SORTS, ROAS_PAGE_MAX, type RoaRowJson, type RoaSort } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { option, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const roasSearchCommands: CommandDef[] = [
  {
    path: ['roas', 'search'],
    summary: 'Find configured ROAs by text (prefix, "AS<asn>" or comment), sorted, one page',
    options: [
      option('--text <text>', 'case-insensitive text in "<prefix>-<max length> => AS<asn>" or the comment (default: all)'),
      option('--sort <key>', `sort key: ${ROA_SORTS.join(', ')} (default prefix)`),
      option('--desc', 'descending order'),
      option('--offset <number>', 'matches to skip (default 0)'),
      option('--limit <number>', `rows to show, 1 to ${ROAS_PAGE_MAX} (default 100)`),
    ],
    async run(ctx, opts) {
      const sort = opts.sort === undefined ? 'prefix' : String(opts.sort)
      if (!(ROA_SORTS as readonly string[]).includes(sort)) throw new UsageError(`--sort '${sort}': one of ${ROA_SORTS.join(', ')}`)
      const offset = count(opts.offset, '--offset', 0)
      const limit = count(opts.limit, '--limit', 100)
      if (limit < 1 || limit > ROAS_PAGE_MAX) throw new UsageError(`--limit ${limit} is out of range: 1 to ${ROAS_PAGE_MAX}`)
      const page = await ctx.send(calls.caRoasQuery(ctx.ca(), { offset, limit, q: opts.text === undefined ? '' : String(opts.text), sort: sort as RoaSort, order: opts.desc ? 'desc' : 'asc' }))
      const shown = page.items.length === 0 ? 'no match' : `${offset + 1}-${offset + page.items.length} of ${page.total}`
      return { json: page, text: [...page.items.map(rowText), shown].join('\n') }
    },
  },
]

function rowText(r: RoaRowJson): string {
  const len = Number(r.prefix.split('/')[1])
  return `${r.prefix}${r.max_length !== len ? `-${r.max_length}` : ''} => ${r.asn}${r.comment ? ` # ${r.comment}` : ''}`
}

function count(v: unknown, flag: string, dflt: number): number {
  if (v === undefined) return dflt
  if (typeof v !== 'string' || !/^[0-9]{1,9}$/.test(v)) throw new UsageError(`${flag} '${String(v)}' is not a number`)
  return Number(v)
}
