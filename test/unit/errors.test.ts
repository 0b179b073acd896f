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
  t.equal(renderMessage("needs {permission}[ on CA '{ca}']", { permission: 'ca-read', ca: 'ca1' }), "needs ca-read on CA 'ca1'", 'an optional section with its args')
  t.equal(renderMessage("needs {permission}[ on CA '{ca}']", { permission: 'ca-list' }), 'needs ca-list', 'an optional section without them is left out')
  t.equal(new AppError('api-insufficient-rights', { permission: 'routes-update', ca: 'ca2' }).message, "Insufficient rights: this needs the permission routes-update on CA 'ca2'")
  t.equal(new AppError('api-insufficient-rights', { permission: 'pub-admin' }).message, 'Insufficient rights: this needs the permission pub-admin')
  t.ok(isErrorLabel('ca-unknown'))
  t.notOk(isErrorLabel('nope'))
  t.notOk(isErrorLabel('toString'))
})

t.test('storage faults become labelled errors whose message is shown (issue 10: no bare 500 on a full disk)', async (t) => {
  const { storageFault } = await import('../../src/errors.js')
  const errno = (code: string) => Object.assign(new Error(`${code}: example, write '/secret/path'`), { code })
  t.equal(storageFault(errno('ENOSPC'))?.label, 'sys-storage-full')
  t.equal(storageFault(errno('EDQUOT'))?.label, 'sys-storage-full')
  t.equal(storageFault(errno('SQLITE_FULL'))?.label, 'sys-storage-full')
  t.equal(storageFault(errno('EIO'))?.label, 'sys-storage-io')
  t.equal(storageFault(errno('EROFS'))?.label, 'sys-storage-io')
  t.equal(storageFault(errno('SQLITE_IOERR_WRITE'))?.label, 'sys-storage-io')
  t.equal(storageFault(errno('SQLITE_READONLY'))?.label, 'sys-storage-io')
  t.equal(storageFault(new Error('wrapped', { cause: errno('ENOSPC') }))?.label, 'sys-storage-full', 'found in the cause')
  t.equal(storageFault(errno('ENOENT')), undefined, 'other errors are not storage faults')
  t.equal(storageFault(errno('SQLITE_CONSTRAINT')), undefined)
  t.equal(storageFault('ENOSPC'), undefined)
  const full = storageFault(errno('ENOSPC'))!
  t.equal(full.status, 507)
  t.same(full.body(), { label: 'sys-storage-full', msg: CATALOGUE['sys-storage-full'].msg, args: {} }, 'shown to the client: a 5xx marked expose')
  t.notMatch(JSON.stringify(full.body()), /secret/, 'without the underlying message')
  t.equal(new AppError('sys-rrdp-behind', { since: 'x' }).body().label, 'sys-internal', 'problem labels are not exposed when thrown')
})
