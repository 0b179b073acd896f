/** What the HTTP edge is given (design.md §6): the services the routes call, the config and the logger. */
import type { AlertService } from '../app/liveness/alert-service.js'
import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import type { CaService } from '../app/ca/ca-service.js'
import type { PlanService } from '../app/ca/plan-service.js'
import type { RoaIoService } from '../app/ca/roa-io-service.js'
import type { StructureImportService } from '../app/ca/structure-import.js'
import type { ChildService } from '../app/ca/child-service.js'
import type { ParentService } from '../app/ca/parent-service.js'
import type { RepoService } from '../app/ca/repo-service.js'
import type { RscService } from '../app/ca/rsc-service.js'
import type { MetricsService } from '../app/metrics/metrics-service.js'
import type { IdRollService } from '../app/ca/id-roll-service.js'
import type { PublicationService } from '../app/pubd/publication-service.js'
import type { StatusService } from '../app/status-service.js'
import type { ClusterJson } from '../api/status.js'
import type { AccessService } from '../app/access/access-service.js'
import type { AuditService } from '../app/access/audit-service.js'
import type { LoginService } from '../app/access/login-service.js'
import type { OidcService } from '../app/access/oidc-service.js'
import type { SessionService } from '../app/access/session-service.js'
import type { TokenService } from '../app/access/token-service.js'
import type { TaKeyRollService } from '../ta/ta-keyroll-service.js'
import type { SignerService } from '../app/signers/signer-service.js'
import type { Quarantine } from '../app/shared/quarantine.js'
import type { TestbedService } from '../ta/testbed-service.js'
import type { LivenessView } from '../app/liveness/ports.js'
import type { Clock } from '../util/clock.js'

/** The services the routes call (design.md §6): one call per request, no logic in the route. */
export interface HttpServices {
  cas: CaService
  /** Change plans and four-eyes (design.md §12). */
  plans: PlanService
  parents: ParentService
  children: ChildService
  repo: RepoService
  /** Signed checklists (RFC 9323). */
  rsc: RscService
  /** The publication service, or undefined when [repository] is not enabled. */
  publication: PublicationService | undefined
  status: StatusService
  testbed: TestbedService
  /** The instances on the database (app/shared/cluster.ts): one, or several on PostgreSQL. */
  cluster: { view(): ClusterJson | Promise<ClusterJson> }
  /** The embedded trust anchor's key roll (RFC 9691). */
  taKeyRoll: TaKeyRollService
  idRoll: IdRollService
  /** Prometheus metrics (GET /metrics) and the HTTP request counts. */
  metrics: MetricsService
  /** Who is calling: the admin token, login sessions, API tokens (design.md §9). */
  access: AccessService
  /** Login sessions: what a provider's login yields. */
  sessions: SessionService
  /** Who did what (logins, tokens, every command). */
  audit: AuditService
  /** Logging in and out: sessions started, failures limited, everything audited and counted. */
  logins: LoginService
  /** Scoped API tokens: created, listed and revoked by users and the admin token. */
  tokens: TokenService
  /** The OpenID Connect relying party, when `auth_type = "openid-connect"`. */
  oidc?: OidcService
  /** The configured signers (GET /api/v1/signers; issue 25). */
  signers: SignerService
  /** What was set aside as undecodable (GET/DELETE /api/v1/quarantine; issue 26). */
  quarantine: Quarantine
  /** ROA/ASPA export, import as plans, and rollback (design.md §12). */
  roaIo: RoaIoService
  /** Krill's CA structure import (POST /api/v1/bulk/cas/import). */
  structureImport: StructureImportService
  /** The relying-party view of each CA (design.md §11); absent with `[liveness] enabled = false`. */
  liveness?: LivenessView
  /** Alarms and their webhook deliveries (design.md §11). */
  alerts: AlertService
}

export interface HttpDeps {
  services: HttpServices
  config: Config
  log: Logger
  /** The time and timers of the edge (rate limits, body discards, outage logging, closing connections). */
  clock: Clock
  /** Which source a peer address counts as for the rate limits (resources/address-source.ts, from the root). */
  addressSource: (ip: string | undefined) => string
}
