/**
 * Roles and permissions (src/api/access.ts; Krill's names and default roles): the shortcuts, a role limited to a list
 * of CAs, "no wider than", and the [auth_*] configuration that builds them (src/config-auth.ts).
 */
import t from 'tap'
import { DEFAULT_ROLES, expandPermissions, holdsEverything, PERMISSIONS, roleAllows, roleSeesCa, roleWithin, SHORTCUTS, widerThan, type Role } from '../../../src/api/access.js'
import { applyToml, ConfigError, defaults, verifyConfig } from '../../../src/config.js'

const role = (permissions: string[], cas?: string[]): Role => ({ name: 'r', permissions: expandPermissions(permissions), ...(cas ? { cas } : {}) })

t.test("Krill's permission names and shortcuts", async (t) => {
  t.equal(PERMISSIONS.length, 24, "Krill's 23 and svcd's plans-approve")
  t.same([...expandPermissions(['any'])], [...PERMISSIONS], 'any is every permission')
  t.same([...expandPermissions(['read'])].sort(), [...SHORTCUTS.read].sort())
  t.same([...expandPermissions(['update', 'login'])].sort(), ['aspas-update', 'bgpsec-update', 'login', 'routes-update', 'rta-update'])
  t.throws(() => expandPermissions(['ca-read', 'ca-raed']), /unknown permission 'ca-raed'/)
  t.throws(() => expandPermissions(['__proto__']), /unknown permission/, 'no prototype key is a shortcut')
})

t.test('the default roles', async (t) => {
  t.ok([...PERMISSIONS].every((p) => roleAllows(DEFAULT_ROLES.admin, p, 'any-ca')), 'admin may do everything')
  t.ok(roleAllows(DEFAULT_ROLES.readwrite, 'routes-update', 'ca1'))
  t.notOk(roleAllows(DEFAULT_ROLES.readwrite, 'ca-delete', 'ca1'), 'readwrite may not delete a CA')
  t.notOk(roleAllows(DEFAULT_ROLES.readwrite, 'pub-admin'))
  t.ok(roleAllows(DEFAULT_ROLES.readonly, 'routes-read', 'ca1'))
  t.ok(roleAllows(DEFAULT_ROLES.readonly, 'login'), 'readonly users may log in')
  for (const p of ['routes-update', 'ca-create', 'ca-update', 'pub-create', 'aspas-update', 'bgpsec-update'] as const) t.notOk(roleAllows(DEFAULT_ROLES.readonly, p, 'ca1'), `readonly may not ${p}`)
})

t.test('a role limited to a list of CAs holds nothing on another CA', async (t) => {
  const r = role(['read', 'routes-update', 'ca-list'], ['ca1'])
  t.ok(roleAllows(r, 'routes-update', 'ca1'))
  t.notOk(roleAllows(r, 'routes-update', 'ca2'))
  t.notOk(roleAllows(r, 'ca-read', 'ca2'))
  t.ok(roleAllows(r, 'ca-list'), 'a permission that names no CA still holds')
  t.ok(roleSeesCa(r, 'ca1'))
  t.notOk(roleSeesCa(r, 'ca2'))
  t.notOk(roleAllows(r, 'ca-delete', 'ca1'), 'and only the permissions it has')
})

t.test('no wider than', async (t) => {
  const all = DEFAULT_ROLES.admin
  const rw1 = role(['routes-update', 'routes-read'], ['ca1'])
  t.ok(roleWithin(rw1, all))
  t.ok(roleWithin(rw1, role(['read', 'update'])))
  t.notOk(roleWithin(role(['ca-delete']), DEFAULT_ROLES.readwrite), 'a permission the creator lacks')
  t.notOk(roleWithin(role(['routes-read']), role(['routes-read'], ['ca1'])), 'all CAs is wider than one')
  t.notOk(roleWithin(role(['routes-read'], ['ca1', 'ca2']), role(['routes-read'], ['ca1'])), 'a CA the creator cannot reach')
  t.ok(roleWithin(role(['routes-read'], []), role(['routes-read'], ['ca1'])), 'no CA at all is narrower')
  t.same(widerThan(role(['routes-read', 'ca-delete', 'pub-admin']), DEFAULT_ROLES.readwrite), { permission: 'pub-admin' }, 'the first wider permission, in Krill order')
  t.same(widerThan(role(['routes-read'], ['ca1', 'ca2']), role(['routes-read'], ['ca1'])), { ca: 'ca2' }, 'the first CA out of reach')
  t.same(widerThan(role(['routes-read']), role(['routes-read'], ['ca1'])), { ca: '*' }, 'every CA, where the wider role has a list')
  t.equal(widerThan(rw1, all), undefined)
})

