/**
 * Identity and access in the composition root (design.md §9): the sessions, the access service that turns a bearer
 * secret into an actor, the scoped API tokens, and the login provider of `auth_type`.
 */
import { AccessService } from './app/access/access-service.js'
import { AuditService } from './app/access/audit-service.js'
import { SessionService } from './app/access/session-service.js'
import { TokenService } from './app/access/token-service.js'
import type { Config } from './config.js'
import type { Stores } from './store/interfaces.js'
import type { Clock, Random } from './util/clock.js'

export interface AccessParts {
  access: AccessService
  sessions: SessionService
  audit: AuditService
  tokens: TokenService
}

export function composeAccess(config: Config, stores: Stores, adminToken: string, clock: Clock, random: Random): AccessParts {
  const sessions = new SessionService({ store: stores.sessions, clock, random, idleSeconds: config.auth_session_idle_seconds, maxSeconds: config.auth_session_max_seconds })
  const audit = new AuditService({ store: stores.audit, clock })
  const configUserRole = (id: string) => (Object.hasOwn(config.auth_users, id) ? config.auth_users[id]!.role : undefined)
  const tokens = new TokenService({ store: stores.tokens, clock, random, audit, roles: config.auth_roles, configUserRole })
  const access = new AccessService({ adminToken, roles: config.auth_roles, sessions, apiTokens: (secret) => tokens.authenticate(secret) })
  return { access, sessions, audit, tokens }
}
