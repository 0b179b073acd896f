/** The error catalogue (style.md §7): every label has a golden body in fixtures/errors/ and every golden a label. */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { AppError, CATALOGUE, isErrorLabel, renderMessage, type ErrorLabel } from '../../src/errors.js'
import { sampleArgs } from '../helpers/error-samples.js'
import { fixture } from '../helpers/paths.js'

const labels = Object.keys(CATALOGUE) as ErrorLabel[]
const goldens = readdirSync(fixture('errors')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5))

t.test('every catalogue label has a golden file and every golden file a label', async (t) => {
  t.same([...goldens].sort(), [...labels].sort())
})

t.test('golden bodies match what AppError renders (run `make fixtures` after changing a template on purpose)', async (t) => {
  for (const label of labels) {
    const golden = JSON.parse(readFileSync(fixture('errors', `${label}.json`), 'utf8'))
    const e = new AppError(label, sampleArgs(label))
    t.same({ status: e.status, body: e.body() }, golden, label)
  }
})

t.test('statuses: sys-* are 5xx and never expose details; families as Krill', async (t) => {
  for (const label of labels) {
    const status = CATALOGUE[label].status
    if (label.startsWith('sys-')) t.ok(status >= 500, `${label} is 5xx`)
    else t.ok(status >= 400 && status < 500, `${label} is 4xx`)
  }
  t.equal(CATALOGUE['ca-unknown'].status, 404)
  t.equal(CATALOGUE['api-invalid-credentials'].status, 401)
  const e = new AppError('sys-store', { reason: 'disk /secret/path full' })
  t.equal(e.message, 'Storage error: disk /secret/path full', 'the log sees the detail')
  t.notMatch(JSON.stringify(e.body()), /secret/, 'the client does not')
})

t.test('messages fill placeholders; unknown ones stay visible', async (t) => {
  t.equal(renderMessage("CA '{ca}' is unknown", { ca: 'x' }), "CA 'x' is unknown")
  t.equal(renderMessage('a {missing} b', {}), 'a {missing} b')
  t.ok(isErrorLabel('ca-unknown'))
  t.notOk(isErrorLabel('nope'))
  t.notOk(isErrorLabel('toString'))
})
