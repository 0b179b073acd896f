/**
 * SignerSet: the Signer svcd uses (design.md §10), over the configured signers. New persistent keys are made in
 * `default_signer` (or the signer a key roll names), one-off EE keys come from `one_off_signer`, and each key's
 * signatures go to the signer that holds it, found through the key directory (the `key_signers` table) by the
 * signer's handle: a signer renamed in the config, or whose library moved, keeps its keys. Keys made before signers
 * were recorded belong to the software signer. Counts signatures and key generations, and their failures, per signer.
 */
import { inspect } from 'node:util'
import { AppError } from '../errors.js'
import type { KeyId } from '../crypto/key-id.js'
import type { SignerProblem } from './pkcs11-signer.js'
import { type CreateKeyOptions, type OneOffKey, type Signer, type SigningKey, UnknownKeyError } from '../crypto/signer.js'

export type { SignerProblem } from './pkcs11-signer.js'

/** One configured signer as the set sees it. */
export interface SignerMember {
  name: string
  type: 'OpenSSL' | 'PKCS#11'
  signer: Signer
  /** Its handle: fixed for the software signer, read from the token for PKCS#11 (undefined until it was opened). */
  handle(): string | undefined
  /** What it says of itself (token label, serial); never the PIN. */
  info(): Record<string, string>
  /** Why it cannot sign now; undefined when it can. */
  problem(): SignerProblem | undefined
  start?(): void
  startPool?(): void
  stop?(): Promise<void>
}

/** Where the set records which signer (by handle) holds which key. */
export interface KeyDirectory {
  keyHandle(keyId: string): string | undefined
  recordKey(keyId: string, handle: string, created: number): void
  forgetKey(keyId: string): void
}

/** Operations and failures of one signer since start (GET /metrics). */
export interface SignerStats {
  name: string
  type: string
  available: boolean
  sign: number
  signErrors: number
  keygen: number
  keygenErrors: number
}

export interface SignerSetOptions {
  members: SignerMember[]
  defaultSigner: string
  oneOffSigner: string
  directory: KeyDirectory
  /** The handle last recorded for a signer name (a token absent at start is still known by its name). */
  recordedHandle: (name: string) => string | undefined
  now: () => number
}

export class SignerSet implements Signer {
  readonly #o: SignerSetOptions
  readonly #byName = new Map<string, SignerMember>()
  readonly #holder = new Map<KeyId, SignerMember>()
  readonly #counts = new Map<string, { sign: number; signErrors: number; keygen: number; keygenErrors: number }>()

  constructor(o: SignerSetOptions) {
    this.#o = o
    for (const m of o.members) {
      this.#byName.set(m.name, m)
      this.#counts.set(m.name, { sign: 0, signErrors: 0, keygen: 0, keygenErrors: 0 })
    }
    if (!this.#byName.has(o.defaultSigner) || !this.#byName.has(o.oneOffSigner)) throw new RangeError('default_signer and one_off_signer must be configured signers')
  }

  get members(): readonly SignerMember[] {
    return this.#o.members
  }

  get defaultSigner(): string {
    return this.#o.defaultSigner
  }

  async createKey(opts?: CreateKeyOptions): Promise<KeyId> {
    const m = this.member(opts?.signer ?? this.#o.defaultSigner)
    const handle = this.handleOf(m)
    const keyId = await this.generated(m, () => m.signer.createKey())
    this.#o.directory.recordKey(keyId, handle, this.#o.now())
    this.#holder.set(keyId, m)
    return keyId
  }

  signingKey(keyId: KeyId): SigningKey {
    const m = this.holder(keyId)
    if (!m) throw new UnknownKeyError(keyId)
    return this.counted(m, m.signer.signingKey(keyId))
  }

  hasKey(keyId: KeyId): boolean {
    try {
      const m = this.holder(keyId)
      return m !== undefined && m.signer.hasKey(keyId)
    } catch {
      return false
    }
  }

  destroyKey(keyId: KeyId): void {
    const m = this.holder(keyId)
    if (!m) return
    m.signer.destroyKey(keyId)
    this.#o.directory.forgetKey(keyId)
    this.#holder.delete(keyId)
  }

  async oneOffKey(): Promise<OneOffKey> {
    const m = this.member(this.#o.oneOffSigner)
    const k = await this.generated(m, () => m.signer.oneOffKey())
    const signing = this.counted(m, k)
    return { keyId: k.keyId, ski: k.ski, spki: k.spki, sign: (d) => signing.sign(d), destroy: () => k.destroy() }
  }

  signerOf(keyId: KeyId): string | undefined {
    try {
      return this.holder(keyId)?.name
    } catch {
      return undefined
    }
  }

  /** The signers that cannot sign now, with why. */
  problems(): SignerProblem[] {
    return this.#o.members.flatMap((m) => m.problem() ?? [])
  }

  stats(): SignerStats[] {
    return this.#o.members.map((m) => ({ name: m.name, type: m.type, available: m.problem() === undefined, ...this.#counts.get(m.name)! }))
  }

  start(): void {
    for (const m of this.#o.members) m.start?.()
  }

  startPools(): void {
    for (const m of this.#o.members) m.startPool?.()
  }

  async stop(): Promise<void> {
    await Promise.all(this.#o.members.map((m) => m.stop?.()))
  }

  /** The configured signer `name`; a key roll naming another is refused. */
  member(name: string): SignerMember {
    const m = this.#byName.get(name)
    if (!m) throw new AppError('signer-unknown', { signer: name, known: [...this.#byName.keys()].join(', ') })
    return m
  }

  private handleOf(m: SignerMember): string {
    const h = m.handle() ?? this.#o.recordedHandle(m.name)
    if (h === undefined) {
      const p = m.problem()
      throw new AppError(p?.label === 'sys-signer-login' ? p.label : 'sys-signer-unavailable', { signer: m.name, reason: p?.args.reason ?? 'it has not been opened yet' })
    }
    return h
  }

  /** The signer holding `keyId`: the recorded one, else (a key from before signers were recorded) the software signer. */
  private holder(keyId: KeyId): SignerMember | undefined {
    const known = this.#holder.get(keyId)
    if (known) return known
    const handle = this.#o.directory.keyHandle(keyId)
    let m: SignerMember | undefined
    if (handle === undefined) {
      m = this.#o.members.find((x) => x.type === 'OpenSSL' && x.signer.hasKey(keyId))
    } else {
      m = this.#o.members.find((x) => (x.handle() ?? this.#o.recordedHandle(x.name)) === handle)
      if (!m) throw new AppError('sys-signer-unavailable', { signer: handle, reason: `key ${keyId} is held by a signer that is not configured` })
    }
    if (m) this.#holder.set(keyId, m)
    return m
  }

  /** A key from `m` (made, or taken from its pool), counted as a key generation or a failed one. */
  private async generated<T>(m: SignerMember, make: () => Promise<T>): Promise<T> {
    const c = this.#counts.get(m.name)!
    try {
      const k = await make()
      c.keygen++
      return k
    } catch (e) {
      c.keygenErrors++
      throw e
    }
  }

  private counted(m: SignerMember, k: SigningKey): SigningKey {
    const c = this.#counts.get(m.name)!
    return {
      keyId: k.keyId, ski: k.ski, spki: k.spki,
      sign(data: Uint8Array): Uint8Array {
        try {
          const s = k.sign(data)
          c.sign++
          return s
        } catch (e) {
          c.signErrors++
          throw e
        }
      },
    }
  }

  [inspect.custom](): string {
    return `SignerSet(${this.#o.members.map((m) => m.name).join(', ')})`
  }
}
