/**
 * Login sessions (design.md §9): what a login yields, for the console and the API. A session is a random secret
 * the client sends as its bearer token; the store keeps only its SHA-256, with the user, the provider and the role's
 * name, so every instance of a cluster reads the same sessions and a logout or revocation holds everywhere at once.
 * A session ends after `idleSeconds` without a request, `maxSeconds` after the login, or when revoked.
 */
import { sha256Hex } from '../../crypto/digest.js'
import type { SessionStore, StoredSession } from '../../store/interfaces.js'
import type { Clock, Random } from '../../util/clock.js'

/** The prefix of every session secret: it tells a session from an API token or the admin token at a glance. */
export const SESSION_PREFIX = 'svcs_'

export interface SessionDeps {
  store: SessionStore
  clock: Clock
  random: Random
  idleSeconds: number
  maxSeconds: number
}

/** A live session, without its secret. */
export type Session = Omit<StoredSession, 'revoked'>

/** A use is written back at most this often (the idle time is counted in whole minutes). */
const TOUCH_MS = 60_000

export class SessionService {
  constructor(private readonly d: SessionDeps) {}

  /** Start a session; the secret is returned once and never stored. */
  start(user: { userId: string; provider: string; role: string; data?: Record<string, string> }): { secret: string; session: Session } {
    const secret = SESSION_PREFIX + Buffer.from(this.d.random.bytes(32)).toString('base64url')
    const now = this.d.clock.now()
    const session: Session = { id: sha256Hex(Buffer.from(secret, 'utf8')), userId: user.userId, provider: user.provider, role: user.role, created: now, lastSeen: now, expires: now + this.d.maxSeconds * 1000, data: user.data ?? {} }
    this.d.store.create({ ...session, revoked: undefined })
    return { secret, session }
  }

  /** The live session of a secret, or undefined (unknown, revoked, idle too long, or past its end). */
  resolve(secret: string): Session | undefined {
    if (!secret.startsWith(SESSION_PREFIX)) return undefined
    const s = this.d.store.get(sha256Hex(Buffer.from(secret, 'utf8')))
    const now = this.d.clock.now()
    if (!s || s.revoked !== undefined || now >= s.expires || now - s.lastSeen >= this.d.idleSeconds * 1000) return undefined
    if (now - s.lastSeen >= TOUCH_MS) this.d.store.touch(s.id, now)
    const { revoked: _, ...live } = s
    return live
  }

  /** End the session of a secret (logout); the session it was, if it was live. */
  end(secret: string): Session | undefined {
    const s = this.resolve(secret)
    if (s) this.d.store.revoke(s.id, this.d.clock.now())
    return s
  }

  /** End every session of a user (a user removed from the config, an OpenID Connect back-channel logout). */
  endUser(userId: string, provider: string): number {
    return this.d.store.revokeUser(userId, provider, this.d.clock.now())
  }

  /** Forget sessions that ended more than a day ago (housekeeping). */
  purge(): number {
    return this.d.store.purge(this.d.clock.now() - 86_400_000)
  }
}
