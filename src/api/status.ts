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

/** One svcd instance in GET /api/v1/cluster. */
export interface ClusterInstanceJson {
  id: string
  /** Where the instance serves its API and repository (its own address, not the shared service_uri). */
  url: string
  role: 'leader' | 'follower'
  /** The leader epoch the instance last saw (its own, when it leads). */
  epoch: number
  /** When the instance started, in unix seconds. */
  started: number
  /** Its last heartbeat in unix seconds, and how long ago that was (by the database's clock). */
  last_heartbeat: number
  heartbeat_age_seconds: number
  /** The RRDP session and serial it serves, and how many serials that is behind the leader's. */
  rrdp_session?: string
  rrdp_serial?: number
  lag: number
}

/**
 * GET /api/v1/cluster: `single` for one svcd on its own database (always the leader), `cluster` for several instances
 * on one PostgreSQL database: the leader epoch, the leader's id, the instance that answers, and every instance.
 */
export interface ClusterJson {
  mode: 'single' | 'cluster'
  epoch: number
  leader?: string
  this_instance: string
  instances: ClusterInstanceJson[]
}
