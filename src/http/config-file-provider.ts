/**
 * `auth_type = "config-file"` (krill:src/daemon/http/auth/providers/config_file.rs): the users of `[auth_users]` log
 * in with a user name and password sent as HTTP Basic credentials (RFC 7617), as Krill's web client sends them after
 * GET /auth/login told it to show its user/password form (`/login?withId=true`). The admin token logs in too, as a
 * bearer token, as with every auth_type (Krill's CLI and scripts keep using it). Checking the password, the limits on
 * failures, the session and the audit are the login service's (app/access/login-service.ts).
 */
import type { Context } from 'koa'
import type { LoggedInUser } from '../api/status.js'
import type { LoginService } from '../app/access/login-service.js'
import { AppError } from '../errors.js'
import { loginRequest, optionalBearer, type AuthProvider } from './auth-provider.js'

/** Krill's web client: its login form with a user name field. */
export const CONFIG_FILE_LOGIN_URL = '/login?withId=true'

export class ConfigFileProvider implements AuthProvider {
  readonly type = 'config-file' as const

  constructor(private readonly logins: LoginService) {}

  loginUrl(): string {
    return CONFIG_FILE_LOGIN_URL
  }

  async login(ctx: Context): Promise<LoggedInUser> {
    const req = loginRequest(ctx)
    const token = optionalBearer(ctx)
    if (token !== undefined) return this.logins.adminToken(token, req)
    const basic = basicCredentials(ctx.get('Authorization'))
    if (!basic) throw new AppError('api-invalid-credentials', { reason: 'missing credentials' })
    return this.logins.password(basic.username, basic.password, req)
  }

  /** Ends the session of the bearer secret, if it is one; never fails. */
  logout(ctx: Context): string {
    this.logins.logout(optionalBearer(ctx), loginRequest(ctx))
    return '/'
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * `Authorization: Basic base64(user:password)` (RFC 7617 §2): the user name is everything before the first colon.
 * Undefined when the header is missing, of another scheme, not base64, not UTF-8 or without a colon (Krill: "Missing
 * credentials").
 */
export function basicCredentials(header: string): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header)
  if (!m) return undefined
  let text: string
  try {
    text = UTF8.decode(Buffer.from(m[1]!, 'base64'))
  } catch {
    return undefined
  }
  const colon = text.indexOf(':')
  return colon < 0 ? undefined : { username: text.slice(0, colon), password: text.slice(colon + 1) }
}