t.test('holding everything: every permission on every CA', async (t) => {
  t.ok(holdsEverything(DEFAULT_ROLES.admin))
  t.ok(holdsEverything(role(['any'])))
  t.notOk(holdsEverything(role(['any'], ['ca1'])), 'not when limited to CAs')
  t.notOk(holdsEverything(DEFAULT_ROLES.readwrite))
})

const load = (toml: string) => {
  const c = defaults()
  applyToml(c, toml, 'test.toml')
  verifyConfig(c, 'test.toml')
  return c
}

t.test('[auth_roles] and [auth_users] as Krill writes them', async (t) => {
  const hash = 'ab'.repeat(32)
  const c = load(`auth_type = "config-file"
[auth_roles]
"noc" = { permissions = ["login", "read", "routes-analysis"], cas = ["ca1", "ca2"] }
"readonly" = { permissions = ["login", "ca-list"] }
[auth_users]
"joe@example.com" = { role = "noc", password_hash = "${hash}", salt = "0011" }
"old@example.com" = { attributes = { role = "admin" }, password_hash = "${hash.toUpperCase()}", salt = "AB" }
`)
  t.same(c.auth_roles.noc!.cas, ['ca1', 'ca2'])
  t.ok(c.auth_roles.noc!.permissions.has('routes-read'), 'the read shortcut expanded')
  t.same([...c.auth_roles.readonly!.permissions], ['login', 'ca-list'], 'a configured role replaces a default of the same name')
  t.ok(c.auth_roles.admin, 'the other defaults stay')
  t.same(c.auth_users['joe@example.com'], { role: 'noc', password_hash: hash, salt: '0011' })
  t.equal(c.auth_users['old@example.com']!.role, 'admin', "Krill's older attributes = { role } form")
  t.equal(c.auth_users['old@example.com']!.salt, 'ab', 'hex is kept in lower case')
})

t.test('[auth_*] mistakes stop the start with the key named', async (t) => {
  const bad = (toml: string, re: RegExp, what: string) => t.throws(() => load(toml), re, what)
  t.throws(() => load('auth_type = "ldap"'), ConfigError)
  bad('auth_type = "config-file"', /\[auth_users\] must hold at least one user/, 'config-file without users')
  bad('auth_type = "openid-connect"', /\[auth_openidconnect\] must be set/, 'openid-connect without its section')
  bad('[auth_roles]\nx = { permissions = ["ca-raed"] }', /auth_roles\.x\.permissions' unknown permission 'ca-raed'/, 'a misspelt permission')
  bad('[auth_roles]\nx = { permissions = ["read"], cas = "ca1" }', /auth_roles\.x\.cas/, 'cas not a list')
  bad('[auth_roles]\nx = { permissions = ["read"], ca = ["ca1"] }', /auth_roles\.x\.ca' is unknown/, 'a misspelt key')
  bad('[auth_users]\n"j" = { role = "nope", password_hash = "ab", salt = "ab" }', /auth_users\."j"\.role' names the role 'nope'/, 'an undefined role')
  bad('[auth_users]\n"j" = { role = "admin", password_hash = "xyz", salt = "ab" }', /password_hash' must be hex/, 'a hash that is not hex')
  bad('[auth_users]\n"j" = { password_hash = "ab", salt = "ab" }', /role' must be set/, 'no role')
  bad('[auth_openidconnect]\nissuer_url = "http://id.example"\nclient_id = "c"\nclient_secret = "s"', /issuer_url' must be an https/, 'plain http without insecure')
  bad('[auth_openidconnect]\nissuer_url = "https://id.example"\nclient_id = "c"', /client_secret' must be a non-empty string/, 'no secret')
  bad('[auth_openidconnect]\nissuer_url = "https://id.example"\nclient_id = "c"\nclient_secret = "s"\nrole_claims = [{ match = "x" }]', /'subst' is needed/, 'a rule with neither claim nor subst')
  bad('[auth_openidconnect]\nissuer_url = "https://id.example"\nclient_id = "c"\nclient_secret = "s"\nrole_claims = [{ claim = "g", match = "(" }]', /match' is not a regular expression/, 'a bad regex')
  bad('auth_session_idle_seconds = 7200\nauth_session_max_seconds = 3600', /auth_session_idle_seconds' must be at most/, 'idle longer than the whole session')
})

t.test('[auth_openidconnect] with defaults for the claim rules', async (t) => {
  const c = load('auth_type = "openid-connect"\n[auth_openidconnect]\nissuer_url = "http://127.0.0.1:9/"\ninsecure = true\nclient_id = "c"\nclient_secret = "s"\nextra_login_scopes = ["email", "profile"]')
  const o = c.auth_openidconnect!
  t.same(o.id_claims, [{ claim: 'email' }])
  t.same(o.role_claims, [{ claim: 'role' }])
  t.same(o.extra_login_scopes, ['email', 'profile'])
  t.equal(o.prompt_for_login, false)
})
