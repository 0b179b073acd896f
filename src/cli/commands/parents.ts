/** `svcc parents …`: our side as child (RFC 6492 client): request, add, contact, update, remove (spec §4.1). */
import { childRequestFromJson, parentResponseJson, type AddParentJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { decodeParentResponse, encodeChildRequest } from '../../protocol/idexchange.js'
import type { CliContext } from '../args.js'
import type { CommandDef, OptionDef } from '../command.js'
import { isoWithOffset, UsageError } from '../report.js'

const parent: OptionDef = { flags: '-p, --parent <name>', description: 'local name of the parent', required: true }
const response: OptionDef = { flags: '-r, --response <file>', description: "the parent's RFC 8183 parent response XML", required: true }

export const parentsCommands: CommandDef[] = [
  {
    path: ['parents', 'request'],
    summary: "Show this CA's RFC 8183 child request",
    async run(ctx) {
      const json = await ctx.send(calls.caChildRequest(ctx.ca()))
      const xml = encodeChildRequest(childRequestFromJson(json))
      return { json, text: xml, xml }
    },
  },
  {
    path: ['parents', 'add'],
    summary: 'Add a parent from its RFC 8183 parent response',
    options: [parent, response],
    async run(ctx, opts) {
      await ctx.send(calls.caParentAdd(ctx.ca(), parentBody(ctx, String(opts.parent), String(opts.response))))
      return { text: '' }
    },
  },
  {
    path: ['parents', 'contact'],
    summary: 'Show the contact information of a parent',
    options: [parent],
    async run(ctx, opts) {
      const c = await ctx.send(calls.caParentContact(ctx.ca(), String(opts.parent)))
      const text = [`type: RFC 6492 Parent`, `service uri: ${c.service_uri}`, `parent handle: ${c.parent_handle}`, `child handle: ${c.child_handle}`, `id cert hash: ${c.id_cert.hash}`].join('\n')
      return { json: c, text }
    },
  },
  {
    path: ['parents', 'statuses'],
    summary: 'Show the last exchange with each parent',
    async run(ctx) {
      const st = await ctx.send(calls.caParentStatuses(ctx.ca()))
      const lines = Object.entries(st).map(([p, s]) => {
        const last = s.last_exchange
        const result = !last ? 'never contacted' : last.result === 'Success' ? 'success' : `failure: ${last.result.Failure.msg}`
        return `${p}: ${last ? isoWithOffset(new Date(last.timestamp * 1000)) + ' ' : ''}${result}`
      })
      return { json: st, text: lines.join('\n') }
    },
  },
  {
    path: ['parents', 'update'],
    summary: 'Replace the parent response of a parent (adds it when it is not there yet, as Krill)',
    options: [parent, response],
    async run(ctx, opts) {
      await ctx.send(calls.caParentUpdate(ctx.ca(), String(opts.parent), parentBody(ctx, String(opts.parent), String(opts.response))))
      return { text: '' }
    },
  },
  {
    path: ['parents', 'remove'],
    summary: 'Remove a parent: request revocation and withdraw objects',
    options: [parent],
    async run(ctx, opts) {
      await ctx.send(calls.caParentRemove(ctx.ca(), String(opts.parent)))
      return { text: '' }
    },
  },
]

function parentBody(ctx: CliContext, name: string, file: string): AddParentJson {
  const xml = ctx.readFile(file, '--response')
  try {
    return { handle: name, response: parentResponseJson(decodeParentResponse(xml)) }
  } catch (e) {
    throw new UsageError(`--response '${file}' is not a valid RFC 8183 parent response: ${(e as Error).message}`)
  }
}
