/** `svcc bulk …`, `svcc keyroll …` (RFC 6489 key rolls; `--signer` moves the keys to another signer) and `svcc signers`. */
import type { CaKeysJson, SignerListJson } from '../../api/signers.js'
import { calls } from '../../client/calls.js'
import { option, view, type CommandDef } from '../command.js'
import type { Report } from '../report.js'

const done = (_: void): Report => ({ text: '' })
const signerOption = option('--signer <name>', 'the configured signer ([[signers]] name) the new keys are made in (default: default_signer)')

export const bulkCommands: CommandDef[] = [
  { path: ['bulk', 'publish'], summary: 'Force all CAs to create new objects if needed (they then also sync)', run: async (ctx) => done(await ctx.send(calls.bulkPublish())) },
  { path: ['bulk', 'refresh'], summary: 'Force all CAs to ask their parents for updated certificates', run: async (ctx) => done(await ctx.send(calls.bulkRefresh())) },
  { path: ['bulk', 'sync'], summary: 'Force all CAs to sync with their repository', run: async (ctx) => done(await ctx.send(calls.bulkSync())) },
  {
    path: ['keyroll', 'init'], summary: 'Initialise a key roll for all keys of the CA (--signer: the new keys in that signer)', options: [signerOption],
    run: async (ctx, opts) => done(await ctx.send(calls.caKeyRollInit(ctx.ca(), typeof opts.signer === 'string' ? opts.signer : undefined))),
  },
  { path: ['keyroll', 'activate'], summary: 'Finish the key roll for all keys of the CA', run: async (ctx) => done(await ctx.send(calls.caKeyRollActivate(ctx.ca()))) },
  view(['keyroll', 'show'], "Show the CA's keys per resource class: state, signer and certificate validity", [], (ctx) => calls.caKeys(ctx.ca()), (r) => caKeysText(r)),
  view(['signers'], 'Show the configured signers: type, token, keys held, whether each can sign now', [], () => calls.signerList(), (r) => signersText(r)),
]

/** The text report of `keyroll show`. */
export function caKeysText(r: CaKeysJson): string {
  const lines: string[] = []
  for (const rc of r.resource_classes) {
    lines.push(`Resource class ${rc.name} (parent ${rc.parent}): ${rc.key_state}`)
    for (const k of rc.keys) {
      const cert = k.cert ? `certified ${k.cert.not_before} to ${k.cert.not_after}` : 'no certificate yet'
      lines.push(`  ${k.state.padEnd(7)} ${k.key_id}  signer ${k.signer ?? '-'}  ${cert}`)
    }
  }
  return lines.length ? lines.join('\n') : `CA ${r.handle} has no resource classes`
}

/** The text report of `signers`. */
export function signersText(r: SignerListJson): string {
  return r.signers
    .map((s) => {
      const roles = [s.default ? 'default' : '', s.one_off ? 'one-off' : ''].filter(Boolean).join(', ')
      const token = s.type === 'PKCS#11' ? `\n  token ${s.token_label ?? '?'} serial ${s.serial ?? '?'} library ${s.lib_path ?? '?'}` : ''
      const state = s.problem ? `unavailable: ${s.problem.label} since ${s.problem.since}: ${s.problem.message}` : 'available'
      return `${s.name} (${s.type}${roles ? `; ${roles}` : ''}) handle ${s.handle ?? '-'}, ${s.keys} keys, ${state}${token}`
    })
    .join('\n')
}
