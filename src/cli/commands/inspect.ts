/** `svcc inspect <file>`: decode an RPKI object offline (no server) and report its profile problems. */
import type { CommandDef } from '../command.js'

export const inspectCommands: CommandDef[] = [{ path: ['inspect'], summary: 'Decode an RPKI object or RFC 8183 document offline', args: '<file>' }]
