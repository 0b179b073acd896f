/** `svcc repo …`: the CA's repository (RFC 8181 client side): request, show, state, update (spec §4.1, §4.2). */
import { publisherRequestFromJson, repositoryResponseJson } from '../../api/pubd.js'
import { calls } from '../../client/calls.js'
import { decodeRepositoryResponse, encodePublisherRequest } from '../../protocol/idexchange.js'
import { UsageError } from '../report.js'
import type { CommandDef } from '../command.js'

export const repoCommands: CommandDef[] = [
  {
    path: ['repo', 'request'],
    summary: "Show this CA's RFC 8183 publisher request",
    async run(ctx) {
      const json = await ctx.send(calls.caPublisherRequest(ctx.ca()))
      const xml = encodePublisherRequest(publisherRequestFromJson(json))
      return { json, text: xml, xml }
    },
  },
  {
    path: ['repo', 'show'],
    summary: "Show the CA's repository configuration",
    async run(ctx) {
      const r = await ctx.send(calls.caRepo(ctx.ca()))
      if (!r.contact) return { json: r, text: 'No repository configured' }
      const c = r.contact
      const text = ['Repository Details:', `  type:        ${c.type === 'embedded' ? 'embedded' : 'remote'}`, `  service uri: ${c.server_info.service_uri}`, `  base_uri:    ${c.repo_info.sia_base}`, `  rpki_notify: ${c.repo_info.rrdp_notification_uri}`].join('\n')
      return { json: r, text }
    },
  },
  {
    path: ['repo', 'state'],
    summary: 'Ask the repository what the CA has published there',
    async run(ctx) {
      const s = await ctx.send(calls.caRepoStatus(ctx.ca()))
      return { json: s, text: ['Available and publishing objects:', ...s.published.map((p) => `${p.hash} ${p.uri}`)].join('\n') }
    },
  },
  {
    path: ['repo', 'update'],
    summary: 'Change the repository of the CA (reads the RFC 8183 repository response from a file or standard input)',
    options: [{ flags: '-r, --response <file>', description: 'RFC 8183 repository response XML (default: standard input)' }],
    async run(ctx, opts) {
      const file = typeof opts.response === 'string' ? opts.response : undefined
      const xml = file ? ctx.readFile(file, '--response') : ctx.readStdin()
      let response
      try {
        response = repositoryResponseJson(decodeRepositoryResponse(xml))
      } catch (e) {
        throw new UsageError(`${file ? `--response '${file}'` : 'standard input'} is not a valid RFC 8183 repository response: ${(e as Error).message}`)
      }
      await ctx.send(calls.caRepoUpdate(ctx.ca(), response))
      return { text: '' }
    },
  },
]
