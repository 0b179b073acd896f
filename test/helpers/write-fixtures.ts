/** `make fixtures`: rewrite the golden files under fixtures/ on purpose (style.md §8). */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AppError, CATALOGUE, type ErrorLabel } from '../../src/errors.js'
import { sampleArgs } from './error-samples.js'
import { writeOpenApiFixtures } from './gen-openapi-client.js'
import { goldenObjects } from './golden-objects.js'
import { fixture } from './paths.js'

const dir = fixture('errors')
mkdirSync(dir, { recursive: true })
for (const f of readdirSync(dir)) if (f.endsWith('.json')) rmSync(join(dir, f))
for (const label of Object.keys(CATALOGUE) as ErrorLabel[]) {
  const e = new AppError(label, sampleArgs(label))
  writeFileSync(join(dir, `${label}.json`), JSON.stringify({ status: e.status, body: e.body() }, null, 2) + '\n')
}
process.stdout.write(`wrote ${Object.keys(CATALOGUE).length} golden error bodies to ${dir}\n`)

const objects = fixture('objects')
for (const [p, bytes] of goldenObjects()) {
  mkdirSync(dirname(join(objects, p)), { recursive: true })
  writeFileSync(join(objects, p), bytes)
}
process.stdout.write(`wrote ${goldenObjects().size} golden objects to ${objects}\n`)

// The OpenAPI document and the client types openapi-typescript generates from it (test/unit/openapi.test.ts).
for (const f of await writeOpenApiFixtures()) process.stdout.write(`wrote ${f}\n`)
