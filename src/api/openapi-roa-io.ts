/**
 * ROA/ASPA export and import, and rollback, in the OpenAPI description (design.md §12; api/roa-io.ts,
 * http/routes/roa-io.ts; beyond Krill): the CSV and JSON exports, the import made into a plan, the rollback plan.
 */
import { json, jsonBody, route, type DescribedRoute } from './openapi-operations.js'
import type { Header, Parameter, Response, Schema, SchemaObject } from './openapi-types.js'
import { PLAN_COMMENT_MAX } from './plans.js'
import { ASPA_CSV_COLUMNS, IMPORT_MODES, IMPORT_PROBLEMS_MAX, IO_FORMATS, IO_KINDS, ROA_CSV_COLUMNS } from './roa-io.js'

const TAG = 'plans'
const format: Parameter = { name: 'format', in: 'query', required: false, description: 'csv (the default) or json', schema: { type: 'string', enum: [...IO_FORMATS] } }
const disposition: Record<string, Header> = { 'Content-Disposition': { description: 'attachment; filename="<ca>-roas.csv" (or -aspas, .json)', schema: { type: 'string' } } }

function fileAnswer(json: string, columns: readonly string[], example: string): Response {
  return {
    description: `The file: CSV (RFC 4180, CRLF, a header line ${columns.join(',')}; e.g. ${example}) or JSON`,
    headers: disposition,
    content: {
      'text/csv': { schema: { type: 'string', description: `${columns.join(',')} then one line each` } },
      'application/json': { schema: { type: 'array', items: { $ref: `#/components/schemas/${json}` } } },
    },
  }
}

export function roaIoRoutes(): DescribedRoute[] {
  const errors = ['400', '401', '403', '404', '409', '413', '500', '503', '507'] as const
  return [
    route('get', '/cas/{ca}/routes/export', {
      id: 'roasExport', tag: TAG, summary: "The CA's ROAs as a CSV or JSON file", params: [format], ok: fileAnswer('RoaExportJson', ROA_CSV_COLUMNS, 'AS65000,10.0.0.0/16,24,"core, east"'),
      description: "Every configured ROA in the listing order, the max length always given. CSV comments that start with =, +, -, @, a tab, a carriage return or ' are written after a single quote (') so that spreadsheets show them as text; the import drops it again. JSON is Krill's RoaConfiguration list (the added entries of a delta).",
      errors: ['400', '401', '403', '404', '500'],
    }),
    route('get', '/cas/{ca}/aspas/export', {
      id: 'aspasExport', tag: TAG, summary: "The CA's ASPA definitions as a CSV or JSON file", params: [format], ok: fileAnswer('AspaDefinitionJson', ASPA_CSV_COLUMNS, 'AS65000,AS65001 AS65002'),
      description: "Customer ascending; in CSV the providers of a customer are one field, separated by spaces (AS0 alone for none). JSON is Krill's ASPA list.",
      errors: ['400', '401', '403', '404', '500'],
    }),
    route('post', '/cas/{ca}/plans/import', {
      id: 'importPlan', tag: TAG, summary: 'Make a plan of a ROA or ASPA file: replace (exactly the file) or add (what the CA lacks)', body: jsonBody('PlanImportJson', 'The file and what to do with it'), ok: json('PlanJson', 'The new plan (source csv or json)'),
      description: `Nothing changes until the plan is applied. A file with bad lines: 400 ca-import-syntax naming every problem by line (at most ${IMPORT_PROBLEMS_MAX} listed), and no plan. A CSV may start with a byte order mark and end lines in CRLF or LF; the header line is optional and may order the columns. An ASPA import also needs aspas-update. The change is then checked as POST …/plans checks it (ca-roa-delta-error, ca-aspa-*, ca-plan-empty). The body may be as large as post_limit_api_routes.`,
      errors: [...errors],
    }),
    route('post', '/cas/{ca}/plans/rollback', {
      id: 'rollback', tag: TAG, summary: 'Make a plan that restores the ROA/ASPA configuration the CA had right after a history version', body: jsonBody('PlanRollbackJson', 'The version'), ok: json('PlanJson', 'The new plan (source rollback, rollback_to N)'),
      description: "The configuration at version N is replayed from the CA's history. No such version: 404 ca-plan-rollback-unknown; the configuration then is the one now: 400 ca-plan-empty. A rollback that changes ASPAs also needs aspas-update.",
      errors: [...errors],
    }),
  ]
}

const str = (description: string, extra: Partial<SchemaObject> = {}): SchemaObject => ({ type: 'string', description, ...extra })
const obj = (description: string, properties: Record<string, Schema>, optional: string[] = []): SchemaObject => ({
  type: 'object', description, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
})

export const ROA_IO_SCHEMAS: Record<string, Schema> = {
  RoaExportJson: obj("A configured ROA (Krill's RoaConfiguration)", {
    asn: { type: 'integer', minimum: 0, description: 'Origin AS' },
    prefix: str('Prefix'),
    max_length: { type: 'integer', description: 'Max length' },
    comment: { type: 'string', nullable: true, description: 'Comment, or null' },
  }),
  PlanImportJson: obj('A ROA or ASPA file made into a plan', {
    format: str('The content is', { enum: [...IO_FORMATS] }),
    kind: str('ROAs or ASPAs', { enum: [...IO_KINDS] }),
    mode: str('replace: the CA ends with exactly the file (the other kind untouched); add: only what the CA lacks is added', { enum: [...IMPORT_MODES] }),
    content: str('The text of the file'),
    comment: str(`Why (at most ${PLAN_COMMENT_MAX} characters)`),
  }, ['comment']),
  PlanRollbackJson: obj('A rollback', { version: { type: 'integer', minimum: 1, description: 'The history version (svcc history)' }, comment: str(`Why (at most ${PLAN_COMMENT_MAX} characters)`) }, ['comment']),
}
