/** CA-level subcommands: list, add, show, delete, history, action, issues. */
import type { CommandDef } from '../command.js'

export const caCommands: CommandDef[] = [
  { path: ['list'], summary: 'List the CAs' },
  { path: ['add'], summary: 'Add a CA (-c <name>; a-z, A-Z, 0-9, - and _ only)' },
  { path: ['show'], summary: 'Show CA details' },
  { path: ['delete'], summary: 'Delete a CA: revoke its children, withdraw its objects, tell its parents (best effort)' },
  {
    path: ['history'],
    summary: 'Show the history of a CA',
    options: [
      { flags: '--full', description: 'include publication entries' },
      { flags: '--after <time>', description: 'only commands after this RFC 3339 time' },
      { flags: '--before <time>', description: 'only commands before this RFC 3339 time' },
      { flags: '--offset <number>', description: 'number of results to skip' },
      { flags: '--rows <number>', description: 'number of results (max 250)' },
    ],
  },
  { path: ['action'], summary: 'Show one historic CA action', options: [{ flags: '--key <key>', description: 'action key string (from history)', required: true }] },
  { path: ['issues'], summary: 'Show issues of one CA (-c) or of all CAs' },
]
