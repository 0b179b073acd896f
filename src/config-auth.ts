/**
 * The identity-and-access part of the configuration (design.md §9), with Krill's names (krill-reference.md §1.2,
 * krill:doc/manual/source/config.rst): `auth_type`, `[auth_roles]`, `[auth_users]` and `[auth_openidconnect]`, and
 * svcd's session lifetimes. config.ts hands each of the three tables here; what is wrong names the key and the file.
 */
import { DEFAULT_ROLES, expandPermissions, type AuthType, type Role } from './api/access.js'

/** A claim rule of `id_claims` / `role_claims` (Krill's `TransformationRule`): a fixed value, or a claim matched. */
export interface ClaimRule {
  /** Where the claim is looked up (Krill's `source`); undefined: the id token, then the user info. */
  source?: 'id-token-standard-claim' | 'id-token-additional-claim' | 'user-info-standard-claim' | 'user-info-additional-claim'
  claim?: string
  /** A regular expression the value must match (Krill's `match`). */
  match?: string
  /** The replacement (with `$1`… from `match`); alone, a fixed value. */
  subst?: string
}

/** `[auth_openidconnect]` (Krill's option names). */
export interface OidcConfig {
  issuer_url: string
  client_id: string
  client_secret: string
  /** Scopes asked for besides `openid` (Krill: `extra_login_scopes`). */
  extra_login_scopes: string[]
  /** Extra query parameters of the authorization request (Krill: `extra_login_params`). */
  extra_login_params: Record<string, string>
  /** Ask the provider to show its login form even with a session of its own (`prompt=login`). */
  prompt_for_login: boolean
  /** Where the browser goes after logging out, when the provider has no end-session endpoint. */
  logout_url: string | undefined
  /** Allow an http:// issuer (tests on loopback only). */
  insecure: boolean
  id_claims: ClaimRule[]
  role_claims: ClaimRule[]
}

/** A `[auth_users]` entry (Krill's: `role`, or the older `attributes = { role = … }`; hex `password_hash` and `salt`). */
export interface ConfigUser {
  role: string
  password_hash: string
  salt: string
}

export interface AuthConfig {
  auth_type: AuthType
  /** Krill's default roles, with the configured ones over them. */
  auth_roles: Record<string, Role>
  auth_users: Record<string, ConfigUser>
  auth_openidconnect: OidcConfig | undefined
  /** A login session ends after this long without a request… */
  auth_session_idle_seconds: number
  /** …and this long after the login, whatever happens. */
  auth_session_max_seconds: number
}

export const AUTH_TYPES: readonly AuthType[] = ['admin-token', 'config-file', 'openid-connect']

export function authDefaults(): AuthConfig {
  return {
    auth_type: 'admin-token',
    auth_roles: { ...DEFAULT_ROLES },
    auth_users: {},
    auth_openidconnect: undefined,
    auth_session_idle_seconds: 30 * 60,
    auth_session_max_seconds: 12 * 3600,
  }
}

/** The tables of this part, by their TOML names. */
export const AUTH_TABLES = ['auth_roles', 'auth_users', 'auth_openidconnect'] as const

type Problem = (key: string, what: string) => Error

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string')

/** Merge one of AUTH_TABLES into `c`. */
export function applyAuthTable(c: AuthConfig, key: (typeof AUTH_TABLES)[number], value: unknown, bad: Problem): void {
  if (!isTable(value)) throw bad(key, `must be a table ([${key}])`)
  if (key === 'auth_roles') for (const [name, v] of Object.entries(value)) c.auth_roles[name] = role(name, v, bad)
  else if (key === 'auth_users') for (const [id, v] of Object.entries(value)) c.auth_users[id] = user(id, v, bad)
  else c.auth_openidconnect = oidc(value, bad)
}

function role(name: string, v: unknown, bad: Problem): Role {
  const key = `auth_roles.${name}`
  if (!isTable(v)) throw bad(key, 'must be a table: { permissions = [...], cas = [...] }')
  for (const k of Object.keys(v)) if (k !== 'permissions' && k !== 'cas') throw bad(`${key}.${k}`, 'is unknown (permissions, cas)')
  if (!isStringList(v.permissions)) throw bad(`${key}.permissions`, 'must be a list of permission names')
  let permissions
  try {
    permissions = expandPermissions(v.permissions)
  } catch (e) {
    throw bad(`${key}.permissions`, (e as Error).message)
  }
  if (v.cas !== undefined && !isStringList(v.cas)) throw bad(`${key}.cas`, 'must be a list of CA handles')
  return v.cas === undefined ? { name, permissions } : { name, permissions, cas: [...(v.cas as string[])] }
}

function user(id: string, v: unknown, bad: Problem): ConfigUser {
  const key = `auth_users."${id}"`
  if (!isTable(v)) throw bad(key, 'must be a table: { role = "...", password_hash = "...", salt = "..." }')
  for (const k of Object.keys(v)) if (!['role', 'attributes', 'password_hash', 'salt'].includes(k)) throw bad(`${key}.${k}`, 'is unknown (role, password_hash, salt)')
  const attributes = v.attributes
  const r = v.role ?? (isTable(attributes) ? attributes.role : undefined)
  if (typeof r !== 'string') throw bad(`${key}.role`, 'must be set to a role name')
  for (const k of ['password_hash', 'salt'] as const) {
    const h = v[k]
    if (typeof h !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(h)) throw bad(`${key}.${k}`, 'must be hex, as `svcc config user` prints it')
  }
  return { role: r, password_hash: (v.password_hash as string).toLowerCase(), salt: (v.salt as string).toLowerCase() }
}

