/** `svcc roas …`: route origin authorisations (spec §2.7, §2.8). */
import type { CommandDef } from '../command.js'

export const roasCommands: CommandDef[] = [
  { path: ['roas', 'list'], summary: 'Show the current authorisations' },
  { path: ['roas', 'update'], summary: 'Apply a ROA delta file (A: / R: lines)', options: [{ flags: '--delta <file>', description: 'ROA delta file', required: true }] },
]
