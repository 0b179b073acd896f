/**
 * `svcc aspas …`: ASPA definitions (krill-reference.md §1.1 "ASPA", krill:src/cli/options/aspa.rs): list, add (or
 * replace) "AS65000 => AS65001, AS65002", remove a customer, update one customer's providers. The server checks the
 * rules (ca-aspa-* labels); the CLI only reads the text.
 */
import type { AspaDefinitionJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { parseAsn } from '../../resources/asn.js'
import type { CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const aspasCommands: CommandDef[] = [
  {
    path: ['aspas', 'list'],
    summary: 'Show the ASPA definitions',
    async run(ctx) {
      const aspas = await ctx.send(calls.caAspas(ctx.ca()))
      return { json: aspas, text: aspas.map(aspaText).join('\n') }
    },
  },
  {
    path: ['aspas', 'add'],
    summary: 'Add an ASPA definition, or replace the one of its customer',
    options: [{ flags: '--aspa <definition>', description: '"AS65000 => AS65001, AS65002" (customer => providers; AS0 alone for none)', required: true }],
    async run(ctx, opts) {
      await ctx.send(calls.caAspasUpdate(ctx.ca(), { add_or_replace: [parseAspaDefinition(String(opts.aspa))], remove: [] }))
      return { text: '' }
    },
  },
  {
    path: ['aspas', 'remove'],
    summary: 'Remove the ASPA definition of a customer AS',
    options: [{ flags: '--customer <asn>', description: 'the customer AS, e.g. AS65000', required: true }],
    async run(ctx, opts) {
      await ctx.send(calls.caAspasUpdate(ctx.ca(), { add_or_replace: [], remove: [asn(opts.customer, '--customer')] }))
      return { text: '' }
    },
  },
  {
    path: ['aspas', 'update'],
    summary: 'Add and remove providers of a customer AS (removing all removes the definition; adding to a new customer creates it)',
    options: [
      { flags: '--customer <asn>', description: 'the customer AS, e.g. AS65000', required: true },
      { flags: '--add <asns>', description: 'providers to add, e.g. AS65005 or "AS65005, AS65006"' },
      { flags: '--remove <asns>', description: 'providers to remove, e.g. AS65001' },
    ],
    async run(ctx, opts) {
      if (opts.add === undefined && opts.remove === undefined) throw new UsageError('aspas update needs --add or --remove (or both)')
      const customer = asn(opts.customer, '--customer')
      await ctx.send(calls.caAspaProvidersUpdate(ctx.ca(), customer, { added: asnList(opts.add, '--add'), removed: asnList(opts.remove, '--remove') }))
      return { text: '' }
    },
  },
]

/** "AS65000 => AS65001, AS65002" (Krill's text form); an empty provider list is left for the server to refuse. */
export function parseAspaDefinition(text: string): AspaDefinitionJson {
  const parts = text.split('=>')
  if (parts.length !== 2) throw new UsageError(`--aspa '${text}': expected "<customer> => <provider>, <provider>…", e.g. "AS65000 => AS65001, AS65002"`)
  return { customer: asn(parts[0], '--aspa customer'), providers: asnList(parts[1], '--aspa providers') }
}

/** The text form of a definition, as `aspas list` prints it. */
export function aspaText(a: AspaDefinitionJson): string {
  return `AS${a.customer} => ${a.providers.map((p) => `AS${p}`).join(', ')}`
}

function asn(v: unknown, what: string): number {
  try {
    return parseAsn(String(v))
  } catch (e) {
    throw new UsageError(`${what}: ${(e as Error).message}`)
  }
}

/** A comma-separated list of AS numbers ('' or absent: none). */
function asnList(v: unknown, what: string): number[] {
  if (v === undefined) return []
  return String(v).split(',').map((x) => x.trim()).filter((x) => x !== '').map((x) => asn(x, what))
}
