/**
 * Scoped API tokens (design.md §9; beyond Krill): a user or the admin token creates a token with a name, a role no
 * wider than their own, an optional list of CAs and an expiry; automation sends its secret as the bearer token.
 *
 * The secret is `svct_<id>_<secret>`: `id` (12 random bytes, 16 base64url characters) is public and names the row;
 * `secret` is 32 random bytes. Only the SHA-256 of the whole secret is stored, and it is compared in constant time
 * after the lookup by id; an unknown id is compared against a fixed hash, so an unknown id and a wrong secret cost
 * the same and are answered the same (no actor: 401). The store is read on every request (no cache): a revocation
 * holds at once on every instance on the database.
 *
 * Decisions:
 * - Only a logged-in user or the admin token manages tokens: an API token can neither create, list nor revoke
 *   tokens (403), so a leaked token cannot mint others or hide itself.
 * - Every token expires: at most TOKEN_MAX_DAYS after its creation, TOKEN_DEFAULT_DAYS when no expiry is given.
 * - A token's role: a configured role (by name) or a list of permissions; limited to the CAs given, else to the
 *   named role's CAs, else to the creator's CAs (a creator limited to CAs makes tokens limited to them). It must be
 *   within the creator's role (api/access.ts roleWithin), or the creation is refused (403) naming what is wider.
 * - The owner of a token of a config-file user is bounded by the user's role as configured NOW (the intersection),
 *   so narrowing a user narrows their tokens, and removing the user from [auth_users] stops them. Tokens of the admin
 *   token and of OpenID Connect users keep the role they were given (svcd cannot ask the provider between logins).
 * - The admin token, and any user whose role holds every permission on every CA, sees and revokes every token;
 *   others their own. Someone else's token is unknown to them (404 api-token-unknown), as is a token that never was.
 * - Revoking a revoked token answers 200 and changes nothing (idempotent); only the first revocation is audited.
 * - A token's name is unique per owner among live tokens; a revoked or expired token's name can be used again.
 * - `last_used` is written at most once a minute per token.
 */
import { timingSafeEqual } from 'node:crypto'
import { PERMISSIONS, expandPermissions, holdsEverything, widerThan, type Actor, type Permission, type Role } from '../../api/access.js'
import { CUSTOM_ROLE, TOKEN_ID, tokenJson, type NewTokenJson, type TokenJson } from '../../api/tokens.js'
import { sha256Hex } from '../../crypto/digest.js'
import { AppError } from '../../errors.js'
import type { StoredToken, TokenStore } from '../../store/interfaces.js'
import type { Clock, Random } from '../../util/clock.js'
import type { AuditService } from './audit-service.js'

/** The prefix of every API token's secret: it tells a token from a session or the admin token at a glance. */
export const TOKEN_PREFIX = 'svct_'
export const TOKEN_MAX_DAYS = 400
export const TOKEN_DEFAULT_DAYS = 90
const DAY_MS = 86_400_000
/** A use is written back at most this often. */
const TOUCH_MS = 60_000
const SECRET = /^svct_([A-Za-z0-9_-]{16})_[A-Za-z0-9_-]{43}$/
/** Compared against when the id is unknown, so that an unknown id costs what a wrong secret does. */
const NO_HASH = '00'.repeat(32)

export interface TokenDeps {
  store: TokenStore
  clock: Clock
  random: Random
  audit: AuditService
  /** The configured roles by name (Krill's defaults with [auth_roles] over them). */
  roles: Readonly<Record<string, Role>>
  /** The role name a config-file user has in the configuration now, or undefined when there is no such user. */
  configUserRole: (id: string) => string | undefined
}

/** What a creator asks for (POST /api/v1/tokens, after api/tokens.ts addTokenProblem). */
export interface TokenRequest {
  name: string
  role?: string
  permissions?: readonly string[]
  cas?: readonly string[]
  expires?: string
}

export class TokenService {
  constructor(private readonly d: TokenDeps) {}

  /** Create a token for `actor`; the answer holds the secret, this once. */
  create(actor: Actor, req: TokenRequest): NewTokenJson {
    refuseTokens(actor)
    const role = this.requestedRole(actor, req)
    const now = this.d.clock.now()
    const expires = expiry(req.expires, now)
    const id = Buffer.from(this.d.random.bytes(12)).toString('base64url')
    const secret = `${TOKEN_PREFIX}${id}_${Buffer.from(this.d.random.bytes(32)).toString('base64url')}`
    const stored: StoredToken = {
      id, name: req.name, owner: actor.id, ownerProvider: actor.provider, role, secretHash: sha256Hex(Buffer.from(secret, 'utf8')), created: now, expires, lastUsed: undefined, revoked: undefined,
    }
    if (!this.d.store.create(stored, now)) throw new AppError('api-token-duplicate', { owner: actor.id, name: req.name })
    const json = tokenJson(stored)
    this.d.audit.record({ kind: 'token-add', details: auditDetails(json) })
    return { ...json, token: secret }
  }

  /** The tokens `actor` may see: every token for an administrator, else their own. Never a secret or its hash. */
  list(actor: Actor): TokenJson[] {
    refuseTokens(actor)
    return this.d.store.list(seesAll(actor) ? undefined : { owner: actor.id, provider: actor.provider }).map(tokenJson)
  }

  /** Revoke a token (its owner or an administrator); holds at once on every instance. */
  revoke(actor: Actor, id: string): void {
    refuseTokens(actor)
    if (!TOKEN_ID.test(id)) throw new AppError('api-token-unknown', { id: 'not a token id' }) // never echo what may be a secret
    const t = this.d.store.get(id)
    if (!t || !(seesAll(actor) || (t.owner === actor.id && t.ownerProvider === actor.provider))) throw new AppError('api-token-unknown', { id })
    if (t.revoked !== undefined) return
    const now = this.d.clock.now()
    if (this.d.store.revoke(id, now)) this.d.audit.record({ kind: 'token-revoke', details: auditDetails(tokenJson({ ...t, revoked: now })) })
  }

