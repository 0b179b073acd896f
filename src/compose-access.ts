/**
 * Identity and access in the composition root (design.md §9): the sessions, the access service that turns a bearer
 * secret into an actor (the admin token, sessions, scoped API tokens), the audit trail, and logging in and out (the
 * users of [auth_users] when `auth_type` is "config-file", the limits on failed logins). Which provider reads a
 * request's credentials is chosen in http/app.ts.
 */
import { AccessService } from './app/access/access-service.js'
import { AuditService } from './app/access/audit-service.js'
import { ConfigUsers } from './app/access/config-users.js'
import { LoginLimiter } from './app/access/login-limiter.js'
import { LoginService, type LoginOutcome } from './app/access/login-service.js'
import { OidcService } from './app/access/oidc-service.js'
import { SessionService } from './app/access/session-service.js'
import { TokenService } from './app/access/token-service.js'
import type { Config } from './config.js'
import { addressSource } from './resources/address-source.js'
import type { Logger } from './log.js'
import type { Stores } from './store/interfaces.js'
import type { Clock, Random } from './util/clock.js'

export interface AccessParts {
  access: AccessService
  sessions: SessionService
  audit: AuditService
  logins: LoginService
  tokens: TokenService
  /** The OpenID Connect relying party, when `auth_type = "openid-connect"` (started and stopped with svcd). */
  oidc: OidcService | undefined
}

export function composeAccess(config: Config, stores: Stores, adminToken: string, clock: Clock, random: Random, log: Logger, observeLogin?: (provider: string, outcome: LoginOutcome) => void): AccessParts {
  const sessions = new SessionService({ store: stores.sessions, clock, random, idleSeconds: config.auth_session_idle_seconds, maxSeconds: config.auth_session_max_seconds })
  const audit = new AuditService({ store: stores.audit, clock })
  const configUserRole = (id: string) => (Object.hasOwn(config.auth_users, id) ? config.auth_users[id]!.role : undefined)
  const tokens = new TokenService({ store: stores.tokens, clock, random, audit, roles: config.auth_roles, configUserRole })
  const access = new AccessService({ adminToken, roles: config.auth_roles, sessions, apiTokens: (secret) => tokens.authenticate(secret) })
  const users = config.auth_type === 'config-file' ? new ConfigUsers({ users: config.auth_users, roles: config.auth_roles }) : undefined
  const limiter = new LoginLimiter({ clock })
  const logins = new LoginService({ sessions, access, audit, limiter, users, sourceOf: addressSource, ...(observeLogin ? { observe: observeLogin } : {}) })
  const o = config.auth_openidconnect
  const oidc = config.auth_type === 'openid-connect' && o
    ? new OidcService({ config: o, serviceUri: config.service_uri, logins: stores.logins, sessions, roles: config.auth_roles, audit, clock, random, log, ...(observeLogin ? { observe: observeLogin } : {}) })
    : undefined
  return { access, sessions, audit, logins, tokens, oidc }
}
