/**
 * `svcc id show|roll [finish]`: a CA's RFC 8183 identity key roll (issue 25, beyond Krill; app/ca/id-roll-service.ts).
 * `id roll` makes a new identity key (`--signer`: in that signer) and gives the new id certificate to parents and the
 * repository in this svcd; with nobody elsewhere it finishes at once. Otherwise give the new `parents request` /
 * `repo request` to the parent and repository, then `id roll finish` switches the CA to the new key.
 * `publishers id-cert`: the publication server's side, a publisher's new id certificate from its publisher request.
 */
import type { IdRollJson } from '../../api/id-roll.js'
import { calls } from '../../client/calls.js'
import { decodePublisherRequest } from '../../protocol/idexchange.js'
import { toBase64 } from '../../util/base64.js'
import { action, option, required, view, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const idRollCommands: CommandDef[] = [
  view(['id', 'show'], "Show the CA's identity (id certificate hash) and a pending identity key roll", [], (ctx) => calls.caIdRoll(ctx.ca()), idRollText),
  {
    ...view(['id', 'roll'], "Roll the CA's RFC 8183 identity key ('finish': switch to the new key once the parent and repository elsewhere have the new certificate)", [option('--signer <name>', 'the signer for the new key ([[signers]] name; default: default_signer)')], (ctx, opts, args) => {
      if (args[0] === 'finish') return calls.caIdRollFinish(ctx.ca())
      if (args[0] !== undefined) throw new UsageError(`unknown step '${args[0]}' (expected: finish)`)
      return calls.caIdRollInit(ctx.ca(), opts.signer !== undefined ? { signer: String(opts.signer) } : {})
    }, idRollText),
    args: '[finish]',
  },
  action(['publishers', 'id-cert'], "Give a publisher its new identity certificate (from its new publisher request): its previous one is accepted until it signs with the new one", [required('-p, --publisher <handle>', 'the publisher'), required('-r, --request <file>', 'its new RFC 8183 publisher request (XML)')],
    (ctx, opts) => calls.pubdPublisherIdCert(String(opts.publisher), { id_cert: toBase64(publisherRequestFile(ctx.readFile(String(opts.request), '--request'), String(opts.request)).idCert) })),
]

function publisherRequestFile(xml: string, file: string) {
  try {
    return decodePublisherRequest(xml)
  } catch (e) {
    throw new UsageError(`--request '${file}' is not a valid RFC 8183 publisher request: ${(e as Error).message}`)
  }
}

export function idRollText(r: IdRollJson): string {
  const lines = [`Identity: ${r.current.hash}${r.current.signer ? ` (signer ${r.current.signer})` : ''}`]
  if (r.pending) {
    lines.push(`Identity key roll pending: ${r.pending.hash}${r.pending.signer ? ` (signer ${r.pending.signer})` : ''}`)
    if (r.pending.waiting_for.length) lines.push(`  give the new child/publisher request to: ${r.pending.waiting_for.join(', ')}; then 'svcc id roll finish'`)
  }
  return lines.join('\n')
}
