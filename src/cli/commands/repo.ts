/** `svcc repo …`: the CA's repository (RFC 8181 client side): request, show, state, update (spec §4.1, §4.2). */
import { publisherRequestFromJson, repositoryResponseJson } from '../../api/pubd.js'
import { calls } from '../../client/calls.js'
import { decodeRepositoryResponse, encodePublisherRequest } from '../../protocol/idexchange.js'
import { UsageError } from '../report.js'
import { action, documentView, option, view, type CommandDef } from '../command.js'

export const repoCommands: CommandDef[] = [
  documentView(['repo', 'request'], "Show this CA's RFC 8183 publisher request", [], (ctx) => calls.caPublisherRequest(ctx.ca()), (json) => encodePublisherRequest(publisherRequestFromJson(json))),
  view(['repo', 'show'], "Show the CA's repository configuration", [], (ctx) => calls.caRepo(ctx.ca()), ({ contact: c }) => !c ? 'No repository configured' :
    ['Repository Details:', `  type:        ${c.type === 'embedded' ? 'embedded' : 'remote'}`, `  service uri: ${c.server_info.service_uri}`, `  base_uri:    ${c.repo_info.sia_base}`, `  rpki_notify: ${c.repo_info.rrdp_notification_uri}`].join('\n')),
  view(['repo', 'state'], 'Ask the repository what the CA has published there', [], (ctx) => calls.caRepoStatus(ctx.ca()), (s) =>
    ['Available and publishing objects:', ...s.published.map((p) => `${p.hash} ${p.uri}`)].join('\n')),
  action(['repo', 'update'], 'Change the repository of the CA (reads the RFC 8183 repository response from a file or standard input)',
    [option('-r, --response <file>', 'RFC 8183 repository response XML (default: standard input)')], (ctx, opts) => {
      const file = typeof opts.response === 'string' ? opts.response : undefined
      const xml = file ? ctx.readFile(file, '--response') : ctx.readStdin()
      let response
      try {
        response = repositoryResponseJson(decodeRepositoryResponse(xml))
      } catch (e) {
        throw new UsageError(`${file ? `--response '${file}'` : 'standard input'} is not a valid RFC 8183 repository response: ${(e as Error).message}`)
      }
      return calls.caRepoUpdate(ctx.ca(), response)
    }),
]
