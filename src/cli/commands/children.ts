/** `svcc children …`: our side as parent (RFC 6492 server): add, info, update, remove, response (spec §4.1). */
import { parentResponseFromJson, type ParentResponseJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { decodeChildRequest, encodeParentResponse } from '../../protocol/idexchange.js'
import { toBase64 } from '../../util/base64.js'
import { readFileSync } from 'node:fs'
import type { CommandDef, OptionDef } from '../command.js'
import { UsageError, type Report } from '../report.js'

const child: OptionDef = { flags: '--child <name>', description: 'name of the child CA', required: true }
const resources: OptionDef[] = [
  { flags: '-a, --asn <resources>', description: 'AS resources, e.g. "AS1, AS3-AS4"' },
  { flags: '-4, --ipv4 <resources>', description: 'IPv4 resources, e.g. "10.0.0.0/8, 192.168.0.0-192.168.1.255"' },
  { flags: '-6, --ipv6 <resources>', description: 'IPv6 resources, e.g. "2001:db8::/32"' },
]

const resourceBody = (opts: Record<string, unknown>) => ({ asn: String(opts.asn ?? ''), ipv4: String(opts.ipv4 ?? ''), ipv6: String(opts.ipv6 ?? '') })

export const childrenCommands: CommandDef[] = [
  {
    path: ['children', 'add'],
    summary: 'Add a child; prints the RFC 8183 parent response (XML, or the API JSON with --format json)',
    options: [child, { flags: '--request <file>', description: "the child's RFC 8183 child request XML", required: true }, ...resources],
    async run(ctx, opts) {
      const file = String(opts.request)
      let idCert: Uint8Array
      try {
        idCert = decodeChildRequest(ctx.readFile(file, '--request')).idCert
      } catch (e) {
        if (e instanceof UsageError) throw e
        throw new UsageError(`--request '${file}' is not a valid RFC 8183 child request: ${(e as Error).message}`)
      }
      const r = await ctx.send(calls.caChildAdd(ctx.ca(), { handle: String(opts.child), resources: resourceBody(opts), id_cert: toBase64(idCert) }))
      return responseReport(r)
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
  {
    path: ['children', 'suspend'],
    summary: "Suspend a child: its certificates are withdrawn from publication until it next asks, or it is unsuspended",
    options: [child],
    async run(ctx, opts) {
      await ctx.send(calls.caChildUpdate(ctx.ca(), String(opts.child), { suspend: true }))
      return { text: '' }
    },
  },
  {
    path: ['children', 'unsuspend'],
    summary: 'Unsuspend a child: it gets new certificates, published at once',
    options: [child],
    async run(ctx, opts) {
      await ctx.send(calls.caChildUpdate(ctx.ca(), String(opts.child), { suspend: false }))
      return { text: '' }
    },
  },
  {
    path: ['children', 'update'],
    summary: 'Update the resources (a full replacement) or the id certificate of a child',
    options: [child, ...resources, { flags: '--idcert <file>', description: "the child's new DER encoded id certificate" }],
    async run(ctx, opts) {
      const hasResources = opts.asn !== undefined || opts.ipv4 !== undefined || opts.ipv6 !== undefined
      if (!hasResources && opts.idcert === undefined) throw new UsageError('give new resources (-a/-4/-6) and/or --idcert')
      const body = { ...(hasResources ? { resources: resourceBody(opts) } : {}), ...(opts.idcert !== undefined ? { id_cert: readDer(String(opts.idcert)) } : {}) }
      await ctx.send(calls.caChildUpdate(ctx.ca(), String(opts.child), body))
      return { text: '' }
    },
  },
  {
    path: ['children', 'remove'],
    summary: 'Remove a child: its certificates are revoked',
    options: [child],
    async run(ctx, opts) {
      await ctx.send(calls.caChildRemove(ctx.ca(), String(opts.child)))
      return { text: '' }
    },
  },
  {
    path: ['children', 'response'],
    summary: 'Show the RFC 8183 parent response for a child',
    options: [child],
    async run(ctx, opts) {
      return responseReport(await ctx.send(calls.caChildContact(ctx.ca(), String(opts.child))))
    },
  },
]

function responseReport(json: ParentResponseJson): Report {
  const xml = encodeParentResponse(parentResponseFromJson(json))
  return { json, text: xml, xml }
}

function readDer(file: string): string {
  try {
    return toBase64(new Uint8Array(readFileSync(file)))
  } catch (e) {
    throw new UsageError(`cannot read --idcert file '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
}
