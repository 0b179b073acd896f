/**
 * A role trying every route (issue 24, the hostile suite): a readonly session and a session of `ca1any` (every
 * permission, limited to ca1) send every method to every path of the route table, with plausible parameters, and
 * the spellings of a path that some layer could read as another (trailing slash, a percent-encoded handle, repeated
 * slashes, other case, dot segments). svcd never answers 2xx to what the table denies, and never 5xx. A role limited
 * to ca1 never sees ca2 in a list, a page total or the bulk issues, and a bulk action it starts touches only ca1.
 */
import t from 'tap'
import { compile, allowed, ROUTE_PERMISSIONS, routePermission } from '../../src/http/route-permissions.js'
import { PERMISSIONS } from '../../src/api/access.js'
import { isPublic } from '../../src/http/auth.js'
import { canonicalPath } from '../../src/http/path.js'
import { routeTable } from '../helpers/route-table.js'
import { paramValue, rolesDaemon, type Caller } from '../helpers/roles.js'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']
const DUMMY = JSON.stringify({ 'svc-hostile-roles': 'not a valid body' })
const compiled = ROUTE_PERMISSIONS.map(compile)

/** Whether the table lets the caller make the call (no entry: only a role with every permission on every CA). */
function tableAllows(caller: Caller, method: string, path: string): boolean {
  const hit = routePermission(compiled, method, path)
  if (!hit) return PERMISSIONS.every((p) => caller.role.permissions.has(p)) && caller.role.cas === undefined
  return allowed(caller.actor, hit.entry.need, hit.ca)
}

/** Every path of the route table about ca2 (or about no CA), with plausible parameters. */
function paths(): string[] {
  const out = new Set<string>()
  for (const line of routeTable()) out.add(line.split(' ')[1]!.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => paramValue(name, 'ca2')))
  return [...out]
}

/** Spellings of requests about ca2 that a careless layer could read as another path. */
const VARIANTS: readonly [string, string][] = [
  ['GET', '/api/v1/cas/ca2/'],
  ['GET', '/api/v1/cas/c%612'],
  ['GET', '/api/v1/cas/%63%61%32/routes'],
  ['POST', '/api/v1/cas/c%612/routes/'],
  ['DELETE', '/api/v1/cas/ca2/'],
  ['GET', '/api/v1//cas'],
  ['GET', '/api/v1//cas/ca2'],
  ['GET', '/API/v1/cas/ca2'],
  ['GET', '/api/v1/CAS/ca2/routes'],
  ['GET', '/api/v1/cas/ca1/../ca2'],
  ['GET', '/api/v1/cas/ca1/%2e%2e/ca2/routes'],
  ['POST', '/api/v1/cas/ca1/../../v1/cas/ca2/routes'],
  ['GET', '/api/v1/cas/ca2;x=ca1'],
  ['GET', '/api/v1/cas/ca1%2F..%2Fca2'],
  ['GET', '/api/v1/cas/ca2?ca=ca1'],
  ['GET', '/api/v1/ta/keyroll/'],
]

const r = await rolesDaemon(t)

t.test('readonly and ca1-limited sessions try every route: never 2xx where the table denies, never 5xx', async (t) => {
  const callers = [r.callers.readonly!, r.callers.ca1any!]
  const all = paths()
  t.ok(all.length > 60, `${all.length} paths × ${METHODS.length} methods × ${callers.length} roles`)
  let tried = 0
  for (const caller of callers) {
    for (const path of all) {
      for (const method of METHODS) {
        if (isPublic(method, path)) continue
        const may = tableAllows(caller, method, path)
        // What the table allows is not tried where it would change something for good (deleting a CA).
        if (may && method === 'DELETE') continue
        const a = await r.call(caller, method, path, method === 'POST' || method === 'PUT' || method === 'PATCH' ? DUMMY : undefined)
        tried++
        if (a.status >= 500) t.fail(`${caller.role.name} ${method} ${path}: ${a.status} ${a.body.slice(0, 200)}`)
        if (!may && a.status < 300) t.fail(`${caller.role.name} ${method} ${path}: ${a.status}, where the table denies it`)
        if (!may && a.status === 403 && method !== 'HEAD') {
          const args = (JSON.parse(a.body) as { args?: Record<string, string> }).args ?? {}
          if (!args.permission) t.fail(`${caller.role.name} ${method} ${path}: a 403 that does not name the permission`)
        }
      }
    }
    for (const [method, path] of VARIANTS) {
      const a = await r.call(caller, method, path, method === 'POST' ? DUMMY : undefined)
      tried++
      const bare = path.split('?')[0]!
      if (canonicalPath(path).ok === false) t.equal(a.status, 400, `${caller.role.name} ${method} ${path}: refused before routing (${a.status})`)
      else if (!tableAllows(caller, method, bare)) t.equal(a.status, 403, `${caller.role.name} ${method} ${path}: 403, as the table says for this spelling`)
      else t.ok(a.status < 500, `${caller.role.name} ${method} ${path}: allowed to this role (${a.status})`)
    }
  }
  t.ok(tried > 500, `${tried} requests`)
})

t.test('a role limited to ca1 never sees ca2: lists, page totals, bulk issues; bulk actions touch only ca1', async (t) => {
  const limited = r.callers.ca1any!
  const json = async (caller: Caller, path: string) => {
    const a = await r.call(caller, 'GET', path)
    t.equal(a.status, 200, `${caller.role.name} GET ${path}`)
    return JSON.parse(a.body) as Record<string, unknown>
  }
  const handles = (list: Record<string, unknown>) => (list.cas as { handle: string }[]).map((c) => c.handle)
  t.same(handles(await json(limited, '/api/v1/cas')), ['ca1'], "Krill's list: only ca1")
  t.match(handles(await json(r.callers.readonly!, '/api/v1/cas')), ['ca1', 'ca2'], 'readonly sees every CA')
  const page = await json(limited, '/api/v1/cas?limit=10&offset=0')
  t.same({ total: page.total, cas: handles(page) }, { total: 1, cas: ['ca1'] }, 'a page: the total counts only the CAs the role sees')
  const searched = await json(limited, '/api/v1/cas?limit=10&q=ca')
  t.same({ total: searched.total, cas: handles(searched) }, { total: 1, cas: ['ca1'] }, 'searched: the same')
  const issues = await json(limited, '/api/v1/bulk/cas/issues')
  t.notOk(Object.keys(issues.cas as object).some((ca) => ca !== 'ca1'), 'bulk issues: none of another CA')
  t.equal(issues.publication_server, undefined, 'nor the publication server (pub-list is not on the role for a CA)')

  for (const action of ['publish', 'sync/parent', 'sync/repo']) {
    const before = await json(r.callers.admin!, '/api/v1/cas/ca2/history/commands')
    t.equal((await r.call(limited, 'POST', `/api/v1/bulk/cas/${action}`)).status, 200, `bulk ${action} by the limited role`)
    const after = await json(r.callers.admin!, '/api/v1/cas/ca2/history/commands')
    t.equal(after.total, before.total, `bulk ${action}: ca2's history unchanged`)
  }
  // A role limited to ca1 creates no other CA: the handle is in the body, checked by the route.
  const other = await r.call(limited, 'POST', '/api/v1/cas', JSON.stringify({ handle: 'ca3' }))
  t.equal(other.status, 403)
  t.match(JSON.parse(other.body), { label: 'api-insufficient-rights', args: { permission: 'ca-create', ca: 'ca3' } })
  t.same(handles(await json(r.callers.admin!, '/api/v1/cas')).includes('ca3'), false, 'ca3 was not made')
})
