/** `svcc bulk …` and `svcc keyroll …`: operations on all CAs, and key rolls (RFC 6489). */
import { calls } from '../../client/calls.js'
import type { CommandDef } from '../command.js'
import type { Report } from '../report.js'

const done = (_: void): Report => ({ text: '' })

export const bulkCommands: CommandDef[] = [
  { path: ['bulk', 'publish'], summary: 'Force all CAs to create new objects if needed (they then also sync)', run: async (ctx) => done(await ctx.send(calls.bulkPublish())) },
  { path: ['bulk', 'refresh'], summary: 'Force all CAs to ask their parents for updated certificates', run: async (ctx) => done(await ctx.send(calls.bulkRefresh())) },
  { path: ['bulk', 'sync'], summary: 'Force all CAs to sync with their repository', run: async (ctx) => done(await ctx.send(calls.bulkSync())) },
  { path: ['keyroll', 'init'], summary: 'Initialise a key roll for all keys of the CA', run: async (ctx) => done(await ctx.send(calls.caKeyRollInit(ctx.ca()))) },
  { path: ['keyroll', 'activate'], summary: 'Finish the key roll for all keys of the CA', run: async (ctx) => done(await ctx.send(calls.caKeyRollActivate(ctx.ca()))) },
]
