/**
 * The console's login and access rules as plain functions: GET /auth/login's answer read as the login form
 * (src/ui/credentials.ts), the HTTP Basic credentials of a user in UTF-8, and the client's copy of svcd's permission rule
 * (src/ui/permissions.ts) against svcd's own (api/access.ts roleAllows) for every permission, role and CA.
 */
import t from 'tap'
import { DEFAULT_ROLES, PERMISSIONS, roleAllows, whoAmIJson, type Role } from '../../../src/api/access.js'
import { basicAuthorization, loginMethodOf } from '../../../src/ui/credentials.js'
import { allows } from '../../../src/ui/permissions.js'

t.test("GET /auth/login's answer picks the login form", async (t) => {
  t.same(loginMethodOf('/login'), { kind: 'token' }, "admin-token: Krill's token form")
  t.same(loginMethodOf('/login?withId=true\n'), { kind: 'password' }, 'config-file: the user and password form')
  t.same(loginMethodOf('https://op.example/authorize?client_id=svc&state=x'), { kind: 'redirect', url: 'https://op.example/authorize?client_id=svc&state=x' }, 'openid-connect: a button to the provider')
  t.same(loginMethodOf('javascript:alert(1)'), { kind: 'token' }, 'no other scheme is followed')
  t.same(loginMethodOf('//evil.example/'), { kind: 'token' }, 'nor a scheme-relative URL')
  t.same(loginMethodOf(''), { kind: 'token' })
})

t.test('HTTP Basic credentials are the UTF-8 bytes of user:password (RFC 7617)', async (t) => {
  for (const [user, password] of [['joe@example.com', 'secret'], ['jösé', 'pässwörd ✓'], ['a', 'with:colon']]) {
    t.equal(basicAuthorization(user, password), `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`, `${user}`)
  }
})

t.test("the client's rule is svcd's: every permission × role × CA", async (t) => {
  const limited: Role = { name: 'ca1-only', permissions: new Set(['login', 'ca-list', 'ca-read', 'routes-update'] as const), cas: ['ca1'] }
  let checked = 0
  for (const role of [...Object.values(DEFAULT_ROLES), limited]) {
    const who = whoAmIJson({ id: 'x', provider: 'config-file', role })
    for (const p of PERMISSIONS) {
      for (const ca of [undefined, 'ca1', 'ca2']) {
        if (allows(who, p, ca) !== roleAllows(role, p, ca)) t.fail(`${role.name} ${p} ${ca ?? '-'}`)
        checked++
      }
    }
  }
  t.equal(checked, 4 * PERMISSIONS.length * 3)
  t.notOk(allows(undefined, 'ca-read'), 'nothing before whoami answered')
  t.ok(allows({ permissions: ['routes-update'], cas: ['ca1'] }, 'routes-update', 'ca1'))
  t.notOk(allows({ permissions: ['routes-update'], cas: ['ca1'] }, 'routes-update', 'ca2'), 'a role limited to ca1 holds nothing on ca2')
})
