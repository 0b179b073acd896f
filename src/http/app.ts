/**
 * The Koa application of svcd: middleware order, routers, and the HTTPS (or plain HTTP) listener. Thin: each route
 * checks its input, makes one service call and responds (style.md §10 rule 4).
 */
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import type { Logger } from '../log.js'
import type { Clock } from '../util/clock.js'
import type { ClockedContext } from './body.js'
import type { HttpDeps } from './deps.js'
import { defaultDeny, PUBLIC_METRICS } from './auth.js'
import { AdminTokenProvider, type AuthProvider } from './auth-provider.js'
import { ConfigFileProvider } from './config-file-provider.js'
import { OidcProvider } from './oidc-provider.js'
import { rateLimit } from './rate-limit.js'
import { authorize } from './route-permissions.js'
import { errorMiddleware } from './errors.js'
import { requireCanonicalPath } from './path.js'
import { auditRouter } from './routes/audit.js'
import { authRouter } from './routes/auth.js'
import { casRouter } from './routes/cas.js'
import { metricsRouter, requestMetrics } from './routes/metrics.js'
import { pubdRouter, rrdpMiddleware } from './routes/pubd.js'
import { rfc6492Router } from './routes/rfc6492.js'
import { statusRouter } from './routes/status.js'
import { taRouter } from './routes/ta.js'
import { idRollRouter } from './routes/id-roll.js'
import { testbedRouter } from './routes/testbed.js'
import { tokensRouter } from './routes/tokens.js'
import { plansRouter } from './routes/plans.js'
import { roaIoRouter } from './routes/roa-io.js'
import { bulkImportRouter } from './routes/bulk-import.js'
import { childTransferRouter } from './routes/child-transfer.js'
import { signersRouter } from './routes/signers.js'
import { alertsRouter } from './routes/alerts.js'
import { healthRouter } from './routes/health.js'
import { quarantineRouter } from './routes/quarantine.js'
import { uiMiddleware } from './routes/ui.js'

export type { HttpDeps, HttpServices } from './deps.js'

/** Build the Koa app with all routers mounted. */
export function createApp(deps: HttpDeps): Koa {
  const app = new Koa({ proxy: false })
  app.silent = true // errors are logged by errorMiddleware, never by Koa's default printer
  ;(app.context as Partial<ClockedContext>).clock = deps.clock // for the body readers (http/body.ts)
  app.use(noSniff())
  app.use(requestLog(deps.log))
  app.use(requestMetrics(deps))
  app.use(errorMiddleware(deps.log, deps.clock))
  // One path for everything after this point (http/path.ts), then default deny (http/auth.ts), then routing.
  app.use(requireCanonicalPath())
  const access = deps.services.access
  const auth = authProvider(deps)
  app.use(defaultDeny(access, deps.config.metrics_public ? [PUBLIC_METRICS] : []))
  app.use(authorize())
  app.use(rrdpMiddleware(deps))
  app.use(uiMiddleware())
  for (const router of [statusRouter(deps), authRouter(auth), casRouter(deps), pubdRouter(deps), rfc6492Router(deps), taRouter(deps), testbedRouter(deps), metricsRouter(deps), auditRouter(deps), tokensRouter(deps), plansRouter(deps), roaIoRouter(deps), bulkImportRouter(deps), childTransferRouter(deps), idRollRouter(deps), signersRouter(deps), healthRouter(deps), alertsRouter(deps), quarantineRouter(deps)]) {
    app.use(router.routes())
    app.use(router.allowedMethods({ throw: true }))
  }
  return app
}

/** New OpenID Connect logins a source may start a minute (GET /auth/login; ten times as many for all together). */
const LOGINS_PER_MINUTE = 60

/** The login provider of `auth_type` (Krill's): who reads the credentials of POST /auth/login. */
function authProvider(deps: HttpDeps): AuthProvider {
  const admin = new AdminTokenProvider(deps.services.logins)
  switch (deps.config.auth_type) {
    case 'config-file':
      return new ConfigFileProvider(deps.services.logins)
    case 'openid-connect':
      if (!deps.services.oidc) throw new Error('auth_type is openid-connect, but no OpenID Connect service was built')
      return new OidcProvider(deps.services.oidc, admin, rateLimit({ perMinute: LOGINS_PER_MINUTE, totalPerMinute: 10 * LOGINS_PER_MINUTE, clock: deps.clock, source: deps.addressSource }))
    default:
      return admin
  }
}

/**
 * `X-Content-Type-Options: nosniff` on every answer (issue 22 defect 11): API JSON, errors and 404s, RRDP XML, the
 * TAL and certificates, the console; so that no browser runs a body as another type than the one svcd gave it. Set
 * first and again last, so that a handler that replaced the headers cannot drop it.
 */
function noSniff() {
  return async function setNoSniff(ctx: Koa.Context, next: Koa.Next): Promise<void> {
    ctx.set('X-Content-Type-Options', 'nosniff')
    try {
      await next()
    } finally {
      if (!ctx.headerSent) ctx.set('X-Content-Type-Options', 'nosniff')
    }
  }
}

function requestLog(log: Logger) {
  return async function logRequest(ctx: Koa.Context, next: Koa.Next): Promise<void> {
    const start = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      log.debug('request', { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 })
    }
  }
}

export interface TlsMaterial {
  key: Buffer
  cert: Buffer
}

export interface RunningServer {
  server: http.Server | https.Server
  port: number
  /** Swap in a renewed certificate without a restart (https only). */
  reloadTls(tls: TlsMaterial): void
  close(): Promise<void>
}

/** Listen on ip:port; with `tls`, serve HTTPS. Resolves once listening, rejects on EADDRINUSE and the like. */
export function listen(app: Koa, opts: { ip: string; port: number; tls?: TlsMaterial; clock: Clock }): Promise<RunningServer> {
  const handler = app.callback()
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert, minVersion: 'TLSv1.2' }, handler) : http.createServer(handler)
  server.headersTimeout = 30_000
  server.requestTimeout = 300_000
  server.keepAliveTimeout = 5_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.ip, () => {
      server.off('error', reject)
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        reloadTls(tls) {
          if (server instanceof https.Server) server.setSecureContext({ key: tls.key, cert: tls.cert })
        },
        close: () => closeServer(server, opts.clock),
      })
    })
  })
}

function closeServer(server: http.Server, clock: Clock): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeIdleConnections()
    // Requests still running get a few seconds to finish, then their connections are dropped.
    clock.setTimeout(() => server.closeAllConnections(), 5_000, { background: true })
  })
}
