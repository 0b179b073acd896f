/** `svcc publishers …`: the embedded publication server's publishers. */
import type { CommandDef, OptionDef } from '../command.js'

const publisher: OptionDef = { flags: '-p, --publisher <handle>', description: 'publisher handle', required: true }

export const publishersCommands: CommandDef[] = [
  {
    path: ['publishers', 'add'],
    summary: 'Add a publisher from its RFC 8183 publisher request; prints the repository response',
    options: [
      { flags: '-r, --request <file>', description: 'RFC 8183 publisher request XML (the tag is ignored)', required: true },
      { flags: '-p, --publisher <handle>', description: 'use this handle instead of the one in the request' },
    ],
  },
  { path: ['publishers', 'list'], summary: 'List all publishers' },
  { path: ['publishers', 'remove'], summary: 'Remove a publisher and all its content', options: [publisher] },
  { path: ['publishers', 'response'], summary: 'Show the RFC 8183 repository response of a publisher', options: [publisher] },
  { path: ['publishers', 'show'], summary: 'Show a publisher (JSON adds its files and id certificate)', options: [publisher] },
  { path: ['publishers', 'stale'], summary: 'List publishers that have not published for a number of seconds', options: [{ flags: '--seconds <seconds>', description: 'seconds', required: true }] },
  { path: ['publishers', 'stats'], summary: 'Show publication server statistics' },
]
