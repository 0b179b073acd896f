/**
 * The signers of config.ts (design.md §10; krill-reference.md §6: Krill's `[[signers]]`, `default_signer`,
 * `one_off_signer`, `signer_probe_retry_seconds`). Krill's blocks are accepted as written: `type = "OpenSSL"` with
 * `keys_path`, and `type = "PKCS#11"` with `lib_path`, `slot` (a number or a token label; `slot_label` too), `user_pin`,
 * `login`, `retry_seconds`, `backoff_multiplier`, `max_retry_seconds`. svcd adds `user_pin_file` (mode 0600, so the
 * PIN need not sit in the config), `slow_ms` and `check_seconds`. The PIN is never part of a message.
 */
import { readFileSync, statSync } from 'node:fs'

export type SignerType = 'OpenSSL' | 'PKCS#11'

export interface SignerConfig {
  type: SignerType
  name: string
  /** OpenSSL: where the private keys are (SQLite storage only; default <data_dir>/keys). */
  keys_path?: string
  lib_path?: string
  slot?: number | string
  user_pin?: string
  user_pin_file?: string
  login: boolean
  retry_seconds: number
  backoff_multiplier: number
  max_retry_seconds: number
  /** A signature or key generation slower than this makes the signer report sys-signer-slow. */
  slow_ms: number
  /** How often an idle token is checked to answer (0: only when used). */
  check_seconds: number
}

export interface SignersConfig {
  signers: SignerConfig[]
  default_signer: string | undefined
  one_off_signer: string | undefined
  signer_probe_retry_seconds: number
}

/** The name of the OpenSSL signer svcd adds when none is configured (Krill: one-off keys from OpenSSL by default). */
export const IMPLICIT_OPENSSL = 'OpenSSL'

export function signersDefaults(): SignersConfig {
  return { signers: [], default_signer: undefined, one_off_signer: undefined, signer_probe_retry_seconds: 30 }
}

type Problem = (key: string, what: string) => Error

const OPENSSL_KEYS = new Set(['type', 'name', 'keys_path'])
const PKCS11_KEYS = new Set(['type', 'name', 'lib_path', 'slot', 'slot_label', 'user_pin', 'user_pin_file', 'login', 'retry_seconds', 'backoff_multiplier', 'max_retry_seconds', 'slow_ms', 'check_seconds'])

/** `[[signers]]`: an array of tables, each checked key by key. */
export function parseSigners(value: unknown, bad: Problem): SignerConfig[] {
  if (!Array.isArray(value)) throw bad('signers', 'must be an array of tables ([[signers]])')
  const out: SignerConfig[] = []
  value.forEach((v, i) => {
    const at = `signers[${i}]`
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date) throw bad(at, 'must be a table')
    const t = v as Record<string, unknown>
    const str = (k: string, required: boolean): string | undefined => {
      const x = t[k]
      if (x === undefined) {
        if (required) throw bad(`${at}.${k}`, 'must be set')
        return undefined
      }
      if (typeof x !== 'string' || x === '') throw bad(`${at}.${k}`, 'must be a non-empty string')
      return x
    }
    const num = (k: string, dflt: number, min: number, max: number, integer = true): number => {
      const x = t[k]
      if (x === undefined) return dflt
      if (typeof x !== 'number' || (integer && !Number.isInteger(x)) || x < min || x > max) throw bad(`${at}.${k}`, `must be a${integer ? 'n integer' : ' number'} from ${min} to ${max}`)
      return x
    }
    const type = str('type', true)
    if (type === 'KMIP') throw bad(`${at}.type`, 'is "KMIP": svcd supports "OpenSSL" and "PKCS#11" signers')
    if (type !== 'OpenSSL' && type !== 'PKCS#11') throw bad(`${at}.type`, 'must be "OpenSSL" or "PKCS#11"')
    const name = str('name', true)!
    if (name.length > 100 || /[\u0000-\u001f]/.test(name)) throw bad(`${at}.name`, 'must be at most 100 printable characters')
    const allowed = type === 'OpenSSL' ? OPENSSL_KEYS : PKCS11_KEYS
    for (const k of Object.keys(t)) if (!allowed.has(k)) throw bad(`${at}.${k}`, `is not an option of a "${type}" signer`)
    const base = {
      type, name, login: true, retry_seconds: num('retry_seconds', 2, 1, 3600), backoff_multiplier: num('backoff_multiplier', 1.5, 1, 10, false),
      max_retry_seconds: num('max_retry_seconds', 30, 1, 86400), slow_ms: num('slow_ms', 2000, 1, 600_000), check_seconds: num('check_seconds', 30, 0, 86400),
    } satisfies Partial<SignerConfig>
    if (type === 'OpenSSL') {
      out.push({ ...base, keys_path: str('keys_path', false) })
      return
    }
    if (t.login !== undefined && typeof t.login !== 'boolean') throw bad(`${at}.login`, 'must be true or false')
    const slot = t.slot ?? t.slot_label
    if (t.slot !== undefined && t.slot_label !== undefined) throw bad(`${at}.slot_label`, 'cannot be set with slot')
    if (slot !== undefined && !(typeof slot === 'string' && slot !== '') && !(typeof slot === 'number' && Number.isInteger(slot) && slot >= 0)) {
      throw bad(`${at}.slot`, 'must be a slot number (e.g. 0x12a9f8f7) or a token label')
    }
    if (t.user_pin !== undefined && t.user_pin_file !== undefined) throw bad(`${at}.user_pin_file`, 'cannot be set with user_pin')
    if (t.user_pin !== undefined && typeof t.user_pin !== 'string') throw bad(`${at}.user_pin`, 'must be a string')
    out.push({
      ...base, lib_path: str('lib_path', true), slot: slot as number | string | undefined, user_pin: t.user_pin as string | undefined,
      user_pin_file: str('user_pin_file', false), login: (t.login as boolean | undefined) ?? true,
    })
  })
  return out
}

