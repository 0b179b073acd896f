/** `svcc children …`: our side as parent (RFC 6492 server): add, info, update, remove, response (spec §4.1). */
import { parentResponseFromJson, type ParentResponseJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { decodeChildRequest, encodeParentResponse } from '../../protocol/idexchange.js'
import { toBase64 } from '../../util/base64.js'
import { readFileSync } from 'node:fs'
import { action, documentReport, documentView, option, required, resourceOptions, type CommandDef, type OptionDef } from '../command.js'
import { UsageError } from '../report.js'

const child: OptionDef = required('--child <name>', 'name of the child CA')
const resources = resourceOptions('', '"AS1, AS3-AS4"', '"10.0.0.0/8, 192.168.0.0-192.168.1.255"', '"2001:db8::/32"')

const resourceBody = (opts: Record<string, unknown>) => ({ asn: String(opts.asn ?? ''), ipv4: String(opts.ipv4 ?? ''), ipv6: String(opts.ipv6 ?? '') })

/** The id certificate of an RFC 8183 child request (a usage error when the file is none). */
function childRequestFile(xml: string, file: string): Uint8Array {
  try {
    return decodeChildRequest(xml).idCert
  } catch (e) {
    throw new UsageError(`--request '${file}' is not a valid RFC 8183 child request: ${(e as Error).message}`)
  }
}

export const childrenCommands: CommandDef[] = [
  {
    path: ['children', 'add'],
    summary: 'Add a child; prints the RFC 8183 parent response (XML, or the API JSON with --format json)',
    options: [child, required('--request <file>', "the child's RFC 8183 child request XML"), ...resources],
    async run(ctx, opts) {
      const file = String(opts.request)
      const idCert = childRequestFile(ctx.readFile(file, '--request'), file)
      const r = await ctx.send(calls.caChildAdd(ctx.ca(), { handle: String(opts.child), resources: resourceBody(opts), id_cert: toBase64(idCert) }))
      return documentReport(r, parentResponseXml)
    },
  },
  {
    path: ['children', 'info'],
    summary: 'Show the id and resources of a child',
    options: [child],
    async run(ctx, opts) {
      const i = await ctx.send(calls.caChildInfo(ctx.ca(), String(opts.child)))
      const r = i.entitled_resources
      return { json: i, text: [`state: ${i.state}`, `id cert hash: ${i.id_cert.hash}`, `resources: asn: ${r.asn}, ipv4: ${r.ipv4}, ipv6: ${r.ipv6}`].join('\n') }
    },
  },
  action(['children', 'suspend'], "Suspend a child: its certificates are withdrawn from publication until it next asks, or it is unsuspended", [child], (ctx, opts) => calls.caChildUpdate(ctx.ca(), String(opts.child), { suspend: true })),
  action(['children', 'unsuspend'], 'Unsuspend a child: it gets new certificates, published at once', [child], (ctx, opts) => calls.caChildUpdate(ctx.ca(), String(opts.child), { suspend: false })),
  action(['children', 'update'], 'Update the resources (a full replacement) or the id certificate of a child (after its identity key roll: its previous one is accepted until it signs with the new one)', [child, ...resources, option('--idcert <file>', "the child's new DER encoded id certificate"), option('--request <file>', "the child's new RFC 8183 child request XML (its id certificate)")], (ctx, opts) => {
    const hasResources = opts.asn !== undefined || opts.ipv4 !== undefined || opts.ipv6 !== undefined
    if (!hasResources && opts.idcert === undefined && opts.request === undefined) throw new UsageError('give new resources (-a/-4/-6) and/or --idcert or --request')
    if (opts.idcert !== undefined && opts.request !== undefined) throw new UsageError('give --idcert or --request, not both')
    const idCert = opts.idcert !== undefined ? readDer(String(opts.idcert)) : opts.request !== undefined ? toBase64(childRequestFile(ctx.readFile(String(opts.request), '--request'), String(opts.request))) : undefined
    const body = { ...(hasResources ? { resources: resourceBody(opts) } : {}), ...(idCert !== undefined ? { id_cert: idCert } : {}) }
    return calls.caChildUpdate(ctx.ca(), String(opts.child), body)
  }),
  action(['children', 'remove'], 'Remove a child: its certificates are revoked', [child], (ctx, opts) => calls.caChildRemove(ctx.ca(), String(opts.child))),
  documentView(['children', 'response'], 'Show the RFC 8183 parent response for a child', [child], (ctx, opts) => calls.caChildContact(ctx.ca(), String(opts.child)), parentResponseXml),
]

/** The RFC 8183 document of the API's JSON. */
function parentResponseXml(json: ParentResponseJson): string {
  return encodeParentResponse(parentResponseFromJson(json))
}

function readDer(file: string): string {
  try {
    return toBase64(new Uint8Array(readFileSync(file)))
  } catch (e) {
    throw new UsageError(`cannot read --idcert file '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}
