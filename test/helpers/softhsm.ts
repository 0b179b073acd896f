/**
 * A SoftHSM2 token of the test's own (issue 25): a softhsm2.conf and a token directory in a temporary directory,
 * initialised with softhsm2-util; nothing global. svcd and the unit tests reach it through SOFTHSM2_CONF (`env`).
 * `away()` takes the token away (its directory is renamed: SoftHSM2 answers CKR_OBJECT_HANDLE_INVALID for its keys and
 * cannot initialise) and `back()` gives it back, for the fault scenarios.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir, type TestLike } from './daemon.js'

/** Debian's softhsm2 package puts its PKCS#11 module here. */
export const SOFTHSM_LIB = '/usr/lib/softhsm/libsofthsm2.so'

export interface SoftHsm {
  dir: string
  conf: string
  tokenDir: string
  label: string
  pin: string
  lib: string
  /** SOFTHSM2_CONF for svcd or this process (set it in process.env before the first PKCS#11 call in-process). */
  env: Record<string, string>
  /** A [[signers]] block for this token (Krill's option names), named `name`. */
  signerToml(name: string, extra?: string): string
  away(): void
  back(): void
}

/** A new token labelled `label` with user PIN `pin` (SO PIN 87654321), in a temporary directory of `t`. */
export function softHsm(t: TestLike, opts: { label?: string; pin?: string } = {}): SoftHsm {
  if (!existsSync(SOFTHSM_LIB)) throw new Error(`${SOFTHSM_LIB} is missing: make installs Debian's softhsm2`)
  const dir = tempDir(t, 'svc-softhsm-')
  const tokenDir = join(dir, 'tokens')
  mkdirSync(tokenDir, { mode: 0o700 })
  const conf = join(dir, 'softhsm2.conf')
  writeFileSync(conf, `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`)
  const label = opts.label ?? 'svc-test'
  const pin = opts.pin ?? '4711-' + Math.random().toString(36).slice(2, 10)
  const env = { SOFTHSM2_CONF: conf }
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', '87654321', '--pin', pin], { env: { ...process.env, ...env }, stdio: 'pipe' })
  const awayDir = tokenDir + '.away'
  return {
    dir, conf, tokenDir, label, pin, lib: SOFTHSM_LIB, env,
    signerToml: (name, extra = '') => `[[signers]]\ntype = "PKCS#11"\nname = "${name}"\nlib_path = "${SOFTHSM_LIB}"\nslot = "${label}"\nuser_pin = "${pin}"\n${extra}\n`,
    away: () => renameSync(tokenDir, awayDir),
    back: () => renameSync(awayDir, tokenDir),
  }
}
