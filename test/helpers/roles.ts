/**
 * Roles against a real svcd (issue 24): a daemon with CAs `ca1` and `ca2` (children of testbed, one ROA each) and a
 * role `ca1any` (every permission, limited to ca1) in its `[auth_roles]`; login sessions for the default roles and
 * that one, started through the real SessionService on the daemon's own database (as a login would start them), so
 * the daemon's AccessService resolves them like any session. Used by role-matrix and hostile-roles.
 */
import https from 'node:https'
import { join } from 'node:path'
import type { Test } from 'tap'
import { DEFAULT_ROLES, expandPermissions, type Actor, type Role } from '../../src/api/access.js'
import { SessionService } from '../../src/app/access/session-service.js'
import { systemClock, systemRandom } from '../../src/clock.js'
import { Db } from '../../src/store/db.js'
import { SqlSessionStore } from '../../src/store/session-store.js'
import { connect, repoDaemon, type RepoDaemon } from './cas.js'

export const CA1_ANY: Role = { name: 'ca1any', permissions: expandPermissions(['any']), cas: ['ca1'] }
export const ROLES: readonly Role[] = [DEFAULT_ROLES.admin, DEFAULT_ROLES.readwrite, DEFAULT_ROLES.readonly, CA1_ANY]

export interface Caller {
  role: Role
  actor: Actor
  /** The bearer secret: the admin token for admin, else a session's secret. */
  secret: string
}

export interface RolesDaemon {
  d: RepoDaemon
  callers: Record<string, Caller>
  /** A request with a caller's bearer secret; `json` is sent as the body with its content type. */
  call(caller: Caller, method: string, path: string, body?: string): Promise<{ status: number; body: string }>
}

/** Start the daemon, make ca1 and ca2 with a ROA each, and a caller per role. */
export async function rolesDaemon(t: Test): Promise<RolesDaemon> {
  const d = await repoDaemon(t, { logLevel: 'info', extra: '\n[auth_roles]\nca1any = { permissions = ["any"], cas = ["ca1"] }\n' })
  for (const [ca, n] of [['ca1', 1], ['ca2', 2]] as const) {
    await d.cli(['add', '-c', ca])
    await connect(d, 'testbed', d, ca, { asn: `AS6500${n}`, ipv4: `10.${n}.0.0/16` })
    await d.cli(['roas', 'update', '-c', ca, '--add', `10.${n}.0.0/24 => 6500${n}`])
  }
  const db = Db.open(join(d.dataDir, 'svcd.db'))
  t.teardown(() => db.close())
  const sessions = new SessionService({ store: new SqlSessionStore(db), clock: systemClock, random: systemRandom, idleSeconds: 1800, maxSeconds: 43200 })
  const callers: Record<string, Caller> = {}
  for (const role of ROLES) {
    if (role.name === 'admin') {
      callers.admin = { role, actor: { id: 'admin-token', provider: 'admin-token', role }, secret: d.token }
      continue
    }
    const userId = `${role.name}@example.com`
    const { secret } = sessions.start({ userId, provider: 'config-file', role: role.name })
    callers[role.name] = { role, actor: { id: userId, provider: 'config-file', role }, secret }
  }
  // Hundreds of calls: one kept-alive connection instead of a TLS handshake each. A request that meets the connection
  // just as svcd closes it as idle is sent again on a new one (every call here is refused or changes nothing).
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
  t.teardown(() => agent.destroy())
  // The path is sent as given (no URL parsing on this side: dot segments and doubled slashes reach svcd).
  const once = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request({ hostname: 'localhost', port: d.port, path, method, headers, agent }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      })
      req.on('error', reject)
      req.end(body)
    })
  const call = async (caller: Caller, method: string, path: string, body?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${caller.secret}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    try {
      return await once(method, path, headers, body)
    } catch (e) {
      if (!/ECONNRESET|socket hang up/.test(String(e))) throw e
      return once(method, path, headers, body)
    }
  }
  return { d, callers, call }
}

/** A plausible value for a path parameter; `ca` is the CA the case is about. Sub-resources do not exist (no change). */
export function paramValue(name: string, ca: string): string {
  const values: Record<string, string> = { ca, child: 'nochild', parent: 'noparent', publisher: 'nopub', customer: 'AS65099', rows: '5', offset: '0', after: '0', before: '0', key: '1', seconds: '60', key_id: 'A'.repeat(40), file: 'notification.xml' }
  return values[name] ?? `x${name}`
}

/** Everything a 403 must leave as it was: the CAs, each CA's ROAs, ASPAs, BGPsec keys, children, parents, repository, resources, and the publishers. */
export async function stateDigest(r: RolesDaemon): Promise<string> {
  const admin = r.callers.admin!
  const get = async (path: string) => {
    const a = await r.call(admin, 'GET', path)
    return a.status === 200 ? (JSON.parse(a.body) as unknown) : a.status
  }
  const out: Record<string, unknown> = { cas: await get('/api/v1/cas'), publishers: await get('/api/v1/pubd/publishers') }
  for (const ca of ['ca1', 'ca2']) {
    const info = (await get(`/api/v1/cas/${ca}`)) as { children?: unknown; parents?: unknown; resources?: unknown } | number
    const routes = (await get(`/api/v1/cas/${ca}/routes`)) as { asn: number; prefix: string; max_length: number; comment?: string | null }[] | number
    out[ca] = {
      info: typeof info === 'number' ? info : { children: info.children, parents: info.parents, resources: info.resources },
      routes: typeof routes === 'number' ? routes : routes.map((x) => `${x.prefix}-${x.max_length} => ${x.asn} # ${x.comment ?? ''}`).sort(),
      aspas: await get(`/api/v1/cas/${ca}/aspas`),
      bgpsec: await get(`/api/v1/cas/${ca}/bgpsec`),
      repo: await get(`/api/v1/cas/${ca}/repo`),
    }
  }
  return JSON.stringify(out)
}