  /** The actor of a live token's secret, or undefined (not a token, unknown, wrong secret, revoked, expired, owner gone). */
  authenticate(secret: string): Actor | undefined {
    const m = SECRET.exec(secret)
    if (!m) return undefined
    // The same work for an unknown id as for a wrong secret: one single-row query, one hash, one comparison.
    const stored = this.d.store.secretHash(m[1]!)
    const expected = Buffer.from(stored === '' ? NO_HASH : stored, 'hex')
    const given = Buffer.from(sha256Hex(Buffer.from(secret, 'utf8')), 'hex')
    const same = expected.length === given.length && timingSafeEqual(given, expected)
    if (!same || stored === '') return undefined
    const t = this.d.store.get(m[1]!)
    const now = this.d.clock.now()
    if (!t || t.revoked !== undefined || (t.expires !== undefined && now >= t.expires)) return undefined
    const role = this.liveRole(t)
    if (!role) return undefined
    if (t.lastUsed === undefined || now - t.lastUsed >= TOUCH_MS) this.d.store.touch(t.id, now)
    return { id: t.owner, provider: 'api-token', role, token: t.name }
  }

  /** The role a token holds now: as given, bounded by a config-file owner's current role; undefined when that user is gone. */
  private liveRole(t: StoredToken): Role | undefined {
    const given: Role = { name: `token:${t.name}`, permissions: new Set(PERMISSIONS.filter((p) => t.role.permissions.includes(p))), ...(t.role.cas === null ? {} : { cas: t.role.cas }) }
    if (t.ownerProvider !== 'config-file') return given
    const name = this.d.configUserRole(t.owner)
    const owner = name === undefined || !Object.hasOwn(this.d.roles, name) ? undefined : this.d.roles[name]!
    return owner && intersect(given, owner)
  }

  /** The role a request asks for, checked: a configured role or permissions, the CAs, within the creator's role. */
  private requestedRole(actor: Actor, req: TokenRequest): StoredToken['role'] {
    let named: Role | undefined
    let permissions: Set<Permission>
    if (req.role !== undefined) {
      named = Object.hasOwn(this.d.roles, req.role) ? this.d.roles[req.role] : undefined
      if (!named) throw new AppError('api-invalid-body', { reason: `role: '${req.role.slice(0, 80)}' is not a configured role (${Object.keys(this.d.roles).join(', ')})` })
      permissions = new Set(named.permissions)
    } else {
      try {
        permissions = expandPermissions(req.permissions ?? [])
      } catch (e) {
        throw new AppError('api-invalid-body', { reason: `permissions: ${(e as Error).message}` })
      }
    }
    const askedCas = req.cas === undefined ? undefined : [...new Set(req.cas)]
    const outside = askedCas && named?.cas && askedCas.find((c) => !named!.cas!.includes(c))
    if (outside) throw new AppError('api-invalid-body', { reason: `cas: role '${named!.name}' is limited to ${named!.cas!.join(', ')}, not '${outside}'` })
    const cas = askedCas ?? named?.cas ?? actor.role.cas
    const wider = widerThan({ name: CUSTOM_ROLE, permissions, ...(cas === undefined ? {} : { cas }) }, actor.role)
    if (wider && 'permission' in wider) throw new AppError('api-insufficient-rights', { permission: wider.permission, reason: `the token would hold '${wider.permission}', which your role does not` })
    if (wider) throw new AppError('api-insufficient-rights', { ca: wider.ca, reason: `the token would reach CA '${wider.ca}', which your role does not` })
    return { name: named?.name ?? CUSTOM_ROLE, permissions: PERMISSIONS.filter((p) => permissions.has(p)), cas: cas === undefined ? null : [...cas] }
  }
}

/** An API token manages no tokens (neither creates, lists nor revokes): log in, or use the admin token. */
function refuseTokens(actor: Actor): void {
  if (actor.provider === 'api-token') throw new AppError('api-insufficient-rights', { reason: 'an API token cannot manage API tokens: log in, or use the admin token' })
}

/** The admin token, or a role with every permission on every CA. */
function seesAll(actor: Actor): boolean {
  return actor.provider === 'admin-token' || holdsEverything(actor.role)
}

function expiry(asked: string | undefined, now: number): number {
  if (asked === undefined) return now + TOKEN_DEFAULT_DAYS * DAY_MS
  const t = Date.parse(asked)
  if (!Number.isFinite(t) || t <= now) throw new AppError('api-invalid-body', { reason: `expires: '${asked.slice(0, 40)}' is not in the future` })
  if (t > now + TOKEN_MAX_DAYS * DAY_MS) throw new AppError('api-invalid-body', { reason: `expires: a token lives at most ${TOKEN_MAX_DAYS} days` })
  return t
}

/** Both roles' permissions, on the CAs both reach. */
function intersect(a: Role, b: Role): Role {
  const cas = a.cas === undefined ? b.cas : b.cas === undefined ? a.cas : a.cas.filter((c) => b.cas!.includes(c))
  return { name: a.name, permissions: new Set([...a.permissions].filter((p) => b.permissions.has(p))), ...(cas === undefined ? {} : { cas }) }
}

/** What the audit trail keeps of a token: never the secret or its hash. */
function auditDetails(j: TokenJson): Record<string, unknown> {
  return { id: j.id, name: j.name, owner: j.owner, owner_provider: j.owner_provider, role: j.role, permissions: j.permissions, cas: j.cas, expires: j.expires }
}
