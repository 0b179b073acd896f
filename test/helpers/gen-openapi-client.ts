/**
 * The generated OpenAPI client's inputs: fixtures/openapi/openapi.json (the document of src/api/openapi.ts) and
 * fixtures/openapi/schema.d.ts (its TypeScript types by openapi-typescript, used with openapi-fetch in
 * test/scenario/openapi-client.test.ts). `make fixtures` rewrites both (test/helpers/write-fixtures.ts); by hand:
 *   make fixtures
 *   # or, once openapi.json is current: npx openapi-typescript fixtures/openapi/openapi.json -o fixtures/openapi/schema.d.ts
 * test/unit/openapi.test.ts fails when either file is out of date.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript'
import { OPENAPI } from '../../src/api/openapi.js'
import { fixture } from './paths.js'

export const OPENAPI_JSON = fixture('openapi', 'openapi.json')
export const OPENAPI_TYPES = fixture('openapi', 'schema.d.ts')

/** The document as served, pretty-printed. */
export function openApiJson(): string {
  return JSON.stringify(OPENAPI, null, 2) + '\n'
}

/** The types openapi-typescript generates from the document: the same text as its CLI with default options. */
export async function openApiTypes(): Promise<string> {
  const ast = await openapiTS(JSON.parse(openApiJson()) as Parameters<typeof openapiTS>[0], { silent: true })
  return COMMENT_HEADER + astToString(ast)
}

/** Rewrite both fixtures; returns their paths. */
export async function writeOpenApiFixtures(): Promise<string[]> {
  mkdirSync(fixture('openapi'), { recursive: true })
  writeFileSync(OPENAPI_JSON, openApiJson())
  writeFileSync(OPENAPI_TYPES, await openApiTypes())
  return [OPENAPI_JSON, OPENAPI_TYPES]
}
