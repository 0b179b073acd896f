/**
 * `svcc children export|import`: moving a delegated child between parents (Krill's child export and import; the
 * JSON is api/child-import.ts ImportChildJson). Export writes the child as its new parent imports it; import posts it.
 */
import { writeFileSync } from 'node:fs'
import { checkImportChild, type ImportChildJson } from '../../api/child-import.js'
import { calls } from '../../client/calls.js'
import { option, required, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const childTransferCommands: CommandDef[] = [
  {
    path: ['children', 'export'],
    summary: "Export a child as another parent imports it (Krill's ImportChild JSON): to --output, else printed",
    options: [required('--child <name>', 'name of the child CA'), option('-o, --output <file>', 'write the JSON to this file')],
    async run(ctx, opts) {
      const exported = await ctx.send(calls.caChildExport(ctx.ca(), String(opts.child)))
      if (opts.output === undefined) return { json: exported, text: JSON.stringify(exported, null, 2) }
      const out = String(opts.output)
      try {
        writeFileSync(out, `${JSON.stringify(exported, null, 2)}\n`)
      } catch (e) {
        throw new UsageError(`cannot write --output file '${out}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
      }
      return { json: exported, text: `Exported child '${exported.name}' of '${ctx.ca()}' to ${out}` }
    },
  },
  {
    path: ['children', 'import'],
    summary: 'Import a child exported by its previous parent (its current key is certified again here)',
    options: [required('--file <file>', "the exported child (JSON; '-' reads standard input)")],
    async run(ctx, opts) {
      const file = String(opts.file)
      let body: ImportChildJson
      try {
        body = JSON.parse(ctx.readFile(file, '--file')) as ImportChildJson
      } catch (e) {
        if (e instanceof UsageError) throw e
        throw new UsageError(`--file '${file}' is not JSON: ${(e as Error).message}`)
      }
      const problem = checkImportChild(body)
      if (problem) throw new UsageError(`--file '${file}' is not an exported child: ${problem}`)
      await ctx.send(calls.caChildImport(ctx.ca(), body.name, body))
      return { text: '' }
    },
  },
]
