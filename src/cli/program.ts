/**
 * Builds svcc's command tree (commander) from the command tables: global options as spec §4.1, every subcommand
 * of the spec with its options and help text. A subcommand without `run` exits 2 saying it is not implemented.
 */
import { idRollCommands } from './commands/id-roll.js'
import { alertsCommands } from './commands/alerts.js'
import { quarantineCommands } from './commands/quarantine.js'
import { Command, CommanderError, Option } from 'commander'
import { VERSION } from '../version.js'
import type { Clock } from '../util/clock.js'
import { CliContext, type GlobalOptions } from './args.js'
import type { CommandDef } from './command.js'
import { auditCommands } from './commands/audit.js'
import { bulkCommands } from './commands/bulk.js'
import { caCommands } from './commands/ca.js'
import { childrenCommands } from './commands/children.js'
import { configUserCommands } from './commands/config-user.js'
import { inspectCommands } from './commands/inspect.js'
import { parentsCommands } from './commands/parents.js'
import { publishersCommands } from './commands/publishers.js'
import { repoCommands } from './commands/repo.js'
import { aspasCommands } from './commands/aspas.js'
import { bgpsecCommands } from './commands/bgpsec.js'
import { roasCommands } from './commands/roas.js'
import { rscCommands } from './commands/rsc.js'
import { roasSearchCommands } from './commands/roas-search.js'
import { serverCommands } from './commands/server.js'
import { taCommands } from './commands/ta.js'
import { tokensCommands } from './commands/tokens.js'
import { planCommands } from './commands/plans.js'
import { roaIoCommands } from './commands/roa-io.js'
import { bulkImportCommands } from './commands/bulk-import.js'
import { childTransferCommands } from './commands/child-transfer.js'
import { healthCommands } from './commands/health.js'
import { ApiPrinted, failure, render, UsageError } from './report.js'
import { terminalSafe } from './terminal.js'

export const ALL_COMMANDS: readonly CommandDef[] = [
  ...caCommands,
  ...childrenCommands,
  ...parentsCommands,
  ...roasCommands,
  ...roasSearchCommands,
  ...aspasCommands,
  ...bgpsecCommands,
  ...rscCommands,
  ...repoCommands,
  ...publishersCommands,
  ...bulkCommands,
  ...serverCommands,
  ...configUserCommands,
  ...inspectCommands,
  ...taCommands,
  ...auditCommands,
  ...tokensCommands,
  ...planCommands,
  ...roaIoCommands,
  ...bulkImportCommands,
  ...childTransferCommands,
  ...idRollCommands,
  ...alertsCommands,
  ...healthCommands,
  ...quarantineCommands,
]

const GROUPS: Record<string, string> = {
  id: "A CA's RFC 8183 identity and its key roll",
  quarantine: 'What was set aside because what is stored cannot be decoded or run (issue 26)',
  children: 'Manage children of a CA (our side as parent)',
  parents: 'Manage parents of a CA (our side as child)',
  roas: 'Manage route origin authorisations',
  'roas bgp': 'BGP analysis of the ROAs against the announcements RIPE RIS sees (config bgp_riswhois_*)',
  aspas: 'ASPA definitions',
  bgpsec: 'BGPsec router keys (RFC 8209)',
  rsc: 'Signed checklists (RFC 9323)',
  repo: "Manage the CA's repository",
  publishers: 'Manage publishers of the publication server',
  bulk: 'Operations on all CAs',
  keyroll: 'Key rolls (RFC 6489)',
  ta: 'The embedded trust anchor',
  'ta keyroll': 'Trust anchor key roll (RFC 9691)',
  config: 'Print a svcd configuration file, or a user entry of it',
  tokens: 'Scoped API tokens: create, list, revoke',
  plan: 'Change plans: make, review, approve (four-eyes), apply',
}

export interface CliIo {
  out: (s: string) => void
  err: (s: string) => void
  env: NodeJS.ProcessEnv
  readStdin: () => string
  /** The client's timers (cli.ts: the system clock). */
  clock: Pick<Clock, 'setTimeout' | 'now'>
}

/** Run svcc with these arguments; resolves to the exit code. */
export async function runCli(argv: string[], cliIo: CliIo): Promise<number> {
  // Everything svcc prints passes here: no text from a server or a file can drive the terminal (cli/terminal.ts).
  const io: CliIo = { ...cliIo, out: (s) => cliIo.out(terminalSafe(s)), err: (s) => cliIo.err(terminalSafe(s)) }
  let exit = 0
  const program = buildProgram(io, (code) => (exit = code))
  try {
    await program.parseAsync(argv, { from: 'user' })
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? 0 : 2
    }
    throw e
  }
  return exit
}

