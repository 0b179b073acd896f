/**
 * The storage interfaces of identity and access (design.md §9): login sessions, OpenID Connect logins under way,
 * scoped API tokens and the audit trail.
 * Re-exported by store/interfaces.ts with the others.
 */

/** A login session as stored: under the SHA-256 of its secret, never the secret. Times in ms since the epoch. */
export interface StoredSession {
  id: string
  userId: string
  provider: string
  role: string
  created: number
  lastSeen: number
  expires: number
  revoked: number | undefined
  /** Provider data kept for the logout (OpenID Connect: the id token hint, the end-session endpoint). */
  data: Record<string, string>
}

export interface SessionStore {
  create(s: StoredSession): void
  get(id: string): StoredSession | undefined
  /** Record a use (the idle time counts from it). */
  touch(id: string, time: number): void
  /** Mark one session revoked at `time`; false when there is none or it was already revoked. */
  revoke(id: string, time: number): boolean
  /** Revoke every live session of a user of a provider; how many. */
  revokeUser(userId: string, provider: string, time: number): number
  /** Forget sessions that ended (expired or revoked) before `time`; how many. */
  purge(time: number): number
}

/**
 * An OpenID Connect login under way (the authorization request sent, the callback not yet back), stored under the
 * SHA-256 of its state; or (`data.kind`) another one-time step of a login kept the same way. Times in ms since the epoch.
 */
export interface StoredLogin {
  id: string
  /** The PKCE code verifier (RFC 7636 §4.1). */
  verifier: string
  nonce: string
  created: number
  data: Record<string, string>
}

export interface LoginStore {
  create(l: StoredLogin): void
  /** Read and delete one login in one step (single use, on every instance at once); undefined when there is none. */
  take(id: string): StoredLogin | undefined
  /** Forget logins created before `time`; how many. */
  purge(time: number): number
}

/** A token's role as stored (api_tokens.role, JSON): a name for display, the permissions, the CAs or null for all. */
export type StoredTokenRole = { name: string; permissions: string[]; cas: string[] | null }

/** A scoped API token as stored: the hash of its secret, never the secret. Times in ms since the epoch. */
export interface StoredToken {
  /** The public part of the secret (`svct_<id>_…`): it names the row. */
  id: string
  name: string
  owner: string
  ownerProvider: string
  role: StoredTokenRole
  /** Hex SHA-256 of the whole secret. */
  secretHash: string
  created: number
  expires: number | undefined
  lastUsed: number | undefined
  revoked: number | undefined
}

export interface TokenStore {
  /**
   * Add a token; false (nothing stored) when its owner has a live token of that name. A revoked or expired (at `now`)
   * token of the same owner and name is forgotten first, so the name can be used again.
   */
  create(t: StoredToken, now: number): boolean
  get(id: string): StoredToken | undefined
  /** The hex hash of a token's secret, or '': one single-row query either way (an unknown id costs what a known one does). */
  secretHash(id: string): string
  /** Every token, or an owner's, oldest first. */
  list(owner?: { owner: string; provider: string }): StoredToken[]
  /** Record a use (moves last_used forward only). */
  touch(id: string, time: number): void
  /** Mark a token revoked at `time`; false when there is none or it was already revoked. */
  revoke(id: string, time: number): boolean
}

/** One audit record (who did what; never a secret). Times in ms since the epoch. */
export interface AuditRecord {
  seq: number
  time: number
  actor: string
  provider: string
  /** With an API token: its name. */
  token: string | undefined
  /** What was done: a CA command's kind (`route-authorizations-update`…), or `login`, `login-failed`, `logout`, `token-add`, … */
  kind: string
  /** The CA it was about, if any. */
  ca: string | undefined
  success: boolean
  /** The peer address of the request. */
  source: string | undefined
  details: Record<string, unknown>
}

export interface AuditQuery {
  actor?: string
  ca?: string
  kind?: string
  /** Inclusive lower and exclusive upper bound on `time`. */
  since?: number
  until?: number
  offset: number
  limit: number
  order: 'asc' | 'desc'
  /** Only what a caller may see (GET /api/v1/audit, api/audit.ts auditScope); absent: everything. */
  visible?: AuditVisibility
}

/**
 * The records a caller may see: about these CAs (`all`: any), without a CA (`all`, only the publication server's
 * `publishers`, or `none`), and, whatever those say, its own (same actor, provider and token).
 */
export interface AuditVisibility {
  cas: readonly string[] | 'all'
  withoutCa: 'all' | 'publishers' | 'none'
  own?: { actor: string; provider: string; token: string | undefined }
}

export interface AuditStore {
  append(r: Omit<AuditRecord, 'seq'>): number
  list(q: AuditQuery): { total: number; records: AuditRecord[] }
}

