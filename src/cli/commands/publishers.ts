/** `svcc publishers …`: the embedded publication server's publishers (spec §4.1, krill-reference.md §1.1). */
import { publisherRequestJson, repositoryResponseFromJson, type RepositoryResponseJson } from '../../api/pubd.js'
import { calls } from '../../client/calls.js'
import { decodePublisherRequest, encodeRepositoryResponse } from '../../protocol/idexchange.js'
import { fromBase64 } from '../../util/base64.js'
import { action, documentReport, documentView, option, required, view, type CommandDef, type OptionDef } from '../command.js'
import { isoWithOffset, UsageError } from '../report.js'

const publisher: OptionDef = required('-p, --publisher <handle>', 'publisher handle')

export const publishersCommands: CommandDef[] = [
  {
    path: ['publishers', 'add'],
    summary: 'Add a publisher from its RFC 8183 publisher request; prints the repository response',
    options: [
      required('-r, --request <file>', 'RFC 8183 publisher request XML (the tag is ignored)'),
      option('-p, --publisher <handle>', 'use this handle instead of the one in the request'),
    ],
    async run(ctx, opts) {
      const xml = ctx.readFile(String(opts.request), '--request')
      let req
      try {
        req = decodePublisherRequest(xml)
      } catch (e) {
        throw new UsageError(`--request '${String(opts.request)}' is not a valid RFC 8183 publisher request: ${(e as Error).message}`)
      }
      const json = { ...publisherRequestJson(req), tag: null }
      if (typeof opts.publisher === 'string') json.publisher_handle = opts.publisher
      return documentReport(await ctx.send(calls.pubdPublisherAdd(json)), repositoryResponseXml)
    },
  },
  view(['publishers', 'list'], 'List all publishers', [], (ctx) => calls.pubdPublishers(), (list) => list.publishers.map((p) => p.handle).join('\n')),
  action(['publishers', 'remove'], 'Remove a publisher and all its content', [publisher], (ctx, opts) => calls.pubdPublisherRemove(String(opts.publisher))),
  documentView(['publishers', 'response'], 'Show the RFC 8183 repository response of a publisher', [publisher], (ctx, opts) => calls.pubdPublisherResponse(String(opts.publisher)), repositoryResponseXml),
  {
    path: ['publishers', 'show'],
    summary: 'Show a publisher: handle, id cert key hash and rsync jail (JSON adds its files and id certificate)',
    options: [publisher],
    async run(ctx, opts) {
      const p = await ctx.send(calls.pubdPublisherShow(String(opts.publisher)))
      const size = p.current_files.reduce((n, f) => n + fromBase64(f.base64).length, 0)
      const use = [`objects: ${p.current_files.length} of at most ${p.quota.objects}`, `size: ${size} of at most ${p.quota.bytes} bytes (largest object at most ${p.quota.object_bytes})`, `self-service: ${p.self_service ? 'yes' : 'no'}`]
      return { json: p, text: [`handle: ${p.handle}`, `id: ${p.id_cert.hash}`, `base uri: ${p.base_uri}`, ...use].join('\n') }
    },
  },
  view(['publishers', 'stale'], 'List publishers that have not published for a number of seconds', [required('--seconds <seconds>', 'seconds')], (ctx, opts) => {
    const seconds = String(opts.seconds)
    if (!/^[0-9]{1,10}$/.test(seconds)) throw new UsageError(`--seconds '${seconds}' is not a number of seconds`)
    return calls.pubdStale(Number(seconds))
  }, (list) => list.publishers.map((p) => p.handle).join('\n')),
  {
    path: ['publishers', 'stats'],
    summary: 'Show publication server statistics',
    async run(ctx) {
      const s = await ctx.send(calls.pubdStats())
      const lines = [
        `RRDP: session ${s.session}, serial ${s.serial}, last update ${isoWithOffset(new Date(s.last_update))}`,
        `rsync base: ${s.rsync_base}`,
        `RRDP base: ${s.rrdp_base}`,
        '',
        'publisher,objects,size,last update,objects max,bytes max,object bytes max,self-service',
        ...Object.entries(s.publishers).map(([h, p]) => `${h},${p.objects},${p.size},${p.last_update ? isoWithOffset(new Date(p.last_update)) : 'never'},${p.quota.objects},${p.quota.bytes},${p.quota.object_bytes},${p.self_service ? 'yes' : 'no'}`),
        '',
        `quota of the server: ${s.quota.used_objects} of ${s.quota.objects} objects, ${s.quota.used_bytes} of ${s.quota.bytes} bytes`,
        `quota of the self-service publishers together: ${s.self_service_quota.used_objects} of ${s.self_service_quota.objects} objects, ${s.self_service_quota.used_bytes} of ${s.self_service_quota.bytes} bytes`,
        ...(s.problems.length ? ['', 'Problems:', ...s.problems.map((p) => `  ${p.label}: ${p.msg}`)] : []),
      ]
      return { json: s, text: lines.join('\n') }
    },
  },
  action(['publishers', 'release'], 'Release output the safety floor holds back (a cycle that removes too many objects at once); check first', [], (ctx) => calls.pubdRelease()),
  action(['publishers', 'session-reset'], 'Start a new RRDP session (new session id, serial 1, a full snapshot; relying parties re-fetch everything)', [], (ctx) => calls.pubdSessionReset()),
]

/** The repository response: RFC 8183 XML as text (what an operator hands over), the API JSON with --format json. */
/** The RFC 8183 document of the API's JSON. */
function repositoryResponseXml(json: RepositoryResponseJson): string {
  return encodeRepositoryResponse(repositoryResponseFromJson(json))
}