function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('svcc')
  program
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (s, write) => write(s.replace(/^error:/, 'svcc: error:')) })
    .version(`svcc ${VERSION}`, '-V, --version', 'print version')
    .helpOption('-h, --help', 'print help')
    .helpCommand(false)
    .description(`svcc ${VERSION}: command-line client of svcd, the RPKI CA service`)
    .addOption(new Option('--api', 'only print the API call (method, URL, headers with masked token) and exit; env SVC_CLI_API=1'))
    .addOption(new Option('-c, --ca <name>', 'CA to control; env SVC_CLI_MY_CA'))
    .addOption(new Option('-f, --format <type>', 'report format: none, json, text (default), xml, csv (exports); env SVC_CLI_FORMAT'))
    .addOption(new Option('-s, --server <uri>', 'full URI of the server, https://<host:port>/; env SVC_CLI_SERVER'))
    .addOption(new Option('-t, --token <string>', 'secret token; env SVC_CLI_TOKEN'))
  const groups = new Map<string, Command>()
  for (const def of ALL_COMMANDS) {
    let parent = program
    for (let i = 0; i < def.path.length - 1; i++) {
      const g = def.path.slice(0, i + 1).join(' ')
      if (!groups.has(g)) groups.set(g, parent.command(def.path[i]!).description(GROUPS[g] ?? g).helpCommand(false))
      parent = groups.get(g)!
    }
    addCommand(parent, def, io, setExit)
  }
  program
    .command('help')
    .description('print the client version and all subcommands, or the help of one subcommand')
    .argument('[subcommand...]')
    .action((words: string[]) => io.out(helpText(program, words)))
  return program
}

function addCommand(parent: Command, def: CommandDef, io: CliIo, setExit: (code: number) => void): void {
  const cmd = parent.command(def.path[def.path.length - 1]).description(def.summary)
  if (def.args) cmd.argument(def.args)
  for (const o of def.options ?? []) {
    const opt = new Option(o.flags, o.description)
    if (o.default !== undefined) opt.default(o.default)
    if (o.required) opt.makeOptionMandatory()
    cmd.addOption(opt)
  }
  cmd.action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command
    const args = params.slice(0, -2) as string[]
    const { api, ca, format, server, token, ...opts } = command.optsWithGlobals() as GlobalOptions & Record<string, string>
    let fmt: Parameters<typeof failure>[1] = 'text'
    try {
      const ctx = new CliContext({ api: api as unknown as boolean, ca, format, server, token }, io.env, io.out, io.readStdin, io.clock)
      fmt = ctx.format
      if (!def.run) throw new UsageError(`'${def.path.join(' ')}' is not implemented in svcc ${VERSION} yet`)
      const report = await def.run(ctx, opts, args)
      if (report) render(report, ctx.format, io.out)
      setExit(report?.exitCode ?? 0)
    } catch (e) {
      if (e instanceof ApiPrinted) return setExit(0)
      const f = failure(e, fmt)
      io.err(f.message + '\n')
      setExit(f.code)
    }
  })
}

function helpText(program: Command, words: string[]): string {
  if (words.length) {
    let cmd: Command | undefined = program
    for (const w of words) cmd = cmd?.commands.find((c) => c.name() === w)
    if (!cmd) throw new CommanderError(2, 'svcc.unknownHelp', `svcc: error: unknown subcommand '${words.join(' ')}'\n`)
    return cmd.helpInformation()
  }
  const lines = [`svcc ${VERSION}`, '', 'Usage: svcc <subcommand..> [options]', '', 'Subcommands:']
  const width = Math.max(...ALL_COMMANDS.map((d) => d.path.join(' ').length), 4) + 2
  for (const d of [...ALL_COMMANDS].sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')))) {
    lines.push(`  ${d.path.join(' ').padEnd(width)}${d.summary}`)
  }
  lines.push(`  ${'help'.padEnd(width)}print this list, or the help of one subcommand`, '', 'Global options:')
  for (const o of program.options) lines.push(`  ${o.flags.padEnd(24)}${o.description}`)
  return lines.join('\n') + '\n'
}
