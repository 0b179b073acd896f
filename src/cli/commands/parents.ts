/** `svcc parents …`: our side as child (RFC 6492 client): request, add, contact, update, remove. */
import type { CommandDef, OptionDef } from '../command.js'

const parent: OptionDef = { flags: '-p, --parent <name>', description: 'local name of the parent', required: true }
const response: OptionDef = { flags: '-r, --response <file>', description: "the parent's RFC 8183 parent response XML", required: true }

export const parentsCommands: CommandDef[] = [
  { path: ['parents', 'request'], summary: "Show this CA's RFC 8183 child request" },
  { path: ['parents', 'add'], summary: 'Add a parent from its RFC 8183 parent response', options: [parent, response] },
  { path: ['parents', 'contact'], summary: 'Show the contact information of a parent', options: [parent] },
  { path: ['parents', 'update'], summary: 'Replace the parent response of an existing parent', options: [parent, response] },
  { path: ['parents', 'remove'], summary: 'Remove a parent: request revocation and withdraw objects', options: [parent] },
]
