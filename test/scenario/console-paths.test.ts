/**
 * The console's static files and default deny (issue 15, issue 10): `/` and GET/HEAD under `/ui/` are public and answer
 * only the console (index.html or a built asset, with a Content-Security-Policy); no spelling that starts with `/ui`
 * reaches an API handler without the token, for any operation of the OpenAPI description; other methods, other
 * cases and neighbouring paths are not public; asset names cannot leave dist/ui/assets/.
 */
import t from 'tap'
import https from 'node:https'
import { OPENAPI } from '../../src/api/openapi.js'
import { isPublic } from '../../src/http/auth.js'
import { repoDaemon, type RepoDaemon } from '../helpers/cas.js'

interface Answer {
  status: number
  type: string
  body: string
  headers: Record<string, string | string[] | undefined>
}

/** One request with the target exactly as written. */
function raw(d: RepoDaemon, method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: d.port, method, path: target, headers, agent: false, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const labelOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { label?: string }).label
  } catch {
    return undefined
  }
}

t.test('public paths of the console', async (t) => {
  t.ok(isPublic('GET', '/'), '/ is public (a redirect)')
  for (const p of ['/ui', '/ui/', '/ui/cas/ca1/roas', '/ui/assets/main-ABC.js']) {
    t.ok(isPublic('GET', p), `GET ${p}`)
    t.ok(isPublic('HEAD', p), `HEAD ${p}`)
    t.notOk(isPublic('POST', p), `POST ${p} is not public`)
    t.notOk(isPublic('DELETE', p), `DELETE ${p} is not public`)
  }
  for (const p of ['/UI/', '/Ui', '/uix', '/ui-x/', '/api/v1/ui', '/x/ui/']) t.notOk(isPublic('GET', p), `GET ${p} is not public`)
})

t.test('the console is served, and nothing else is reached through its paths', async (t) => {
  const d = await repoDaemon(t, { testbed: false })
  const good = { Authorization: `Bearer ${d.token}` }

  const root = await raw(d, 'GET', '/')
  t.equal(root.status, 302)
  t.equal(root.headers.location, '/ui/')
  for (const target of ['/ui', '/ui/', '/ui/cas', '/ui/cas/testbed/roas?q=10.0', '/ui/pubd/', '/ui/anything/at/all']) {
    const r = await raw(d, 'GET', target)
    t.equal(r.status, 200, `GET ${target} without the token`)
    t.equal(r.type, 'text/html; charset=utf-8')
    t.match(r.body, /<div id="app">/, 'the console')
    t.equal(r.headers['content-security-policy'], "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
    t.equal(r.headers['x-content-type-options'], 'nosniff')
  }
  t.equal((await raw(d, 'HEAD', '/ui/')).status, 200, 'HEAD')
  const post = await raw(d, 'POST', '/ui/')
  t.same([post.status, labelOf(post.body)], [401, 'api-invalid-credentials'], 'POST is not public')
  const postToken = await raw(d, 'POST', '/ui/cas', good)
  t.same([postToken.status, labelOf(postToken.body)], [405, 'api-unknown-method'], 'and not served with the token either')

  const assets = /href="(\/ui\/assets\/[^"]+\.css)"[\s\S]*src="(\/ui\/assets\/[^"]+\.js)"/.exec((await raw(d, 'GET', '/ui/')).body)
  t.ok(assets, 'index.html names a hashed stylesheet and script')
  for (const a of assets!.slice(1)) {
    const r = await raw(d, 'GET', a)
    t.equal(r.status, 200, a)
    t.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.match(r.type, /^text\/(css|javascript); charset=utf-8$/)
  }
  for (const target of ['/ui/assets/nope.js', '/ui/assets/..%2F..%2Fmain.js', '/ui/assets/x%2Fmain.js', '/ui/assets/index.html', '/ui/assets/a/b.js', '/ui/assets/.js']) {
    const r = await raw(d, 'GET', target)
    t.same([r.status, labelOf(r.body)], [404, 'api-unknown-resource'], `GET ${target}: no file outside the built assets`)
  }
  for (const target of ['/ui/assets/../../main.js', '/ui/../api/v1/cas', '/ui/%2e%2e/api/v1/cas', '/ui//cas', '/ui;x=1/', '/ui/cas%00', '/ui\\cas']) {
    const r = await raw(d, 'GET', target)
    t.same([r.status, labelOf(r.body)], [400, 'api-invalid-path'], `GET ${target} refused`)
  }
  for (const target of ['/UI/', '/Ui/cas', '/%75i/', '/uix', '/ui-x/']) {
    const r = await raw(d, 'GET', target)
    t.same([r.status, labelOf(r.body)], [401, 'api-invalid-credentials'], `GET ${target} is not the console`)
  }

  // Every operation of the API behind a /ui prefix, without the token: refused, or the console's page; never an API answer.
  const unexpected: string[] = []
  let sent = 0
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    const full = `${item.servers ? '' : '/api/v1'}${path}`.replace(/\{([a-z_]+)\}/g, 'testbed')
    for (const m of ['get', 'post', 'delete'] as const) {
      if (!item[m]) continue
      for (const prefix of ['/ui/..', '/ui/%2e%2e', '/ui/x%2F..%2F..', '/ui/..%2F..', '/ui']) {
        const r = await raw(d, m.toUpperCase(), `${prefix}${full}`)
        sent++
        const label = labelOf(r.body)
        const fine = (r.status === 401 && label === 'api-invalid-credentials') || (r.status === 400 && label === 'api-invalid-path') || (r.status === 200 && r.type.startsWith('text/html') && r.body.includes('<div id="app">'))
        if (!fine) unexpected.push(`${m.toUpperCase()} ${prefix}${full} → ${r.status} ${r.body.slice(0, 100)}`)
      }
    }
  }
  t.same(unexpected, [], `${sent} requests: none reached an API handler`)
})
