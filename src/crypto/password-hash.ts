/**
 * Krill's password scheme for `[auth_users]` (krill:src/daemon/http/auth/providers/config_file.rs, and `krillc config
 * user`), so that a Krill user entry carries over unchanged: scrypt (RFC 7914) with log N 13, r 8, p 1 and a 32-byte
 * output, applied twice: first to the NFKC-normalised, trimmed password with the salt `krill-lagosta-<NFKC-normalised
 * trimmed username>` (Krill's "weak salt", kept from its old web client, which hashed in the browser), then to that
 * 32-byte result with the entry's own random salt. The entry stores both in hex. scrypt runs on libuv's thread pool
 * (never scryptSync: one login costs tens of milliseconds of CPU, the event loop must not wait for it). Here in the
 * library so that svcd (app/access/config-users.ts) and svcc (`svcc config user`) compute the same thing; the salt is
 * passed in (the caller draws it), so this file draws no randomness.
 */
import { scrypt, type ScryptOptions } from 'node:crypto'

/** Krill's PW_HASH_LOG_N, PW_HASH_R, PW_HASH_P and scrypt's recommended output length. */
export const PASSWORD_HASH_PARAMS = { logN: 13, r: 8, p: 1, length: 32 } as const

/** How long an entry's random salt is when svcc draws one (Krill's krillc draws 16 bytes; longer does no harm). */
export const PASSWORD_SALT_BYTES = 32

/** One scrypt: `(input, salt) → key` with the scheme's parameters; injectable so a test can count the calls. */
export type Kdf = (input: Uint8Array, salt: Uint8Array) => Promise<Buffer>

const OPTIONS: ScryptOptions = { N: 2 ** PASSWORD_HASH_PARAMS.logN, r: PASSWORD_HASH_PARAMS.r, p: PASSWORD_HASH_PARAMS.p, maxmem: 64 * 1024 * 1024 }

/** node:crypto's asynchronous scrypt with the scheme's parameters. */
export const scryptKdf: Kdf = (input, salt) =>
  new Promise((resolve, reject) => scrypt(input, salt, PASSWORD_HASH_PARAMS.length, OPTIONS, (err, key) => (err ? reject(err) : resolve(key))))

/** A user name or password as Krill reads it: surrounding white space trimmed, then Unicode NFKC. */
export function normalise(s: string): string {
  return s.trim().normalize('NFKC')
}

/** The entry's `password_hash` (32 bytes) of a user name, a password and the entry's salt. */
export async function krillPasswordHash(username: string, password: string, salt: Uint8Array, kdf: Kdf = scryptKdf): Promise<Buffer> {
  const weakSalt = `krill-lagosta-${normalise(username)}`.normalize('NFKC')
  const interim = await kdf(Buffer.from(normalise(password), 'utf8'), Buffer.from(weakSalt, 'utf8'))
  return kdf(interim, salt)
}
