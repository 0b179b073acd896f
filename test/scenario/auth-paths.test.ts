/**
 * Default deny (issue 10, defect 1): every operation of the OpenAPI description, under every spelling of its path
 * that some layer could read differently (case, percent-encoding of letters, `/` and `.`, dot segments behind a public
 * prefix, repeated and trailing slashes, `;` parameters, backslashes, absolute form), with no token, a wrong token and
 * a non-bearer scheme, answers 401 or a 400/404 refusal: never a handler's answer and never a write. With the right
 * token, only the canonical spelling (and one trailing slash) reaches a handler.
 */
import t from 'tap'
import https from 'node:https'
import { OPENAPI } from '../../src/api/openapi.js'
import { isPublic } from '../../src/http/auth.js'
import { repoDaemon, waitFor, waitPublished, type RepoDaemon } from '../helpers/cas.js'

interface Answer {
  status: number
  body: string
}

/** One request with the target sent exactly as written (no URL parsing, no normalisation), on a kept connection. */
function raw(d: RepoDaemon, agent: https.Agent, method: string, target: string, headers: Record<string, string>, body?: string, retry = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: d.port, method, path: target, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) }, agent, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    // A kept connection that svcd closed as idle just as we reused it: try once more on a new one.
    req.on('error', (e: NodeJS.ErrnoException) => (retry && e.code === 'ECONNRESET' ? raw(d, agent, method, target, headers, body, false).then(resolve, reject) : reject(e)))
    req.end(body)
  })
}

const SAMPLES: Record<string, string> = { ca: 'testbed', child: 'nochild', parent: 'ta', publisher: 'testbed', seconds: '60', key: 'ABCDEF', file: 'notification.xml' }

/** Every operation of the description as [METHOD, full path with sample parameters]. */
function operations(): [string, string][] {
  const out: [string, string][] = []
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    for (const m of ['get', 'post', 'delete'] as const) {
      if (!item[m]) continue
      const full = `${item.servers ? '' : '/api/v1'}${path}`.replace(/\{([a-z_]+)\}/g, (_, p: string) => SAMPLES[p] ?? 'x')
      out.push([m.toUpperCase(), full])
    }
  }
  return out
}

/** Spellings of `path` that must never reach its handler (name → target). */
function variants(path: string, port: number): Record<string, string> {
  const segs = path.slice(1).split('/')
  const rest = segs.slice(1).join('/')
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
  const pct = (s: string) => `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`
  const all: Record<string, string> = {
    'upper case': path.toUpperCase(),
    'first segment capitalised': `/${cap(segs[0])}/${rest}`,
    'every segment capitalised': `/${segs.map(cap).join('/')}`,
    'first letter percent-encoded': `/${pct(segs[0])}/${rest}`,
    'slashes percent-encoded': `/${segs.join('%2F')}`,
    'leading double slash': `/${path}`,
    'double slash inside': `/${segs[0]}//${rest}`,
    'dot segment': `/./${path.slice(1)}`,
    'behind /rrdp/..': `/rrdp/..${path}`,
    'behind /rrdp/%2e%2e': `/rrdp/%2e%2e${path}`,
    'behind /health/..': `/health/..${path}`,
    'behind /rfc8181/x/../..': `/rfc8181/x/../..${path}`,
    'behind /ta/ta.tal/../..': `/ta/ta.tal/../..${path}`,
    'encoded dots behind /rfc6492': `/rfc6492/%2E%2E%2F%2E%2E${path}`,
    'matrix parameter': `/${segs[0]};x=1/${rest}`,
    'matrix parameter at the end': `${path};jsessionid=1`,
    'backslashes': `/${segs.join('\\')}`,
    'absolute form': `https://localhost:${port}${path}`,
    'NUL appended': `${path}%00`,
    'malformed escape': `${path}%zz`,
  }
  // A one-segment path has no slash to encode or double: those spellings are the path itself.
  return Object.fromEntries(Object.entries(all).filter(([, target]) => target !== path))
}

const WRITE_BODY = JSON.stringify({ handle: 'intruder', add: [{ asn: 65000, prefix: '10.0.0.0/24' }], remove: [], id_cert: 'AAAA' })

/** What the operator sees: the state every refused request must leave alone. */
async function state(d: RepoDaemon): Promise<string> {
  const parts = await Promise.all(['cas', 'cas/testbed', 'cas/testbed/routes', 'cas/testbed/parents', 'cas/testbed/history/commands', 'pubd/publishers'].map((p) => fetchJson(d, `/api/v1/${p}`)))
  // Without the times of the testbed's exchanges with its parent: it syncs with ta in the background (a refresh, a
  // retry on a loaded machine), whatever the requests do; a new exchange's result or a new history entry still shows.
  return JSON.stringify(parts, (k, v: unknown) => (k === 'timestamp' || k === 'last_success' ? undefined : v))
}

