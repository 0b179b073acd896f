/**
 * Unauthenticated 500s and stacks in the log (issue 22, defect 9): a child's resources that do not parse, given to the
 * testbed's public door or to the API, are a labelled 400 that changes nothing; a console asset with a 300-character
 * name is a 404; with PostgreSQL down, API calls answer the labelled 503 `sys-storage-unavailable` and /health probes
 * log one error when the database goes and one line when it is back, never a stack per probe.
 */
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest, tempDir } from '../helpers/daemon.js'
import { startPostgres } from '../helpers/postgres.js'
import { TestPublisher } from '../helpers/publisher.js'

/** Log lines that are errors from a request failing unexpectedly, or that carry a stack. */
const unexpected = (log: string) => log.split('\n').filter((l) => /unexpected error|"stack":|\n\s+at /.test(l))

t.test('resources that do not parse are a labelled 400; a long asset name is a 404; no 500, no stack', async (t) => {
  const d = await repoDaemon(t, { logLevel: 'info' })
  const idCert = Buffer.from(new TestPublisher('kid').idCert).toString('base64')
  const api = (path: string, method = 'GET', body?: unknown, token = true) =>
    httpsRequest(`${d.url}${path}`, { method, headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${d.token}` } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  const before = await d.cli(['show', '-c', 'testbed', '-f', 'json'])
  const bad: [string, Record<string, string>][] = [
    ['ipv4 "x"', { ipv4: 'x' }],
    ['an inverted AS range', { asn: 'AS5-AS1' }],
    ['a /33', { ipv4: '10.0.0.0/33' }],
    ['an IPv6 /129', { ipv6: '2001:db8::/129' }],
    ['v4 alias "x"', { v4: 'x' }],
  ]
  for (const [what, resources] of bad) {
    for (const [door, path, token] of [['testbed', 'testbed/children', false], ['API', 'api/v1/cas/testbed/children', true]] as const) {
      const r = await api(path, 'POST', { handle: 'kid', resources, id_cert: idCert }, token)
      t.equal(r.status, 400, `${door}, ${what}: 400`)
      t.match(JSON.parse(r.body), { label: 'ca-child-resources-invalid', args: { child: 'kid', reason: /./ } }, `${door}, ${what}: labelled, saying why`)
    }
  }
  t.equal(await d.cli(['show', '-c', 'testbed', '-f', 'json']), before, 'testbed has no new child')

  // The update of an existing child with bad resources, too.
  t.equal((await api('api/v1/cas/testbed/children', 'POST', { handle: 'kid', resources: { ipv4: '10.0.0.0/24' }, id_cert: idCert })).status, 200, 'a good child is added')
  const upd = await api('api/v1/cas/testbed/children/kid', 'POST', { resources: { asn: 'AS5-AS1' } })
  t.equal(upd.status, 400, 'update with resources that do not parse: 400')
  t.match(JSON.parse(upd.body), { label: 'ca-child-resources-invalid' })

  for (const name of ['a'.repeat(300) + '.js', 'b'.repeat(250) + '.css', `${'c'.repeat(120)}.${'d'.repeat(120)}.js`]) {
    const r = await api(`ui/assets/${name}`, 'GET', undefined, false)
    t.equal(r.status, 404, `GET /ui/assets/<${name.length} characters>: 404`)
    t.match(JSON.parse(r.body), { label: 'api-unknown-resource' })
  }
  t.equal((await api(`rrdp/${'e'.repeat(300)}.xml`, 'GET', undefined, false)).status, 404, 'an RRDP path of 300 characters: 404')
  t.same(unexpected(d.output()), [], 'no unexpected error and no stack in the log')
})

t.test('PostgreSQL down: a labelled 503, and one log line per change of state, not a stack per probe', async (t) => {
  const cluster = await startPostgres(t)
  const kek = join(tempDir(t), 'kek')
  writeFileSync(kek, '5a'.repeat(32) + '\n')
  chmodSync(kek, 0o600)
  const d = await repoDaemon(t, { toml: `storage_uri = "${cluster.createDatabase('svc_down')}"\nkey_encryption_key_file = "${kek}"\n`, logLevel: 'info' })
  const api = (path: string, method = 'GET', body?: unknown) =>
    httpsRequest(`${d.url}${path}`, { method, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${d.token}` }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  t.equal((await api('health')).status, 200)
  const mark = d.output().length

  cluster.stop()
  try {
    for (let i = 0; i < 5; i++) {
      const health = await api('health')
      t.equal(health.status, 503, `probe ${i + 1}: /health 503`)
      t.same(JSON.parse(health.body), { label: 'sys-storage-unavailable', msg: 'The database cannot be reached: nothing was changed; retry later', args: {} }, 'labelled, no internals')
    }
    const add = await api('api/v1/cas', 'POST', { handle: 'bob' })
    t.equal(add.status, 503, 'an API write: 503')
    t.equal(JSON.parse(add.body).label, 'sys-storage-unavailable')
    t.notMatch(add.body, /postgres|127\.0\.0\.1|ECONNREFUSED/, 'no internals in the answer')
  } finally {
    cluster.start()
  }
  await waitFor('/health to answer 200 again', async () => (await api('health')).status === 200, 60_000)
  const log = d.output().slice(mark)
  const lines = log.split('\n').filter((l) => l.includes('"path":"/health"') || l.includes('the database'))
  t.equal(lines.filter((l) => /the database cannot be reached: requests answer/.test(l)).length, 1, 'one error line when the database goes')
  t.equal(lines.filter((l) => /the database answers again/.test(l)).length, 1, 'one line when it is back')
  t.same(lines.filter((l) => /"stack":|unexpected error/.test(l)), [], 'no stack for any probe')
})