/** Cross-checks: unique names, at most one OpenSSL signer, default_signer and one_off_signer name configured signers. */
export function verifySigners(c: SignersConfig, fail: (key: string, what: string) => never): void {
  const names = new Set<string>()
  for (const s of c.signers) {
    if (names.has(s.name)) fail('signers', `has two signers named '${s.name}'`)
    names.add(s.name)
  }
  if (c.signers.filter((s) => s.type === 'OpenSSL').length > 1) fail('signers', 'has more than one "OpenSSL" signer: svcd keeps software keys in one place')
  for (const key of ['default_signer', 'one_off_signer'] as const) {
    const n = c[key]
    if (n !== undefined && !names.has(n) && !(n === IMPLICIT_OPENSSL && c.signers.every((s) => s.type !== 'OpenSSL'))) {
      fail(key, `names '${n}', which is not a [[signers]] name (${[...names].map((x) => `'${x}'`).join(', ') || 'none configured'})`)
    }
  }
  if (c.default_signer === undefined && c.signers.length > 1) fail('default_signer', 'must be set when more than one signer is configured')
}

/**
 * The signers svcd runs: the configured ones plus, when none is of type OpenSSL, the implicit OpenSSL signer (it holds
 * the keys made before any signer was configured, and the one-off keys unless one_off_signer says otherwise).
 */
export function effectiveSigners(c: SignersConfig): { signers: SignerConfig[]; defaultSigner: string; oneOffSigner: string } {
  const signers = [...c.signers]
  let openssl = signers.find((s) => s.type === 'OpenSSL')
  if (!openssl) {
    openssl = { type: 'OpenSSL', name: IMPLICIT_OPENSSL, login: true, retry_seconds: 2, backoff_multiplier: 1.5, max_retry_seconds: 30, slow_ms: 2000, check_seconds: 30 }
    signers.push(openssl)
  }
  return { signers, defaultSigner: c.default_signer ?? c.signers[0]?.name ?? openssl.name, oneOffSigner: c.one_off_signer ?? openssl.name }
}

/** The user PIN: `user_pin`, or the first line of `user_pin_file`, which must be mode 0600 or stricter. */
export function readUserPin(s: SignerConfig): string | undefined {
  if (s.user_pin_file === undefined) return s.user_pin
  let mode: number
  try {
    mode = statSync(s.user_pin_file).mode
  } catch (e) {
    throw new Error(`signer '${s.name}': cannot read user_pin_file '${s.user_pin_file}': ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  if ((mode & 0o077) !== 0) throw new Error(`signer '${s.name}': user_pin_file '${s.user_pin_file}' must not be readable by group or others (chmod 600)`)
  return readFileSync(s.user_pin_file, 'utf8').split(/\r?\n/)[0]
}
