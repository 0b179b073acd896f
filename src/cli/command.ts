/**
 * The shape of one svcc subcommand: its path, options and run function (mirrors one API call), and the builders of
 * the common kinds: an action (one call, nothing printed), a view (one call, its answer shown), an XML document.
 */
import type { ApiCall } from '../client/api-client.js'
import type { CliContext } from './args.js'
import type { Report } from './report.js'

export interface OptionDef {
  /** commander flag syntax, e.g. '-p, --parent <name>' */
  flags: string
  description: string
  required?: boolean
  default?: string
}

/** The option values commander parsed, by long name. */
export type CommandOptions = Record<string, string | boolean | undefined>

export interface CommandDef {
  /** e.g. ['children', 'add'] */
  path: string[]
  summary: string
  /** Positional arguments in commander syntax, e.g. '<file>'. */
  args?: string
  options?: OptionDef[]
  /** Undefined until the operation is implemented: the command then exits 2 saying so. */
  run?: (ctx: CliContext, opts: CommandOptions, args: string[]) => Promise<Report | undefined>
}

/** How a builder's subcommand makes its API call (and checks its options first: a UsageError exits 2). */
export type CallOf<T> = (ctx: CliContext, opts: CommandOptions, args: string[]) => ApiCall<T>

/** An optional option. */
export function option(flags: string, description: string): OptionDef {
  return { flags, description }
}

/** A mandatory option. */
export function required(flags: string, description: string): OptionDef {
  return { flags, description, required: true }
}

/** -a/-4/-6: resources as text, each described with its example. */
export function resourceOptions(what: string, asn: string, ipv4: string, ipv6: string): OptionDef[] {
  return [option('-a, --asn <resources>', `AS resources${what}, e.g. ${asn}`), option('-4, --ipv4 <resources>', `IPv4 resources${what}, e.g. ${ipv4}`), option('-6, --ipv6 <resources>', `IPv6 resources${what}, e.g. ${ipv6}`)]
}

/** A subcommand that makes one API call that answers nothing, and prints nothing. */
export function action(path: string[], summary: string, options: OptionDef[], call: CallOf<void>): CommandDef {
  return { path, summary, options, run: async (ctx, opts, args) => (await ctx.send(call(ctx, opts, args)), { text: '' }) }
}

/** A subcommand that shows what one API call answers: its JSON with --format json, else `text` of it. */
export function view<T>(path: string[], summary: string, options: OptionDef[], call: CallOf<T>, text: (answer: T) => string): CommandDef {
  return { path, summary, options, run: async (ctx, opts, args) => { const json = await ctx.send(call(ctx, opts, args)); return { json, text: text(json) } } }
}

/** A subcommand that shows an RFC 8183 document the API answers in JSON: as XML, or the JSON with --format json. */
export function documentView<T>(path: string[], summary: string, options: OptionDef[], call: CallOf<T>, xmlOf: (answer: T) => string): CommandDef {
  return { path, summary, options, run: async (ctx, opts, args) => documentReport(await ctx.send(call(ctx, opts, args)), xmlOf) }
}

/** The report of an RFC 8183 document: XML as text, the API's JSON for --format json. */
export function documentReport<T>(json: T, xmlOf: (answer: T) => string): Report {
  const xml = xmlOf(json)
  return { json, text: xml, xml }
}
