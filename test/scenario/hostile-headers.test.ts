/**
 * Issue 22 defect 11: every answer of svcd carries `X-Content-Type-Options: nosniff` (set once, in front of routing,
 * http/app.ts), so that no browser reads an API body, an error, an RRDP file or the TAL as another type than svcd gave
 * it: API answers and errors (401, 404, 400), RRDP notification and snapshot, the TAL and TA certificate, /health,
 * /ready, an unknown path, the console and the root redirect, and an RFC 6492 refusal.
 */
import t from 'tap'
import { repoDaemon, waitFor } from '../helpers/cas.js'
import { httpsRequest } from '../helpers/daemon.js'

t.test('X-Content-Type-Options: nosniff on every kind of answer', async (t) => {
  const d = await repoDaemon(t)
  const auth = { Authorization: `Bearer ${d.token}` }
  const notification = await waitFor('the RRDP notification', async () => {
    const r = await httpsRequest(`${d.url}rrdp/notification.xml`)
    return r.status === 200 ? r : undefined
  })
  const snapshot = /<snapshot uri="([^"]+)"/.exec(notification.body)![1]!
  await waitFor('the TAL', async () => (await httpsRequest(d.talUrl)).status === 200)
  const cases: [string, string, Record<string, string>, number, { method?: string; body?: string; headers?: Record<string, string> }?][] = [
    ['an API answer', 'api/v1/cas', auth, 200],
    ['an API error: no token', 'api/v1/cas', {}, 401],
    ['an API error: unknown CA', 'api/v1/cas/nope', auth, 404],
    ['an API error: bad body', 'api/v1/cas', auth, 400, { method: 'POST', body: '{"handle":', headers: { 'Content-Type': 'application/json' } }],
    ['an unknown path with the token', 'no/such/thing', auth, 404],
    ['a refused path spelling', 'api/v1//cas', auth, 400],
    ['the RRDP notification', 'rrdp/notification.xml', {}, 200],
    ['an RRDP snapshot', snapshot.replace(d.url, ''), {}, 200],
    ['a missing RRDP file', 'rrdp/nope.xml', {}, 404],
    ['the TAL', 'ta/ta.tal', {}, 200],
    ['the TA certificate', 'ta/ta.cer', {}, 200],
    ['/health', 'health', {}, 200],
    ['/ready', 'ready', {}, 200],
    ['the console', 'ui/', {}, 200],
    ['the root redirect', '', {}, 302],
    ['an RFC 6492 post that is not CMS', 'rfc6492/testbed', {}, 400, { method: 'POST', body: 'hello', headers: { 'Content-Type': 'application/rpki-updown' } }],
  ]
  for (const [what, path, headers, status, extra] of cases) {
    const r = await httpsRequest(`${d.url}${path}`, { ...(extra ?? {}), headers: { ...headers, ...(extra?.headers ?? {}) } })
    t.equal(r.status, status, `${what}: ${status}`)
    t.equal(r.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
  }
})
