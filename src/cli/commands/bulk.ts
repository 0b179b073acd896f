/** `svcc bulk …` and `svcc keyroll …`: operations on all CAs, and key rolls (RFC 6489). */
import type { CommandDef } from '../command.js'

export const bulkCommands: CommandDef[] = [
  { path: ['bulk', 'publish'], summary: 'Force all CAs to create new objects if needed (they then also sync)' },
  { path: ['bulk', 'refresh'], summary: 'Force all CAs to ask their parents for updated certificates' },
  { path: ['bulk', 'sync'], summary: 'Force all CAs to sync with their repository' },
  { path: ['keyroll', 'init'], summary: 'Initialise a key roll for all keys of the CA' },
  { path: ['keyroll', 'activate'], summary: 'Finish the key roll for all keys of the CA' },
]
