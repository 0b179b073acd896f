/**
 * `svcc ta keyroll show|init|activate`: the embedded trust anchor's key roll (RFC 9691; README "TA key roll").
 * `init` publishes a successor key (its TAL at /ta/ta-next.tal, named in the TAK); `activate` makes it current; the
 * previous key is retired by svcd later. No --ca: the trust anchor is CA 'ta' of the testbed.
 */
import type { TaKeyJson, TaKeyRollJson } from '../../api/ta.js'
import { calls } from '../../client/calls.js'
import { action, option, view, type CommandDef } from '../command.js'

export const taCommands: CommandDef[] = [
  view(['ta', 'keyroll', 'show'], "Show the trust anchor's keys: current, and during a TA key roll the successor or the previous key", [], (ctx) => calls.taKeyRoll(), (r) => keyRollText(r)),
  action(['ta', 'keyroll', 'init'], 'Start a TA key roll (RFC 9691): publish a successor key, its certificate, and a TAK naming it; its TAL is at /ta/ta-next.tal', [option('--signer <name>', 'the configured signer the successor key is made in (default: default_signer)')], (_ctx, opts) => calls.taKeyRollInit(typeof opts.signer === 'string' ? opts.signer : undefined)),
  action(['ta', 'keyroll', 'activate'], 'Make the successor the current TA key (children re-issued, /ta/ta.tal its TAL); the previous key is retired later', [], (ctx) => calls.taKeyRollActivate()),
]

/** The text report of `ta keyroll show`. */
export function keyRollText(r: TaKeyRollJson): string {
  const lines = [`State: ${r.state}`, ...keyLines('Current key', r.current)]
  if (r.next) lines.push(...keyLines('Successor key', r.next))
  if (r.old) lines.push(...keyLines('Previous key', r.old), `  retired at ${r.old.retire_at}`)
  return lines.join('\n')
}

function keyLines(title: string, k: TaKeyJson): string[] {
  return [`${title}: ${k.key_id}`, ...(k.signer ? [`  signer: ${k.signer}`] : []), ...k.uris.map((u) => `  ${u}`), ...(k.tal_uri ? [`  TAL: ${k.tal_uri}`] : [])]
}
