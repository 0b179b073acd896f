/**
 * The one route → permission table (src/http/route-permissions.ts, issue 24): every authenticated route of every
 * router has exactly one entry, no entry names a route that does not exist, the check is proven to find both faults on
 * a known-bad table, and every spelling of a path that reaches a route resolves to that route's entry and CA.
 */
import t from 'tap'
import { DEFAULT_ROLES, expandPermissions, type Actor, type Role } from '../../../src/api/access.js'
import { isPublic } from '../../../src/http/auth.js'
import { allowed, compile, ROUTE_PERMISSIONS, routePermission, type RoutePermission } from '../../../src/http/route-permissions.js'
import { routeTable } from '../../helpers/route-table.js'

/** A route-table line (`GET /api/v1/cas/{ca}`) as the table spells it (`GET /api/v1/cas/:ca`). */
const asTableKey = (line: string) => line.replace(/\{([A-Za-z_]+)\}/g, ':$1')
const keyOf = (e: RoutePermission) => `${e.method} ${e.path}`
/** A concrete path for a route-table path: every parameter a plausible value. */
const concrete = (path: string) => path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => (name === 'ca' ? 'ca1' : name === 'seconds' ? '60' : name === 'customer' ? 'AS65000' : name === 'key_id' ? 'A'.repeat(40) : `${name}1`))

/** Which served routes lack an entry, which entries match no served route, which routes have more than one entry. */
function tableProblems(table: readonly RoutePermission[], served: readonly string[]): { missing: string[]; stale: string[]; duplicate: string[] } {
  const authenticated = served.filter((line) => {
    const [method, path] = line.split(' ') as [string, string]
    return !isPublic(method, concrete(path))
  })
  const keys = table.map(keyOf)
  const wanted = new Set(authenticated.map(asTableKey))
  const servedKeys = new Set(served.map(asTableKey))
  return {
    missing: [...wanted].filter((k) => !keys.includes(k)),
    stale: keys.filter((k) => !servedKeys.has(k)),
    duplicate: keys.filter((k, i) => keys.indexOf(k) !== i),
  }
}

const served = routeTable()

t.test('every authenticated route has exactly one entry, and every entry is a served route', async (t) => {
  t.ok(served.length > 60, `the route table is read (${served.length} routes)`)
  const problems = tableProblems(ROUTE_PERMISSIONS, served)
  t.same(problems.missing, [], 'no authenticated route without an entry')
  t.same(problems.stale, [], 'no entry for a route that is not served')
  t.same(problems.duplicate, [], 'no route with two entries')
  for (const e of ROUTE_PERMISSIONS) {
    if (e.path.startsWith('/api/v1/cas/:ca')) t.equal(e.ca, 'ca', `${keyOf(e)} names its CA`)
    if (e.ca !== undefined) t.ok(e.path.split('/').includes(`:${e.ca}`), `${keyOf(e)}: its CA parameter is in its path`)
  }
})

t.test('the check finds a missing route and a stale entry (a known-bad table)', async (t) => {
  const bad = [...ROUTE_PERMISSIONS.filter((e) => keyOf(e) !== 'DELETE /api/v1/cas/:ca'), { method: 'GET', path: '/api/v1/cas/:ca/nothing', need: 'ca-read', ca: 'ca' } as const, ROUTE_PERMISSIONS[0]!]
  const problems = tableProblems(bad, served)
  t.same(problems.missing, ['DELETE /api/v1/cas/:ca'])
  t.same(problems.stale, ['GET /api/v1/cas/:ca/nothing'])
  t.same(problems.duplicate, [keyOf(ROUTE_PERMISSIONS[0]!)])
})

const compiled = ROUTE_PERMISSIONS.map(compile)

t.test('each served route resolves to its own entry (no entry shadows another)', async (t) => {
  for (const line of served) {
    const [method, path] = line.split(' ') as [string, string]
    if (isPublic(method, concrete(path))) continue
    const hit = routePermission(compiled, method, concrete(path))
    t.equal(hit && keyOf(hit.entry), asTableKey(line), `${line} → its entry`)
    if (hit?.entry.ca) t.equal(hit.ca, 'ca1', `${line}: the CA is the path's`)
  }
})

t.test('path spellings resolve to the entry and CA the router sees; HEAD is GET', async (t) => {
  const at = (method: string, path: string) => {
    const hit = routePermission(compiled, method, path)
    return hit && { route: keyOf(hit.entry), need: hit.entry.need, ca: hit.ca }
  }
  const ca2Routes = { route: 'GET /api/v1/cas/:ca/routes', need: 'routes-read', ca: 'ca2' }
  t.same(at('GET', '/api/v1/cas/ca2/routes'), ca2Routes)
  t.same(at('GET', '/api/v1/cas/ca2/routes/'), ca2Routes, 'one trailing slash, ignored by the routers too')
  t.same(at('GET', '/api/v1/cas/c%612/routes'), ca2Routes, 'a percent-encoded handle is the decoded handle, as the router decodes it')
  t.same(at('GET', '/api/v1/cas/%63%61%32/routes'), ca2Routes)
  t.same(at('HEAD', '/api/v1/cas/ca2/routes'), ca2Routes, 'HEAD is GET')
  t.same(at('GET', '/api/v1/cas/ca2'), { route: 'GET /api/v1/cas/:ca', need: 'ca-read', ca: 'ca2' })
  t.same(at('DELETE', '/api/v1/cas/ca2/'), { route: 'DELETE /api/v1/cas/:ca', need: 'ca-delete', ca: 'ca2' })
  t.same(at('GET', '/api/v1/cas/ca1%2Fx'), { route: 'GET /api/v1/cas/:ca', need: 'ca-read', ca: 'ca1/x' }, 'an encoded / is data in the handle, not a separator')
  t.same(at('GET', '/api/v1/ta/keyroll'), { route: 'GET /api/v1/ta/keyroll', need: 'ca-read', ca: 'ta' }, "the TA key roll is about CA 'ta'")
  t.equal(at('GET', '/API/v1/cas/ca2'), undefined, 'paths are case-sensitive: no entry, as no route (refused to all but a role with every permission)')
  t.equal(at('GET', '/api/v1/Cas/ca2/routes'), undefined)
  t.equal(at('PUT', '/api/v1/cas/ca2'), undefined, 'a method no route serves has no entry')
  t.equal(at('GET', '/api/v1/cas/ca2/routes/x'), undefined)
})

t.test('allowed(): the permission, on the CA for a role limited to CAs', async (t) => {
  const actor = (role: Role): Actor => ({ id: 'joe', provider: 'config-file', role })
  const ca1Any: Role = { name: 'ca1-any', permissions: expandPermissions(['any']), cas: ['ca1'] }
  t.ok(allowed(actor(DEFAULT_ROLES.readonly), 'routes-read', 'ca2'))
  t.notOk(allowed(actor(DEFAULT_ROLES.readonly), 'routes-update', 'ca1'))
  t.ok(allowed(actor(ca1Any), 'routes-update', 'ca1'))
  t.notOk(allowed(actor(ca1Any), 'routes-read', 'ca2'))
  t.notOk(allowed(actor(ca1Any), 'ca-admin', 'ta'), "the TA is a CA like any other: not on the list, not allowed")
  t.ok(allowed(actor(ca1Any), 'ca-list', undefined), 'a permission that names no CA holds')
  t.ok(allowed(actor({ name: 'none', permissions: new Set() }), 'authenticated', undefined), "'authenticated' needs no permission")
})
