/**
 * The role matrix (issue 24 acceptance): every operation of the OpenAPI description × the roles admin, readwrite,
 * readonly and `ca1any` (every permission, limited to ca1) × (own CA ca1, other CA ca2). What each case expects is
 * derived from the one table (ROUTE_PERMISSIONS) and roleAllows; the real svcd must answer 403 exactly there, naming
 * the permission and the CA, and change nothing (a digest of the CAs, their ROAs, ASPAs, BGPsec keys, children,
 * parents, repositories and the publishers, before and after).
 *
 * An allowed call is sent so that it cannot change anything: a POST gets a dummy JSON body (a 400 for it proves that
 * authorization passed: the body is read only after the check), a DELETE names a sub-resource that does not exist (a
 * 404). Only DELETE /api/v1/cas/{ca} has nothing to aim at but the CA: those allowed are made at the end.
 */
import t from 'tap'
import { OPENAPI } from '../../src/api/openapi.js'
import { PERMISSIONS } from '../../src/api/access.js'
import { isPublic } from '../../src/http/auth.js'
import { allowed, compile, ROUTE_PERMISSIONS, routePermission } from '../../src/http/route-permissions.js'
import { paramValue, rolesDaemon, stateDigest, type Caller } from '../helpers/roles.js'

const DUMMY = JSON.stringify({ 'svc-role-matrix': 'not a valid body' })
const compiled = ROUTE_PERMISSIONS.map(compile)

interface Case {
  op: string
  method: string
  path: string
  ca: string | undefined
}

/** Every operation, once per CA when its path names one. Public operations are left out (no role is involved). */
function cases(): Case[] {
  const out: Case[] = []
  for (const [path, item] of Object.entries(OPENAPI.paths)) {
    const full = `${(item as { servers?: unknown }).servers ? '' : '/api/v1'}${path}`
    for (const method of ['get', 'post', 'put', 'delete'] as const) {
      if (!(item as Record<string, unknown>)[method]) continue
      const M = method.toUpperCase()
      for (const ca of full.includes('{ca}') ? ['ca1', 'ca2'] : [undefined]) {
        const concrete = full.replace(/\{([a-z_]+)\}/g, (_m, name: string) => paramValue(name, ca ?? 'ca1'))
        if (isPublic(M, concrete)) continue
        out.push({ op: `${M} ${full}`, method: M, path: concrete, ca })
      }
    }
  }
  return out
}

/** Whether the table lets `caller` make the call (a route without an entry: only a role with every permission on every CA). */
function expectAllowed(caller: Caller, c: Case): { ok: boolean; need?: string; ca?: string } {
  const hit = routePermission(compiled, c.method, c.path)
  if (!hit) return { ok: PERMISSIONS.every((p) => caller.role.permissions.has(p)) && caller.role.cas === undefined }
  return { ok: allowed(caller.actor, hit.entry.need, hit.ca), need: hit.entry.need, ...(hit.ca === undefined ? {} : { ca: hit.ca }) }
}

t.test('every operation × role × own/other CA: 403 exactly where the table says, and nothing changed', async (t) => {
  const r = await rolesDaemon(t)
  const all = cases()
  t.ok(all.length > 80, `${all.length} operation × CA cases from the OpenAPI description`)
  const deferred: { caller: Caller; c: Case }[] = []
  let denied = 0
  let passed = 0
  for (const c of all) {
    const before = await stateDigest(r)
    const allowedCalls: Caller[] = []
    for (const caller of Object.values(r.callers)) {
      const want = expectAllowed(caller, c)
      if (want.ok) {
        allowedCalls.push(caller)
        continue
      }
      const a = await r.call(caller, c.method, c.path, c.method === 'POST' ? DUMMY : undefined)
      denied++
      t.equal(a.status, 403, `${caller.role.name} ${c.method} ${c.path}: 403`)
      const body = JSON.parse(a.body || '{}') as { label?: string; msg?: string; args?: Record<string, string> }
      t.same(body.args, { permission: want.need, ...(want.ca === undefined ? {} : { ca: want.ca }) }, `${caller.role.name} ${c.method} ${c.path}: names ${want.need}${want.ca ? ` on ${want.ca}` : ''}`)
      t.ok(body.msg?.includes(String(want.need)), 'the message names the permission')
    }
    t.equal(await stateDigest(r), before, `${c.op} (${c.ca ?? '-'}): nothing changed by the refused calls`)
    for (const caller of allowedCalls) {
      if (c.method === 'DELETE' && c.op === 'DELETE /api/v1/cas/{ca}') {
        deferred.push({ caller, c })
        continue
      }
      const a = await r.call(caller, c.method, c.path, c.method === 'POST' ? DUMMY : undefined)
      passed++
      t.ok(a.status !== 403 && a.status !== 401 && a.status < 500, `${caller.role.name} ${c.method} ${c.path}: allowed (${a.status})`)
    }
  }
  for (const { caller, c } of deferred) {
    const a = await r.call(caller, c.method, c.path)
    t.ok(a.status === 200 || a.status === 404, `${caller.role.name} ${c.method} ${c.path}: allowed, at the end (${a.status})`)
  }
  t.ok(denied > 100 && passed > 100, `${denied} calls refused, ${passed} allowed`)
})
