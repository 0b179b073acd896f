/** `svcc roas …`: route origin authorisations (spec §2.7, §2.8, §4.2). */
import type { RoaJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { formatPrefix } from '../../resources/ip.js'
import { formatRoaPayload, parseRoaDelta, parseRoaPayload, type RoaPayload } from '../../resources/roa-payload.js'
import type { CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const roasCommands: CommandDef[] = [
  {
    path: ['roas', 'list'],
    summary: 'Show the current authorisations',
    async run(ctx) {
      const roas = await ctx.send(calls.caRoas(ctx.ca()))
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
      let delta
      try {
        delta = parseRoaDelta(ctx.readFile(file, '--delta'))
      } catch (e) {
        if (e instanceof UsageError) throw e
        throw new UsageError(`--delta '${file}': ${(e as Error).message}`)
      }
      const json = (p: RoaPayload): RoaJson => ({ asn: p.asn, prefix: formatPrefix(p.prefix), max_length: p.maxLength })
      await ctx.send(calls.caRoasUpdate(ctx.ca(), { added: delta.added.map((a) => ({ ...json(a.payload), ...(a.comment ? { comment: a.comment } : {}) })), removed: delta.removed.map(json) }))
      return { text: '' }
    },
  },
]