const OIDC_KEYS = ['issuer_url', 'client_id', 'client_secret', 'extra_login_scopes', 'extra_login_params', 'prompt_for_login', 'logout_url', 'insecure', 'id_claims', 'role_claims']
const SOURCES = ['id-token-standard-claim', 'id-token-additional-claim', 'user-info-standard-claim', 'user-info-additional-claim']

function oidc(v: Record<string, unknown>, bad: Problem): OidcConfig {
  const key = 'auth_openidconnect'
  for (const k of Object.keys(v)) if (!OIDC_KEYS.includes(k)) throw bad(`${key}.${k}`, `is unknown (${OIDC_KEYS.join(', ')})`)
  const str = (k: string, required: boolean): string | undefined => {
    const s = v[k]
    if (s === undefined && !required) return undefined
    if (typeof s !== 'string' || s === '') throw bad(`${key}.${k}`, 'must be a non-empty string')
    return s
  }
  const bool = (k: string): boolean => {
    if (v[k] === undefined) return false
    if (typeof v[k] !== 'boolean') throw bad(`${key}.${k}`, 'must be true or false')
    return v[k] as boolean
  }
  if (v.extra_login_scopes !== undefined && !isStringList(v.extra_login_scopes)) throw bad(`${key}.extra_login_scopes`, 'must be a list of strings')
  const params = v.extra_login_params ?? {}
  if (!isTable(params) || !Object.values(params).every((p) => typeof p === 'string')) throw bad(`${key}.extra_login_params`, 'must be a table of strings')
  return {
    issuer_url: str('issuer_url', true)!,
    client_id: str('client_id', true)!,
    client_secret: str('client_secret', true)!,
    extra_login_scopes: [...((v.extra_login_scopes as string[] | undefined) ?? [])],
    extra_login_params: { ...(params as Record<string, string>) },
    prompt_for_login: bool('prompt_for_login'),
    logout_url: str('logout_url', false),
    insecure: bool('insecure'),
    id_claims: claimRules(`${key}.id_claims`, v.id_claims, [{ claim: 'email' }], bad),
    role_claims: claimRules(`${key}.role_claims`, v.role_claims, [{ claim: 'role' }], bad),
  }
}

function claimRules(key: string, v: unknown, fallback: ClaimRule[], bad: Problem): ClaimRule[] {
  if (v === undefined) return fallback
  if (!Array.isArray(v)) throw bad(key, 'must be a list of rules: [{ claim = "...", match = "...", subst = "..." }]')
  return v.map((r, i) => {
    const k = `${key}[${i}]`
    if (!isTable(r)) throw bad(k, 'must be a table')
    for (const f of Object.keys(r)) if (!['source', 'claim', 'match', 'subst'].includes(f)) throw bad(`${k}.${f}`, 'is unknown (source, claim, match, subst)')
    for (const f of ['source', 'claim', 'match', 'subst']) if (r[f] !== undefined && typeof r[f] !== 'string') throw bad(`${k}.${f}`, 'must be a string')
    const rule = r as ClaimRule
    if (rule.source !== undefined && !SOURCES.includes(rule.source)) throw bad(`${k}.source`, `must be one of ${SOURCES.join(', ')}`)
    if (rule.claim === undefined && rule.subst === undefined) throw bad(k, "'subst' is needed when 'claim' is missing")
    if (rule.claim === undefined && rule.match !== undefined) throw bad(k, "'claim' is needed with 'match'")
    if (rule.match !== undefined) {
      try {
        new RegExp(rule.match, 'u')
      } catch (e) {
        throw bad(`${k}.match`, `is not a regular expression: ${(e as Error).message}`)
      }
    }
    return { ...rule }
  })
}

/** Cross-field checks: the provider has what it needs, and every user's role exists. */
export function verifyAuth(c: AuthConfig, fail: (key: string, what: string) => never): void {
  if (c.auth_type === 'config-file' && Object.keys(c.auth_users).length === 0) fail('auth_type', 'is "config-file", so [auth_users] must hold at least one user (svcc config user prints an entry)')
  if (c.auth_type === 'openid-connect' && !c.auth_openidconnect) fail('auth_type', 'is "openid-connect", so [auth_openidconnect] must be set')
  for (const [id, u] of Object.entries(c.auth_users)) {
    if (!Object.hasOwn(c.auth_roles, u.role)) fail(`auth_users."${id}".role`, `names the role '${u.role}', which is not defined (${Object.keys(c.auth_roles).join(', ')})`)
  }
  if (c.auth_session_idle_seconds > c.auth_session_max_seconds) fail('auth_session_idle_seconds', 'must be at most auth_session_max_seconds')
  const o = c.auth_openidconnect
  if (o && !o.insecure && !/^https:\/\//i.test(o.issuer_url)) fail('auth_openidconnect.issuer_url', 'must be an https:// URL (insecure = true allows http:// for tests)')
}
