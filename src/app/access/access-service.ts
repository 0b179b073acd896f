/**
 * Who is calling (design.md §9), decided once for every request in front of routing: a bearer secret is the admin
 * token, a login session (app/access/session-service.ts) or a scoped API token, and becomes an Actor with a role.
 * The admin token is compared in constant time (both sides hashed to fixed-length digests first, so neither its
 * content nor its length leaks by timing) and always has Krill's `admin` role, whatever the configuration calls
 * `admin`. A session's role is looked up by name in the configured roles on every use, so a changed role holds at
 * once; a session whose role is no longer defined is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { DEFAULT_ROLES, type Actor, type Role } from '../../api/access.js'
import { actingAs, type ActingAs } from '../shared/acting.js'
import type { Session, SessionService } from './session-service.js'

export interface AccessDeps {
  adminToken: string
  /** The configured roles by name (Krill's defaults with [auth_roles] over them). */
  roles: Readonly<Record<string, Role>>
  sessions: SessionService
  /** Scoped API tokens: the actor of a token's secret, or undefined when it is not a live token. */
  apiTokens?: (secret: string) => Actor | undefined
}

/** The actor of the admin token. */
export const ADMIN_TOKEN_ACTOR: Actor = { id: 'admin-token', provider: 'admin-token', role: DEFAULT_ROLES.admin }

export class AccessService {
  private readonly adminDigest: Buffer

  constructor(private readonly d: AccessDeps) {
    this.adminDigest = digest(d.adminToken)
  }

  /** The actor of a bearer secret, or undefined when it is none of the three (or has ended). */
  authenticate(secret: string): Actor | undefined {
    if (timingSafeEqual(digest(secret), this.adminDigest)) return ADMIN_TOKEN_ACTOR
    const s = this.d.sessions.resolve(secret)
    if (s) return this.sessionActor(s)
    return this.d.apiTokens?.(secret)
  }

  /** The role of a name, or undefined. */
  role(name: string): Role | undefined {
    return Object.hasOwn(this.d.roles, name) ? this.d.roles[name] : undefined
  }

  /** The actor of a live session, or undefined when its role is no longer defined. */
  sessionActor(s: Session): Actor | undefined {
    const role = this.role(s.role)
    return role && { id: s.userId, provider: s.provider as Actor['provider'], role }
  }

  /** Run `fn`, and all it sets off, on behalf of `actor` (history and audit name it; app/shared/acting.ts). */
  runAs<T>(actor: Actor, source: string | undefined, fn: () => T): T {
    const as: ActingAs = { id: actor.id, provider: actor.provider, ...(actor.token === undefined ? {} : { token: actor.token }), ...(source === undefined ? {} : { source }) }
    return actingAs(as, fn)
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest()
}
