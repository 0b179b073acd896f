/** Wire types of the server-status part of the JSON API (krill-reference.md §1.1 "Server / health / info"). */
import type { ErrorBody } from '../errors.js'

/** The error body of every API error (krill-reference.md §1.3), defined with the catalogue in errors.ts. */
export type { ErrorBody }

/** GET /stats/info: the version and the start time in unix seconds. */
export interface ServerInfo {
  version: string
  started: number
}

/**
 * POST /auth/login (Krill's LoggedInUser, krill:src/daemon/http/auth/providers/admin_token.rs): the token a web client
 * sends from now on, the user (`admin-token` for the admin token) and its attributes (`{"role": "admin"}`).
 */
export interface LoggedInUser {
  token: string
  id: string
  attributes: Record<string, string>
}

/**
 * GET /ready: `{"ready": true}` when the store answers and RRDP and the rsync tree hold everything accepted (or are
 * catching up without a failure); otherwise `ready` is false and `problems` names what is wrong (503).
 */
export interface ReadyJson {
  ready: boolean
  problems?: ErrorBody[]
}

export function isErrorBody(v: unknown): v is ErrorBody {
  if (typeof v !== 'object' || v === null) return false
  const o = v as Record<string, unknown>
  return typeof o.label === 'string' && typeof o.msg === 'string' && typeof o.args === 'object' && o.args !== null
}
