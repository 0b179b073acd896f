/** `svcc parents …`: our side as child (RFC 6492 client): request, add, contact, update, remove (spec §4.1). */
import { childRequestFromJson, parentResponseJson, type AddParentJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { decodeParentResponse, encodeChildRequest } from '../../protocol/idexchange.js'
import type { CliContext } from '../args.js'
import { action, documentView, required, view, type CommandDef } from '../command.js'
import { isoWithOffset, UsageError } from '../report.js'

const parent = required('-p, --parent <name>', 'local name of the parent')
const response = required('-r, --response <file>', "the parent's RFC 8183 parent response XML")

export const parentsCommands: CommandDef[] = [
  documentView(['parents', 'request'], "Show this CA's RFC 8183 child request", [], (ctx) => calls.caChildRequest(ctx.ca()), (json) => encodeChildRequest(childRequestFromJson(json))),
  action(['parents', 'add'], 'Add a parent from its RFC 8183 parent response', [parent, response], (ctx, opts) => calls.caParentAdd(ctx.ca(), parentBody(ctx, String(opts.parent), String(opts.response)))),
  view(['parents', 'contact'], 'Show the contact information of a parent', [parent], (ctx, opts) => calls.caParentContact(ctx.ca(), String(opts.parent)), (c) =>
    [`type: RFC 6492 Parent`, `service uri: ${c.service_uri}`, `parent handle: ${c.parent_handle}`, `child handle: ${c.child_handle}`, `id cert hash: ${c.id_cert.hash}`].join('\n')),
  view(['parents', 'statuses'], 'Show the last exchange with each parent', [], (ctx) => calls.caParentStatuses(ctx.ca()), (st) =>
    Object.entries(st).map(([p, s]) => {
      const last = s.last_exchange
      const result = !last ? 'never contacted' : last.result === 'Success' ? 'success' : `failure (${last.result.Failure.label}): ${last.result.Failure.msg}`
      return `${p}: ${last ? isoWithOffset(new Date(last.timestamp * 1000)) + ' ' : ''}${result}`
    }).join('\n')),
  action(['parents', 'update'], 'Replace the parent response of a parent (adds it when it is not there yet, as Krill)', [parent, response], (ctx, opts) =>
    calls.caParentUpdate(ctx.ca(), String(opts.parent), parentBody(ctx, String(opts.parent), String(opts.response)))),
  action(['parents', 'remove'], 'Remove a parent: request revocation and withdraw objects', [parent], (ctx, opts) => calls.caParentRemove(ctx.ca(), String(opts.parent))),
]

function parentBody(ctx: CliContext, name: string, file: string): AddParentJson {
  const xml = ctx.readFile(file, '--response')
  try {
    return { handle: name, response: parentResponseJson(decodeParentResponse(xml)) }
  } catch (e) {
    throw new UsageError(`--response '${file}' is not a valid RFC 8183 parent response: ${(e as Error).message}`)
  }
}
