/**
 * Identity and access in the composition root (design.md §9): the sessions, the access service that turns a bearer
 * secret into an actor, and the login provider of `auth_type`.
 */
import { AccessService } from './app/access/access-service.js'
import { AuditService } from './app/access/audit-service.js'
import { OidcService } from './app/access/oidc-service.js'
import { SessionService } from './app/access/session-service.js'
import type { Config } from './config.js'
import type { Logger } from './log.js'
import type { Stores } from './store/interfaces.js'
import type { Clock, Random } from './util/clock.js'

export interface AccessParts {
  access: AccessService
  sessions: SessionService
  audit: AuditService
  /** The OpenID Connect relying party, when `auth_type = "openid-connect"` (started and stopped with svcd). */
  oidc: OidcService | undefined
}

export function composeAccess(config: Config, stores: Stores, adminToken: string, clock: Clock, random: Random, log: Logger): AccessParts {
  const sessions = new SessionService({ store: stores.sessions, clock, random, idleSeconds: config.auth_session_idle_seconds, maxSeconds: config.auth_session_max_seconds })
  const access = new AccessService({ adminToken, roles: config.auth_roles, sessions })
  const audit = new AuditService({ store: stores.audit, clock })
  const o = config.auth_openidconnect
  const oidc = config.auth_type === 'openid-connect' && o
    ? new OidcService({ config: o, serviceUri: config.service_uri, logins: stores.logins, sessions, roles: config.auth_roles, audit, clock, random, log })
    : undefined
  return { access, sessions, audit, oidc }
}
