/**
 * `svcc ta keyroll show|init|activate`: the embedded trust anchor's key roll (RFC 9691; README "TA key roll").
 * `init` publishes a successor key (its TAL at /ta/ta-next.tal, named in the TAK); `activate` makes it current; the
 * previous key is retired by svcd later. No --ca: the trust anchor is CA 'ta' of the testbed.
 */
import type { TaKeyJson, TaKeyRollJson } from '../../api/ta.js'
import { calls } from '../../client/calls.js'
import type { CommandDef } from '../command.js'

export const taCommands: CommandDef[] = [
  {
    path: ['ta', 'keyroll', 'show'],
    summary: "Show the trust anchor's keys: current, and during a TA key roll the successor or the previous key",
    async run(ctx) {
      const r = await ctx.send(calls.taKeyRoll())
      return { json: r, text: keyRollText(r) }
    },
  },
  {
    path: ['ta', 'keyroll', 'init'],
    summary: 'Start a TA key roll (RFC 9691): publish a successor key, its certificate, and a TAK naming it; its TAL is at /ta/ta-next.tal',
    async run(ctx) {
      await ctx.send(calls.taKeyRollInit())
      return { text: '' }
    },
  },
  {
    path: ['ta', 'keyroll', 'activate'],
    summary: 'Make the successor the current TA key (children re-issued, /ta/ta.tal its TAL); the previous key is retired later',
    async run(ctx) {
      await ctx.send(calls.taKeyRollActivate())
      return { text: '' }
    },
  },
]

/** The text report of `ta keyroll show`. */
export function keyRollText(r: TaKeyRollJson): string {
  const lines = [`State: ${r.state}`, ...keyLines('Current key', r.current)]
  if (r.next) lines.push(...keyLines('Successor key', r.next))
  if (r.old) lines.push(...keyLines('Previous key', r.old), `  retired at ${r.old.retire_at}`)
  return lines.join('\n')
}

function keyLines(title: string, k: TaKeyJson): string[] {
  return [`${title}: ${k.key_id}`, ...k.uris.map((u) => `  ${u}`), ...(k.tal_uri ? [`  TAL: ${k.tal_uri}`] : [])]
}