async function fetchJson(d: RepoDaemon, path: string): Promise<unknown> {
  const agent = new https.Agent({ keepAlive: false })
  const r = await raw(d, agent, 'GET', path, { Authorization: `Bearer ${d.token}` })
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`)
  return JSON.parse(r.body)
}

t.test('no spelling of any route reaches a handler without the token, and none but the canonical one with it', async (t) => {
  const d = await repoDaemon(t)
  // The testbed is certified and published after start-up, in the background: compare with the state after that.
  await waitFor('testbed certified', async () => /active/.test(await d.cli(['show', '-c', 'testbed'])))
  await waitPublished(d, (u) => u.some((x) => x.includes('/testbed/') && x.endsWith('.mft')))
  const before = await state(d)
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4 })
  t.teardown(() => agent.destroy())
  const ops = operations()
  t.ok(ops.length >= 50, `${ops.length} operations in the description`)
  const badCredentials: Record<string, Record<string, string>> = { 'no token': {}, 'wrong token': { Authorization: `Bearer ${d.token}x` }, 'basic scheme': { Authorization: `Basic ${Buffer.from(`admin:${d.token}`).toString('base64')}` }, 'empty bearer': { Authorization: 'Bearer ' } }
  const good = { Authorization: `Bearer ${d.token}` }
  const unexpected: string[] = []
  let sent = 0
  for (const [method, path] of ops) {
    const body = method === 'POST' ? WRITE_BODY : undefined
    const json: Record<string, string> = body ? { 'Content-Type': 'application/json' } : {}
    const pub = isPublic(method, path)
    const targets: Record<string, string> = { ...variants(path, d.port), ...(pub ? {} : { canonical: path, 'trailing slash': `${path}/`, 'query string': `${path}?x=1` }) }
    for (const [name, target] of Object.entries(targets)) {
      for (const [cred, headers] of Object.entries(badCredentials)) {
        const r = await raw(d, agent, method, target, { ...headers, ...json }, body)
        sent++
        const label = labelOf(r.body)
        const fine = (r.status === 401 && label === 'api-invalid-credentials') || (r.status === 400 && label === 'api-invalid-path')
        if (!fine) unexpected.push(`${cred}: ${method} ${target} (${name}) → ${r.status} ${r.body.slice(0, 120)}`)
      }
      if (name === 'canonical' || name === 'trailing slash' || name === 'query string') continue
      const r = await raw(d, agent, method, target, { ...good, ...json }, body)
      sent++
      const label = labelOf(r.body)
      const fine = (r.status === 400 && label === 'api-invalid-path') || (r.status === 404 && label === 'api-unknown-resource') || (r.status === 405 && label === 'api-unknown-method')
      if (!fine) unexpected.push(`with the token: ${method} ${target} (${name}) → ${r.status} ${r.body.slice(0, 120)}`)
    }
  }
  t.same(unexpected, [], `${sent} requests: every one refused before any handler`)
  t.equal(await state(d), before, 'nothing changed: CAs, routes, children, history, publishers')

  // The canonical spellings still work with the token, and the public routes without one.
  t.equal((await raw(d, agent, 'GET', '/api/v1/cas', good)).status, 200)
  t.equal((await raw(d, agent, 'GET', '/api/v1/cas/', good)).status, 200, 'one trailing slash is the same path')
  t.equal((await raw(d, agent, 'GET', '/api/v1/cas/testbed?x=1', good)).status, 200, 'a query string is not part of the path')
  t.equal((await raw(d, agent, 'GET', '/stats/info', good)).status, 200)
  t.equal((await raw(d, agent, 'GET', '/stats/info', {})).status, 200, '/stats/info is public, as in Krill (issue 24 item 6)')
  t.equal((await raw(d, agent, 'GET', '/health', {})).status, 200)
  t.equal((await raw(d, agent, 'GET', '/ta/ta.tal', {})).status, 200)
  t.equal((await raw(d, agent, 'GET', '/rrdp/notification.xml', {})).status, 200)
  t.equal((await raw(d, agent, 'GET', '/nope', {})).status, 401, 'an unknown path reveals nothing without the token')
  t.equal((await raw(d, agent, 'GET', '/nope', good)).status, 404)
  // The public Krill-client routes (issue 16): reachable without the token only in their canonical spelling.
  t.equal((await raw(d, agent, 'GET', '/auth/login', {})).status, 200, 'the login page URL is public')
  t.equal((await raw(d, agent, 'POST', '/auth/login', {})).status, 401, 'logging in needs the token')
  t.equal((await raw(d, agent, 'GET', '/testbed/enabled', {})).status, 200, 'the testbed self-service is public')
  for (const target of ['/TESTBED/enabled', '/Testbed/enabled', '/%74estbed/enabled', '/testbed%2Fenabled', '/testbed//enabled', '/rrdp/../testbed/enabled', '/testbed/./enabled', '/AUTH/login']) {
    const r = await raw(d, agent, 'GET', target, {})
    t.ok((r.status === 401 && labelOf(r.body) === 'api-invalid-credentials') || (r.status === 400 && labelOf(r.body) === 'api-invalid-path'), `GET ${target} without the token: ${r.status} ${labelOf(r.body)}`)
  }
  for (const target of ['/TESTBED/children/x', '/testbed/Children/x', '/testbed/children%2Fx', '/testbed/children/x/..', '/testbed/publishers/%2e%2e']) {
    const r = await raw(d, agent, 'DELETE', target, {})
    t.ok((r.status === 401 && labelOf(r.body) === 'api-invalid-credentials') || (r.status === 400 && labelOf(r.body) === 'api-invalid-path'), `DELETE ${target} without the token: ${r.status} ${labelOf(r.body)}`)
  }
  const encodedChild = await raw(d, agent, 'GET', '/api/v1/cas/testbed/children/Alice%2FBob', good)
  t.equal(labelOf(encodedChild.body), 'ca-child-unknown', 'an encoded / is data inside one segment (an RFC 8183 handle), not a separator')
})

function labelOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { label?: string }).label
  } catch {
    return undefined
  }
}
