/**
 * Failed logins, limited (issue 24 item 4): at most `perSource` failures in a sliding window from one source (an IPv4
 * address or an IPv6 /64: resources/address-source.ts) and `perUser` for one user name, whoever tries it. Beyond
 * either, a login is refused before any password is hashed, until the oldest failure that counts leaves the window;
 * `retryAfter` says how many seconds that is. Only failures count: a request without credentials is no guess, and a
 * successful login clears nothing (the window does). The time is the injected clock's; memory is bounded (`maxKeys`
 * sources and users each, the quiet ones forgotten first).
 */
import type { Clock } from '../../util/clock.js'

export interface LoginLimits {
  /** Failed logins from one source in the window, at most. */
  perSource: number
  /** Failed logins for one user name in the window, at most. */
  perUser: number
  windowMs: number
}

/** Ten failures a minute from one source, five for one user (issue 24, Krill has no such limit). */
export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perSource: 10, perUser: 5, windowMs: 60_000 }

export interface LoginLimiterDeps {
  clock: Pick<Clock, 'now'>
  limits?: LoginLimits
  /** Sources (and, apart, user names) kept at most (default 10,000). */
  maxKeys?: number
}

/** The failure times of one key, oldest first, the last `limit` only. */
class Window {
  private readonly times = new Map<string, number[]>()

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.times.size
  }

  /** Milliseconds until `key` may fail again (0: now). */
  wait(key: string, now: number): number {
    const t = this.live(key, now)
    return t.length < this.limit ? 0 : t[t.length - this.limit]! + this.windowMs - now
  }

  add(key: string, now: number): void {
    const t = this.live(key, now)
    if (t.length === 0) {
      if (this.times.size >= this.maxKeys) this.prune(now)
      this.times.set(key, t)
    }
    t.push(now)
    if (t.length > this.limit) t.splice(0, t.length - this.limit)
  }

  /** The key's failures still in the window (the array kept in the map, when there is one). */
  private live(key: string, now: number): number[] {
    const t = this.times.get(key)
    if (!t) return []
    while (t.length > 0 && t[0]! <= now - this.windowMs) t.shift()
    if (t.length === 0) this.times.delete(key)
    return t
  }

  /** Forget the keys whose failures have all left the window; if that is not enough, the older half. */
  private prune(now: number): void {
    for (const key of [...this.times.keys()]) this.live(key, now)
    if (this.times.size < this.maxKeys) return
    let drop = Math.ceil(this.times.size / 2)
    for (const key of this.times.keys()) {
      if (drop-- <= 0) break
      this.times.delete(key)
    }
  }
}

export class LoginLimiter {
  readonly limits: LoginLimits
  private readonly sources: Window
  private readonly users: Window

  constructor(private readonly d: LoginLimiterDeps) {
    this.limits = d.limits ?? DEFAULT_LOGIN_LIMITS
    const max = d.maxKeys ?? 10_000
    this.sources = new Window(this.limits.perSource, this.limits.windowMs, max)
    this.users = new Window(this.limits.perUser, this.limits.windowMs, max)
  }

  /** Whole seconds until a login from `source` (for `user`, when named) may be tried again; 0 when it may now. */
  retryAfter(source: string, user?: string): number {
    const now = this.d.clock.now()
    const ms = Math.max(this.sources.wait(source, now), user === undefined ? 0 : this.users.wait(user, now))
    return ms <= 0 ? 0 : Math.max(1, Math.ceil(ms / 1000))
  }

  /** How many sources and user names are remembered (each at most `maxKeys`). */
  tracked(): { sources: number; users: number } {
    return { sources: this.sources.size, users: this.users.size }
  }

  /** A login from `source` (for `user`, when named) failed. */
  failed(source: string, user?: string): void {
    const now = this.d.clock.now()
    this.sources.add(source, now)
    if (user !== undefined) this.users.add(user, now)
  }
}
