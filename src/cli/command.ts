/** The shape of one svcc subcommand: its path, options and run function (mirrors one API call). */
import type { CliContext } from './args.js'
import type { Report } from './report.js'

export interface OptionDef {
  /** commander flag syntax, e.g. '-p, --parent <name>' */
  flags: string
  description: string
  required?: boolean
  default?: string
}

export interface CommandDef {
  /** e.g. ['children', 'add'] */
  path: string[]
  summary: string
  /** Positional arguments in commander syntax, e.g. '<file>'. */
  args?: string
  options?: OptionDef[]
  /** Undefined until the operation is implemented: the command then exits 2 saying so. */
  run?: (ctx: CliContext, opts: Record<string, string | boolean | undefined>, args: string[]) => Promise<Report | undefined>
}
