/**
 * `svcc bulk import --file structure.json`: Krill's CA structure import (POST /api/v1/bulk/cas/import; api/structure.ts)
 * into an empty svcd. The file is Krill's Structure JSON (with svcd's `aspas` per CA); the server checks it and lists
 * every problem at once. `-` reads standard input.
 */
import type { StructureJson } from '../../api/structure.js'
import type { ApiCall } from '../../client/api-client.js'
import { action, required, type CommandDef } from '../command.js'
import { UsageError } from '../report.js'

export const bulkImportCommands: CommandDef[] = [
  action(['bulk', 'import'], 'Import a CA structure (Krill\'s JSON: trust anchor, CAs with parents and resources, ROAs, ASPAs) into an empty svcd', [
    required('--file <file>', 'the structure JSON (krill:test-resources/bulk-ca-import/structure.json shape); - for standard input'),
  ], (ctx, opts) => {
    const file = String(opts.file)
    const text = ctx.readFile(file, '--file')
    let body: StructureJson
    try {
      body = JSON.parse(text) as StructureJson
    } catch (e) {
      throw new UsageError(`--file '${file}' is not JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    const call: ApiCall<void> = { method: 'POST', path: '/api/v1/bulk/cas/import', expect: 'empty', body }
    return call
  }),
]
