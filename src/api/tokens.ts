/**
 * Scoped API tokens on the wire (beyond Krill; design.md §9): GET /api/v1/tokens lists `TokenListJson`, POST takes an
 * `AddTokenJson` and answers a `NewTokenJson` (the only answer that ever holds the secret), DELETE revokes. Pure:
 * the shape checks of a request body and the JSON of a stored token; the rules (who may create what) are the token
 * service's (app/access/token-service.ts).
 */
import { LOCAL_HANDLE } from '../util/handle.js'

/** One token as listed: never its secret or the secret's hash. Times are ISO 8601. */
export interface TokenJson {
  /** The public part of the secret: it names the token (DELETE /api/v1/tokens/{id}). */
  id: string
  name: string
  /** Who created it, and how they logged in (`admin-token` for the admin token). */
  owner: string
  owner_provider: string
  /** The configured role it was given, or `custom` for a list of permissions. */
  role: string
  permissions: string[]
  /** The CAs it is limited to, or null for every CA. */
  cas: string[] | null
  created: string
  expires: string | null
  last_used: string | null
  revoked: string | null
}

export interface TokenListJson {
  tokens: TokenJson[]
}

/** The answer to creating a token: the token, and its secret, shown this once. */
export interface NewTokenJson extends TokenJson {
  token: string
}

/** POST /api/v1/tokens: a name, either a configured role or a list of permissions, optional CAs and expiry. */
export interface AddTokenJson {
  name: string
  role?: string
  permissions?: string[]
  cas?: string[]
  expires?: string
}

/** A token's name: 1 to 64 of A-Z, a-z, 0-9, `.`, `_`, `-`. */
export const TOKEN_NAME = /^[A-Za-z0-9._-]{1,64}$/
/** The public id of a token as it appears in paths: 16 base64url characters. */
export const TOKEN_ID = /^[A-Za-z0-9_-]{16}$/
/** The role name of a token given a list of permissions rather than a configured role. */
export const CUSTOM_ROLE = 'custom'

const KEYS = ['name', 'role', 'permissions', 'cas', 'expires']
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/

const isStringList = (v: unknown, max: number): v is string[] => Array.isArray(v) && v.length > 0 && v.length <= max && v.every((x) => typeof x === 'string')

/** What is wrong with a POST /api/v1/tokens body, or undefined when its shape is right (readJson's guard). */
export function addTokenProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'expected a JSON object {"name", "role" or "permissions", "cas", "expires"}'
  const o = v as Record<string, unknown>
  const extra = Object.keys(o).find((k) => !KEYS.includes(k))
  if (extra !== undefined) return `unknown field '${extra.slice(0, 40)}' (known: ${KEYS.join(', ')})`
  if (typeof o.name !== 'string' || !TOKEN_NAME.test(o.name)) return 'name: 1 to 64 characters from A-Z, a-z, 0-9, ".", "_" and "-"'
  if ((o.role === undefined) === (o.permissions === undefined)) return 'give either "role" (a configured role) or "permissions" (a list), not both or neither'
  if (o.role !== undefined && (typeof o.role !== 'string' || o.role.length === 0 || o.role.length > 100)) return 'role: the name of a configured role'
  if (o.permissions !== undefined && !isStringList(o.permissions, 100)) return 'permissions: a non-empty list of permission names'
  if (o.cas !== undefined) {
    if (!isStringList(o.cas, 1000)) return 'cas: a non-empty list of CA handles'
    const bad = o.cas.find((c) => !LOCAL_HANDLE.test(c))
    if (bad !== undefined) return `cas: '${bad.slice(0, 80)}' is not a CA handle`
  }
  if (o.expires !== undefined && (typeof o.expires !== 'string' || !ISO_TIME.test(o.expires) || !Number.isFinite(Date.parse(o.expires)))) return 'expires: an ISO 8601 time such as 2027-01-01T00:00:00Z'
  return undefined
}

/** What tokenJson reads of a token (the store's StoredToken has these fields and the hash of the secret). */
export interface TokenFields {
  id: string
  name: string
  owner: string
  ownerProvider: string
  role: { name: string; permissions: readonly string[]; cas: readonly string[] | null }
  created: number
  expires: number | undefined
  lastUsed: number | undefined
  revoked: number | undefined
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString())

/** The JSON of a stored token (no secret: the store has none, and its hash is left out). */
export function tokenJson(t: TokenFields): TokenJson {
  return {
    id: t.id,
    name: t.name,
    owner: t.owner,
    owner_provider: t.ownerProvider,
    role: t.role.name,
    permissions: [...t.role.permissions],
    cas: t.role.cas === null ? null : [...t.role.cas],
    created: iso(t.created)!,
    expires: iso(t.expires),
    last_used: iso(t.lastUsed),
    revoked: iso(t.revoked),
  }
}
