/**
 * The users of the configuration (`auth_type = "config-file"`, Krill's `[auth_users]`): who a user name and password
 * are, by Krill's password scheme (crypto/password-hash.ts). Every check costs the same, whoever is named: an unknown
 * user is hashed against a fixed fake entry and then refused, as Krill does, so that the time of an answer does not
 * tell which users exist; the stored hash is compared in constant time. A wrong password and an unknown user are the
 * same answer. How many checks run at once is bounded (`maxConcurrent`): each takes two scrypt runs of libuv's small
 * thread pool, which file and DNS work share.
 */
import { timingSafeEqual } from 'node:crypto'
import type { Role } from '../../api/access.js'
import { krillPasswordHash, scryptKdf, type Kdf } from '../../crypto/password-hash.js'

/** An `[auth_users]` entry (config-auth.ts ConfigUser): a role name, and the hex hash and salt of Krill's scheme. */
export interface UserEntry {
  role: string
  password_hash: string
  salt: string
}

export interface ConfigUsersDeps {
  /** `[auth_users]` by user id (config-auth.ts: hex hash and salt, lower case). */
  users: Readonly<Record<string, UserEntry>>
  /** The configured roles by name. */
  roles: Readonly<Record<string, Role>>
  /** scrypt with the scheme's parameters (a test counts its calls). */
  kdf?: Kdf
  /** Checks running at once at most; the others wait their turn (default 2)… */
  maxConcurrent?: number
  /** …and beyond this many waiting, a check is refused at once as `busy` (default 256). */
  maxWaiting?: number
}

/** What a check found: the user and their role, or why not (never which of user or password was wrong). */
export type UserCheck = { ok: true; id: string; role: Role } | { ok: false; reason: 'invalid-credentials' | 'unknown-role' | 'busy' }

/** Hashed against when the user name is unknown (an entry no password matches: its hash is not 32 bytes). */
const FAKE_ENTRY: UserEntry = { role: '', password_hash: Buffer.from('no such user: fake password hash').toString('hex').slice(0, 62), salt: Buffer.from('no such user: fake salt').toString('hex') }

export class ConfigUsers {
  private readonly kdf: Kdf
  private readonly max: number
  private running = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly d: ConfigUsersDeps) {
    this.kdf = d.kdf ?? scryptKdf
    this.max = Math.max(1, d.maxConcurrent ?? 2)
  }

  /** Whether a user of this id is configured (for the rate limits' bookkeeping, never for an answer). */
  has(id: string): boolean {
    return Object.hasOwn(this.d.users, id)
  }

  /** Check a user name and password: the same work whether or not the user exists. */
  async check(username: string, password: string): Promise<UserCheck> {
    if (this.waiting.length >= (this.d.maxWaiting ?? 256)) return { ok: false, reason: 'busy' }
    const known = Object.hasOwn(this.d.users, username)
    const entry = known ? this.d.users[username]! : FAKE_ENTRY
    const hash = await this.limited(() => krillPasswordHash(username, password, Buffer.from(entry.salt, 'hex'), this.kdf))
    const stored = Buffer.from(entry.password_hash, 'hex')
    // Compared in constant time; an entry of another length (the fake one) is compared with itself, then refused.
    const same = stored.length === hash.length ? timingSafeEqual(stored, hash) : !timingSafeEqual(hash, hash)
    if (!known || !same) return { ok: false, reason: 'invalid-credentials' }
    const role = Object.hasOwn(this.d.roles, entry.role) ? this.d.roles[entry.role] : undefined
    return role ? { ok: true, id: username, role } : { ok: false, reason: 'unknown-role' }
  }

  /** Run `f` when fewer than `max` checks are running (a finished check hands its place to the next in line). */
  private async limited<T>(f: () => Promise<T>): Promise<T> {
    if (this.running < this.max) this.running++
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await f()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
