/**
 * `svcc aspas …`: ASPA definitions (krill-reference.md §1.1 "ASPA", krill:src/cli/options/aspa.rs): list, add (or
 * replace) "AS65000 => AS65001, AS65002", remove a customer, update one customer's providers. The server checks the
 * rules (ca-aspa-* labels); the CLI only reads the text.
 */
import type { AspaDefinitionJson } from '../../api/cas.js'
import { calls } from '../../client/calls.js'
import { parseAsn } from '../../resources/asn.js'
import { action, option, required, view, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const aspasCommands: CommandDef[] = [
  view(['aspas', 'list'], 'Show the ASPA definitions', [], (ctx) => calls.caAspas(ctx.ca()), (aspas) => aspas.map(aspaText).join('\n')),
  action(['aspas', 'add'], 'Add an ASPA definition, or replace the one of its customer', [required('--aspa <definition>', '"AS65000 => AS65001, AS65002" (customer => providers; AS0 alone for none)')], (ctx, opts) => calls.caAspasUpdate(ctx.ca(), { add_or_replace: [parseAspaDefinition(String(opts.aspa))], remove: [] })),
  action(['aspas', 'remove'], 'Remove the ASPA definition of a customer AS', [required('--customer <asn>', 'the customer AS, e.g. AS65000')], (ctx, opts) => calls.caAspasUpdate(ctx.ca(), { add_or_replace: [], remove: [asn(opts.customer, '--customer')] })),
  action(['aspas', 'update'], 'Add and remove providers of a customer AS (removing all removes the definition; adding to a new customer creates it)', [
    required('--customer <asn>', 'the customer AS, e.g. AS65000'),
    option('--add <asns>', 'providers to add, e.g. AS65005 or "AS65005, AS65006"'),
    option('--remove <asns>', 'providers to remove, e.g. AS65001'),
  ], (ctx, opts) => {
    if (opts.add === undefined && opts.remove === undefined) throw new UsageError('aspas update needs --add or --remove (or both)')
    const customer = asn(opts.customer, '--customer')
    return calls.caAspaProvidersUpdate(ctx.ca(), customer, { added: asnList(opts.add, '--add'), removed: asnList(opts.remove, '--remove') })
  }),
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
