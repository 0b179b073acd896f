/** `svcc quarantine list|drop` (issue 26 §5): what was set aside because it cannot be decoded or run (ca-admin). */
import type { QuarantinedJson } from '../../api/quarantine.js'
import { calls } from '../../client/calls.js'
import { action, view, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const quarantineCommands: CommandDef[] = [
  view(['quarantine', 'list'], 'List what was set aside because what is stored cannot be decoded or run', [], () => calls.quarantineList(), (r) => quarantineText(r.items)),
  {
    ...action(['quarantine', 'drop'], 'Drop an item set aside (by its id); a CA that still does not decode is set aside again', [], (_ctx, _opts, args) => {
      const id = args[0] ?? ''
      if (!/^[0-9]{1,15}$/.test(id)) throw new UsageError(`the id must be a number (svcc quarantine list shows them), not ${JSON.stringify(id.slice(0, 40))}`)
      return calls.quarantineDrop(id)
    }),
    args: '<id>',
  },
]

export function quarantineText(items: readonly QuarantinedJson[]): string {
  if (!items.length) return 'nothing is quarantined'
  return items.map((i) => `${i.id}: ${i.what} ${i.subject} (since ${i.at}): ${i.reason}`).join('\n')
}
