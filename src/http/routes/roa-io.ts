/**
 * ROA/ASPA export and import, and rollback (issue 27, design.md §12; api/roa-io.ts): GET …/routes/export and
 * …/aspas/export answer CSV or JSON (each streamed a slice at a time: a CA may have 100,000 ROAs), as a file to save;
 * POST …/plans/import and …/plans/rollback make plans (app/ca/roa-io-service.ts). A route reads its input and makes one call.
 */
import { Router } from '@koa/router'
import type { Context } from 'koa'
import { Readable } from 'node:stream'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import {
  aspaCsvHeader, aspaCsvLine, checkPlanImport, checkPlanRollback, CSV_CONTENT_TYPE, csvPieces, exportFileName, IO_FORMATS, roaCsvHeader, roaCsvLine, type IoFormat, type IoKind, type PlanImportJson, type PlanRollbackJson,
} from '../../api/roa-io.js'
import { AppError } from '../../errors.js'
import { readJson } from '../body.js'
import type { HttpDeps } from '../deps.js'
import { streamJsonArray } from '../json-array.js'
import { queryText } from '../list-query.js'
import { ROUTER_OPTIONS } from '../path.js'
import { requirePermission } from '../route-permissions.js'

/** CSV lines written between two yields to the event loop. */
const CSV_SLICE = 2_000

export function roaIoRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  const io = deps.services.roaIo
  // A file may be as large as a ROA delta (config.ts post_limit_api_routes).
  const limit = deps.config.post_limit_api_routes

  r.get('/cas/:ca/routes/export', async (ctx) => {
    const format = exportFormat(ctx)
    const rows = await io.roasExport(ctx.params.ca!)
    await sendExport(ctx, 'roas', format, rows, roaCsvHeader(), roaCsvLine)
  })
  r.get('/cas/:ca/aspas/export', async (ctx) => {
    const format = exportFormat(ctx)
    await sendExport(ctx, 'aspas', format, io.aspasExport(ctx.params.ca!), aspaCsvHeader(), aspaCsvLine)
  })
  r.post('/cas/:ca/plans/import', async (ctx) => {
    const body = await readJson<PlanImportJson>(ctx, limit, checkPlanImport)
    // The route needs routes-update; an ASPA import needs aspas-update too.
    if (body.kind === 'aspas') requirePermission(ctx, 'aspas-update', ctx.params.ca)
    ctx.body = await io.importPlan(ctx.params.ca!, body)
  })
  r.post('/cas/:ca/plans/rollback', async (ctx) => {
    const body = await readJson<PlanRollbackJson>(ctx, deps.config.post_limit_api, checkPlanRollback)
    ctx.body = await io.rollback(ctx.params.ca!, body, () => requirePermission(ctx, 'aspas-update', ctx.params.ca))
  })
  return r
}

/** `?format=csv` (the default) or `json`. */
function exportFormat(ctx: Context): IoFormat {
  const f = queryText(ctx, 'format') ?? 'csv'
  if (!(IO_FORMATS as readonly string[]).includes(f)) throw new AppError('api-invalid-query', { name: 'format', reason: `must be one of ${IO_FORMATS.join(', ')}` })
  return f as IoFormat
}

/** The rows as a file to save: JSON in slices (json-array.ts), or CSV streamed from its header line on. */
async function sendExport<T>(ctx: Context, kind: IoKind, format: IoFormat, rows: readonly T[], header: string, line: (row: T) => string): Promise<void> {
  const name = exportFileName(ctx.params.ca!, kind, format)
  if (format === 'json') streamJsonArray(ctx, rows)
  else {
    ctx.set('Content-Type', CSV_CONTENT_TYPE)
    ctx.body = Readable.from(csvChunks(rows, header, line))
  }
  ctx.set('Content-Disposition', `attachment; filename="${name}"`)
}

/** The CSV text a slice of lines at a time (api/roa-io.ts csvPieces), yielding to the event loop between slices. */
async function* csvChunks<T>(rows: readonly T[], header: string, line: (row: T) => string): AsyncGenerator<string> {
  let first = true
  for (const piece of csvPieces(rows, header, line, CSV_SLICE)) {
    if (!first) await yieldToLoop()
    first = false
    yield piece
  }
}
