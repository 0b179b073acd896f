/** `svcc repo …`: the CA's repository (RFC 8181 client side): request, show, state, update. */
import type { CommandDef } from '../command.js'

export const repoCommands: CommandDef[] = [
  { path: ['repo', 'request'], summary: "Show this CA's RFC 8183 publisher request" },
  { path: ['repo', 'show'], summary: "Show the CA's repository configuration" },
  { path: ['repo', 'state'], summary: 'Ask the repository what the CA has published there' },
  {
    path: ['repo', 'update'],
    summary: 'Change the repository of the CA (reads the RFC 8183 repository response from a file or standard input)',
    options: [{ flags: '-r, --response <file>', description: 'RFC 8183 repository response XML (default: standard input)' }],
  },
]
