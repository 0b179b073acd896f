/**
 * Moving a delegated child between parents (Krill's child export and import, krill-reference.md §1.1 "Children";
 * api/child-import.ts): GET /api/v1/cas/{ca}/children/{child}/export answers Krill's ExportChild, POST …/import takes
 * its ImportChild. The child service decides (app/ca/child-transfer.ts); a route reads its input and makes one call.
 */
import { Router } from '@koa/router'
import { checkImportChild, type ImportChildJson } from '../../api/child-import.js'
import type { HttpDeps } from '../deps.js'
import { readJson } from '../body.js'
import { ROUTER_OPTIONS } from '../path.js'

export function childTransferRouter(deps: HttpDeps): Router {
  const r = new Router({ ...ROUTER_OPTIONS, prefix: '/api/v1' })
  const children = deps.services.children
  r.get('/cas/:ca/children/:child/export', (ctx) => void (ctx.body = children.caChildExport(ctx.params.ca!, ctx.params.child!)))
  r.post('/cas/:ca/children/:child/import', async (ctx) => {
    await children.caChildImport(ctx.params.ca!, ctx.params.child!, await readJson<ImportChildJson>(ctx, deps.config.post_limit_api, checkImportChild))
    ctx.status = 200
    ctx.body = ''
  })
  return r
}
