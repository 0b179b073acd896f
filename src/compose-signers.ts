/**
 * The signers svcd runs (the composition root, design.md §6 and §10): the configured `[[signers]]` (plus the implicit
 * OpenSSL signer, config-signers.ts), each wrapped as a SignerSet member, with the key directory in the database. The
 * software signer keeps its keys where openStorage says (files beside SQLite, sealed rows in PostgreSQL) or in
 * `keys_path`; a PKCS#11 signer opens its token at start and keeps trying when it cannot.
 */
import { KeyPool } from './crypto/key-pool.js'
import { Pkcs11Signer } from './signers/pkcs11-signer.js'
import { SignerSet, type SignerMember } from './signers/signer-set.js'
import { SoftSigner } from './crypto/soft-signer.js'
import type { KeyStore } from './crypto/signer.js'
import { effectiveSigners, readUserPin, type SignerConfig } from './config-signers.js'
import type { Config } from './config.js'
import type { Logger } from './log.js'
import type { Clock } from './util/clock.js'
import { FileKeyStore } from './store/key-store.js'
import type { SignerRegistryStore } from './store/interfaces.js'

/** The software signer's handle: there is one per instance, its keys are where the storage keeps them. */
export const OPENSSL_HANDLE = 'openssl'

export interface ComposedSigners {
  set: SignerSet
  /** The software signer's key pool (GET /metrics: svc_key_pool_*). */
  pool: KeyPool
}

/**
 * `available` is told when a PKCS#11 signer becomes available again after an outage (not at its first opening): work
 * that failed meanwhile (a publication) is then redone at once instead of at its next retry.
 */
export function composeSigners(config: Config, keys: () => KeyStore, registry: SignerRegistryStore, log: Logger, clock: Clock, available: (signer: string) => void = () => {}): ComposedSigners {
  const now = () => clock.date()
  const { signers, defaultSigner, oneOffSigner } = effectiveSigners(config)
  const soft = signers.find((s) => s.type === 'OpenSSL')!
  // The software pool fills for what the software signer makes: one-off keys (the usual case) or only CA keys.
  const poolSize = oneOffSigner === soft.name ? config.key_pool_size : defaultSigner === soft.name ? Math.min(4, config.key_pool_size) : 0
  const pool = new KeyPool({ size: poolSize, onError: (e) => log.error('key generation failed', { err: String(e) }) })
  const save = (m: SignerMember) => {
    const handle = m.handle()
    if (handle === undefined) return
    try {
      registry.saveSigner({ handle, name: m.name, type: m.type, info: m.info(), seen: now().getTime() })
    } catch (e) {
      log.warn('recording the signer failed', { signer: m.name, err: String(e) })
    }
  }
  const members = signers.map((s): SignerMember => {
    if (s.type === 'OpenSSL') {
      const store = s.keys_path ? new FileKeyStore(s.keys_path) : keys()
      const signer = new SoftSigner(store, pool)
      return { name: s.name, type: 'OpenSSL', signer, handle: () => OPENSSL_HANDLE, info: () => ({}), problem: () => undefined, start: () => save(member(s.name)), startPool: () => pool.start(), stop: () => pool.stop() }
    }
    return pkcs11Member(s, s.name === oneOffSigner ? config.key_pool_size : 0, log, clock, (m) => save(m), available)
  })
  const member = (name: string) => members.find((m) => m.name === name)!
  const set = new SignerSet({
    members, defaultSigner, oneOffSigner, directory: registry, now: () => now().getTime(),
    recordedHandle: (name) => registry.signers().find((r) => r.name === name)?.handle,
  })
  return { set, pool }
}

function pkcs11Member(s: SignerConfig, oneOffPoolSize: number, log: Logger, clock: Clock, saved: (m: SignerMember) => void, available: (signer: string) => void): SignerMember {
  let member: SignerMember
  let wasDown = false
  const signer = new Pkcs11Signer({
    name: s.name, libPath: s.lib_path!, slot: s.slot, userPin: readUserPin(s), login: s.login,
    retry: { firstMs: s.retry_seconds * 1000, multiplier: s.backoff_multiplier, maxMs: s.max_retry_seconds * 1000 },
    slowMs: s.slow_ms, oneOffPoolSize, concurrency: 2, checkMs: s.check_seconds * 1000, clock,
    onChange: (p) => {
      if (p) {
        if (p.label === 'sys-signer-slow') log.warn('signer answers slowly', { signer: s.name, label: p.label, operation: p.args.operation ?? '', ms: p.args.ms ?? '' })
        else log.error('signer cannot sign', { signer: s.name, label: p.label, reason: p.args.reason ?? '' })
        wasDown = wasDown || p.label !== 'sys-signer-slow'
      } else {
        log.info('signer available', { signer: s.name, ...signer.info() })
        saved(member)
        if (wasDown) available(s.name)
        wasDown = false
      }
    },
  })
  member = {
    name: s.name, type: 'PKCS#11', signer, handle: () => signer.handle, info: () => ({ ...signer.info(), lib_path: s.lib_path! }),
    problem: () => signer.problem(),
    start: () => {
      signer.start()
      if (!signer.problem()) saved(member)
    }, startPool: () => signer.startPool(), stop: () => signer.stop(),
  }
  return member
}
