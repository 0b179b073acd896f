/**
 * The one meaning of a request path (src/http/path.ts) and the public list (src/http/auth.ts): which spellings are
 * refused before authentication and routing, and which routes need no token (issue 10, defect 1).
 */
import t from 'tap'
import { isPublic, PUBLIC_ROUTES } from '../../../src/http/auth.js'
import { canonicalPath } from '../../../src/http/path.js'

const ok = (target: string, path = target.split('?')[0]) => t.same(canonicalPath(target), { ok: true, path }, `${JSON.stringify(target)} is canonical`)
const refused = (target: string, reason: RegExp) => {
  const r = canonicalPath(target)
  t.equal(r.ok, false, `${JSON.stringify(target)} is refused`)
  if (!r.ok) t.match(r.reason, reason, `${JSON.stringify(target)}: ${r.reason}`)
}

t.test('canonical paths pass unchanged, query strings are not part of the path', async () => {
  ok('/')
  ok('/health')
  ok('/api/v1/cas')
  ok('/api/v1/cas/', '/api/v1/cas/')
  ok('/api/v1/cas?x=1&y=/../', '/api/v1/cas')
  ok('/API/v1/cas', '/API/v1/cas') // refused by routing (case-sensitive) and by auth (not public), not here
  ok('/api/v1/cas/ca1/children/Alice%2FBob', '/api/v1/cas/ca1/children/Alice%2FBob') // RFC 8183 §5 handles may hold '/'
  ok('/rrdp/0b7c7e4e-5b1c-4e33-9b1e-2a4c8a1d0f11/12/0123456789abcdef/delta.xml')
  ok('/api/v1/cas/a.b')
})

t.test('every other spelling is refused with its reason', async () => {
  refused('https://localhost/api/v1/cas', /origin form/)
  refused('*', /origin form/)
  refused('api/v1/cas', /origin form/)
  refused('//api/v1/cas', /empty path segments/)
  refused('/api//v1/cas', /empty path segments/)
  refused('/api/v1/cas//', /empty path segments/)
  refused('/api/./v1/cas', /dot segments/)
  refused('/rrdp/../api/v1/cas', /dot segments/)
  refused('/rrdp/%2e%2e/api/v1/cas', /dot segments/)
  refused('/rrdp/%2E/api', /dot segments/)
  refused('/api/v1/cas/..', /dot segments/)
  refused('/api;x=1/v1/cas', /';' parameters/)
  refused('/api/v1/cas;jsessionid=1', /';' parameters/)
  refused('/api\\v1\\cas', /not allowed/)
  refused('/api/v1/cas/a%5Cb', /backslash/)
  refused('/api/v1/cas/%00', /control characters/)
  refused('/api/v1/cas/a%0d%0ab', /control characters/)
  refused('/api/v1/cas/%zz', /malformed percent-encoding/)
  refused('/api/v1/cas/%', /malformed percent-encoding/)
  refused('/api/v1/cas/%c3', /malformed percent-encoding/)
  refused('/api/v1/cas/a b', /not allowed/)
  refused('/api/v1/cas/\u00e9', /not allowed/)
  refused('/api/v1/cas#frag', /fragment/)
})

t.test('the public list: exactly health, readiness, RRDP, TA, the CMS-authenticated protocol endpoints, the login endpoints, the files of the TA key roll, the testbed self-service and the console', async (t) => {
  t.equal(PUBLIC_ROUTES.length, 16)
  for (const [method, path] of [
    ['GET', '/health'], ['HEAD', '/health'], ['GET', '/ready'], ['GET', '/stats/info'], ['HEAD', '/stats/info'], ['GET', '/rrdp/notification.xml'], ['GET', '/rrdp/x/1/y/snapshot.xml'],
    ['GET', '/ta/ta.tal'], ['GET', '/ta/ta.cer'], ['GET', '/ta/ta-next.tal'], ['GET', `/ta/ta-${'A'.repeat(40)}.cer`], ['POST', '/rfc6492/testbed'], ['POST', '/rfc6492/testbed/'], ['POST', '/rfc8181/pub1'], ['POST', '/rfc8181/pub1/'],
    ['GET', '/auth/login'], ['POST', '/auth/login'], ['POST', '/auth/logout'], ['GET', '/auth/callback'], ['GET', '/testbed/enabled'], ['POST', '/testbed/children'], ['POST', '/testbed/publishers'], ['POST', '/testbed/children/'],
    ['DELETE', '/testbed/children/kid'], ['DELETE', '/testbed/publishers/pub1'], ['DELETE', '/testbed/children/Alice%2FBob'],
    ['GET', '/'], ['HEAD', '/'], ['GET', '/ui'], ['GET', '/ui/'], ['GET', '/ui/cas/ca1/roas'], ['HEAD', '/ui/assets/main-X.js'],
  ]) t.ok(isPublic(method, path), `${method} ${path} is public`)
  for (const [method, path] of [
    ['GET', '/api/v1/cas'], ['GET', '/API/v1/cas'], ['GET', '/Api/v1/cas'], ['POST', '/api/v1/cas'], ['POST', '/stats/info'], ['GET', '/stats/info/x'], ['GET', '/api/v1/authorized'],
    ['GET', '/HEALTH'], ['POST', '/health'], ['DELETE', '/health'], ['GET', '/rrdp/'], ['GET', '/rrdp'], ['POST', '/rrdp/notification.xml'],
    ['GET', '/RRDP/notification.xml'], ['GET', '/ta/ta.key'], ['GET', '/ta/'], ['GET', '/ta/ta-next.crl'], ['GET', '/ta/TA-NEXT.TAL'], ['GET', '/ta/ta-a/b.cer'], ['POST', '/ta/ta-next.tal'], ['GET', '/rfc6492/testbed'], ['POST', '/rfc6492/'], ['POST', '/rfc6492/a/b'],
    ['POST', '/RFC8181/pub1'], ['POST', '/rfc8181/pub1/x'], ['POST', '/'], ['GET', '/nope'], ['GET', '/UI/'], ['GET', '/uix'], ['POST', '/ui/'], ['DELETE', '/ui/cas'], ['GET', '/healthz'], ['GET', '/health/x'],
    ['GET', '/auth/logout'], ['POST', '/auth/callback'], ['GET', '/AUTH/login'], ['GET', '/auth/login/x'], ['POST', '/auth/login/x'],
    ['GET', '/TESTBED/enabled'], ['GET', '/Testbed/children'], ['POST', '/TESTBED/children'], ['GET', '/testbed/children'], ['POST', '/testbed/enabled'],
    ['DELETE', '/testbed/children'], ['DELETE', '/testbed/children/a/b'], ['POST', '/testbed/children/kid'], ['GET', '/testbed/children/kid/parent_response.xml'],
    ['DELETE', '/testbed/publishers/'], ['POST', '/testbed/Publishers'], ['GET', '/testbed'], ['DELETE', '/testbed/ca/x'],
  ]) t.notOk(isPublic(method, path), `${method} ${path} needs the token`)
})
