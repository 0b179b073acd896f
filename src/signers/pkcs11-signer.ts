/**
 * Pkcs11Signer: the Signer over a PKCS#11 token (design.md §10; Krill's `type = "PKCS#11"`). Keys are RSA-2048 made
 * inside the token (CKA_SENSITIVE, not CKA_EXTRACTABLE, CKA_TOKEN for persistent keys, session objects for one-off
 * EE keys), named by CKA_ID = the RFC 6487 key identifier and CKA_LABEL = the KeyId; signing is CKM_SHA256_RSA_PKCS in
 * the token. Key generation is asynchronous (pkcs11js runs it off the event loop); one-off keys come from a KeyPool
 * kept filled from the token. Signing is synchronous (the object builders sign in line; 0.65 ms per RSA-2048 signature
 * in SoftHSM2), timed, and reported as slow above `slowMs`.
 *
 * Faults (issue 25): a token that cannot be opened, logged into, or stops answering makes the signer unavailable with a
 * labelled problem (problem()); every operation then fails at once with that AppError (nothing is half-signed: the
 * caller's build throws before anything is stored), and the token is opened again with back-off until it answers.
 */
import { createPublicKey, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import type * as P from 'pkcs11js'
import { AppError } from '../errors.js'
import { isKeyId, keyIdentifier, keyIdHex, type KeyId } from '../crypto/key-id.js'
import { KeyPool } from '../crypto/key-pool.js'
import type { Clock, TimerHandle } from '../util/clock.js'
import { Token, findObjects, pkcs11, tokenError, type TokenConfig, TokenError } from './pkcs11-token.js'
import { type CreateKeyOptions, type OneOffKey, type Signer, type SigningKey, UnknownKeyError } from '../crypto/signer.js'

type Handle = Buffer

export interface Pkcs11SignerOptions extends TokenConfig {
  /** Back-off between attempts to open the token again (Krill: retry_seconds, backoff_multiplier, max_retry_seconds). */
  retry: { firstMs: number; multiplier: number; maxMs: number }
  /** A signature or key generation slower than this is reported (sys-signer-slow). */
  slowMs: number
  /** One-off keys kept ready (0: this signer is not the one-off signer). */
  oneOffPoolSize: number
  /** Key generations in flight at most (each has its own session). */
  concurrency: number
  /** How often an available token is checked while idle (ms; 0: only when used). */
  checkMs: number
  /** The clock of the retries, the checks and the timeouts (compose.ts's). */
  clock: Clock
  /** Told when the signer becomes unavailable or available again (logs, issues). */
  onChange?: (problem: SignerProblem | undefined) => void
}

/** Why a signer cannot sign now: an AppError label and its arguments (never the PIN). */
export interface SignerProblem {
  label: 'sys-signer-unavailable' | 'sys-signer-login' | 'sys-signer-slow'
  args: Record<string, string>
  since: string
}

interface P11Key {
  priv: Handle
  spki: Uint8Array
  epoch: number
}

class P11SigningKey implements OneOffKey {
  readonly ski: Uint8Array
  constructor(readonly keyId: KeyId, readonly spki: Uint8Array, private readonly signer: Pkcs11Signer, private handle: P11Key | undefined, private readonly oneOff: boolean) {
    this.ski = keyIdentifier(spki)
  }

  sign(data: Uint8Array): Uint8Array {
    if (this.oneOff && this.handle === undefined) throw new Error(`key ${this.keyId} was destroyed`)
    return this.signer.signWith(this.keyId, data, this.oneOff ? this.handle : undefined)
  }

  destroy(): void {
    const h = this.handle
    this.handle = undefined
    if (h) this.signer.destroyOneOff(h)
  }

  toJSON(): { keyId: KeyId } {
    return { keyId: this.keyId }
  }

  [inspect.custom](): string {
    return `SigningKey(${this.keyId}, PKCS#11)`
  }
}

export class Pkcs11Signer implements Signer {
  readonly name: string
  readonly #o: Pkcs11SignerOptions
  #token: Token | undefined
  #epoch = 0
  #problem: SignerProblem | undefined
  #retryMs: number
  #timer: TimerHandle | undefined
  #stopped = false
  /** When an operation was last slow (ms): the idle check clears sys-signer-slow only a check interval after it. */
  #slowAt = 0
  readonly #keys = new Map<KeyId, P11Key>()
  readonly #pool: KeyPool<P11Key>
  readonly counts = { sign: 0, signErrors: 0, keygen: 0, keygenErrors: 0 }

  constructor(o: Pkcs11SignerOptions) {
    this.name = o.name
    this.#o = o
    this.#retryMs = o.retry.firstMs
    this.#pool = new KeyPool<P11Key>({ size: o.oneOffPoolSize, concurrency: o.concurrency, generate: () => this.generate(false), discard: (k) => this.destroyOneOff(k) })
  }

  /** Open the token now; when it cannot be opened, the signer starts unavailable and keeps trying. */
  start(): void {
    this.#stopped = false
    this.connect()
  }

  /** Start keeping one-off keys ready (after svcd listens). */
  startPool(): void {
    this.#pool.start()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#o.clock.clear(this.#timer)
    await this.#pool.stop()
    this.#token?.close()
    this.#token = undefined
  }

  /** The handle stored in the token (undefined until it was opened once). */
  get handle(): string | undefined {
    return this.#token?.handle
  }

  /** The token's label and serial, for `svcc signers` and the signers table. */
  info(): { token_label?: string; serial?: string } {
    return this.#token ? { token_label: this.#token.tokenLabel, serial: this.#token.serial } : {}
  }

  /** Undefined while the signer can sign. */
  problem(): SignerProblem | undefined {
    return this.#problem
  }

  async createKey(_opts?: CreateKeyOptions): Promise<KeyId> {
    const k = await this.generate(true)
    const keyId = keyIdHex(keyIdentifier(k.spki))
    this.#keys.set(keyId, k)
    return keyId
  }

  signingKey(keyId: KeyId): SigningKey {
    const k = this.lookup(keyId)
    if (!k) throw new UnknownKeyError(keyId)
    return new P11SigningKey(keyId, k.spki, this, undefined, false)
  }

  hasKey(keyId: KeyId): boolean {
    try {
      return this.lookup(keyId) !== undefined
    } catch {
      return false
    }
  }

  destroyKey(keyId: KeyId): void {
    const token = this.usable()
    for (const h of findObjects(token.lib, token.session, [{ type: pkcs11().CKA_ID, value: keyIdBytes(keyId) }])) token.lib.C_DestroyObject(token.session, h)
    this.#keys.delete(keyId)
  }

  async oneOffKey(): Promise<OneOffKey> {
    this.usable()
    let k = await this.#pool.take()
    while (k.epoch !== this.#epoch) k = await this.#pool.take() // made before the token was opened again: gone
    return new P11SigningKey(keyIdHex(keyIdentifier(k.spki)), k.spki, this, k, true)
  }

  poolStats(): ReturnType<KeyPool['stats']> {
    return this.#pool.stats()
  }

  /** Sign in the token with a persistent key (found by KeyId) or a one-off key (its handle). */
  signWith(keyId: KeyId, data: Uint8Array, oneOff: P11Key | undefined): Uint8Array {
    const token = this.usable()
    const P = pkcs11()
    const key = oneOff ?? this.lookup(keyId)
    if (!key) throw new UnknownKeyError(keyId)
    if (key.epoch !== this.#epoch) throw this.fail(new TokenError('sys-signer-unavailable', 'CKR_SESSION_CLOSED', `key ${keyId} belongs to a session that was closed`), false)
    const started = performance.now()
    try {
      token.lib.C_SignInit(token.session, { mechanism: P.CKM_SHA256_RSA_PKCS }, key.priv)
      const sig = token.lib.C_Sign(token.session, Buffer.from(data.buffer, data.byteOffset, data.byteLength), Buffer.alloc(512))
      this.counts.sign++
      this.timed('C_Sign', started)
      return new Uint8Array(sig)
    } catch (e) {
      this.counts.signErrors++
      throw this.fail(tokenError('C_Sign', e), true)
    }
  }

  destroyOneOff(k: P11Key): void {
    if (k.epoch !== this.#epoch || !this.#token) return
    try {
      this.#token.lib.C_DestroyObject(this.#token.session, k.priv)
    } catch {
      // a session object goes with its session anyway
    }
  }

  /** A key pair made in the token: persistent (token objects) or one-off (session objects of the signing session). */
  private async generate(persistent: boolean): Promise<P11Key> {
    const token = this.usable()
    const P = pkcs11()
    const epoch = this.#epoch
    const tmpId = randomBytes(20)
    const common = [{ type: P.CKA_TOKEN, value: persistent }, { type: P.CKA_ID, value: tmpId }]
    const pub: P.Template = [...common, { type: P.CKA_MODULUS_BITS, value: 2048 }, { type: P.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) }, { type: P.CKA_VERIFY, value: true }, { type: P.CKA_PRIVATE, value: false }]
    const priv: P.Template = [...common, { type: P.CKA_PRIVATE, value: true }, { type: P.CKA_SENSITIVE, value: true }, { type: P.CKA_EXTRACTABLE, value: false }, { type: P.CKA_SIGN, value: true }]
    // Generation runs on a thread of its own, in a session of its own; the generation sessions stay open until the token
    // is closed, so the one-off keys (session objects) made in them live until then or until destroyed.
    const session = token.takeGenSession()
    const started = performance.now()
    let keys: P.KeyPair
    try {
      keys = await withTimeout(this.#o.clock, token.lib.C_GenerateKeyPairAsync(session, { mechanism: P.CKM_RSA_PKCS_KEY_PAIR_GEN }, pub, priv), this.#o.slowMs * 10, 'C_GenerateKeyPair')
    } catch (e) {
      this.counts.keygenErrors++
      token.giveGenSession(session)
      throw this.fail(e instanceof SlowError ? e : tokenError('C_GenerateKeyPair', e), !(e instanceof SlowError))
    }
    token.giveGenSession(session)
    this.timed('C_GenerateKeyPair', started, this.#o.slowMs * KEYGEN_SLOW_FACTOR)
    if (epoch !== this.#epoch) throw new AppError('sys-signer-unavailable', { signer: this.name, reason: 'the token was opened again during key generation' })
    try {
      const [mod, exp] = token.lib.C_GetAttributeValue(token.session, keys.publicKey, [{ type: P.CKA_MODULUS }, { type: P.CKA_PUBLIC_EXPONENT }])
      const spki = rsaSpki(mod.value as Buffer, exp.value as Buffer)
      const ski = keyIdentifier(spki)
      if (persistent) {
        const named = [{ type: P.CKA_ID, value: Buffer.from(ski) }, { type: P.CKA_LABEL, value: keyIdHex(ski) }]
        token.lib.C_SetAttributeValue(token.session, keys.privateKey, named)
        token.lib.C_SetAttributeValue(token.session, keys.publicKey, named)
      } else {
        token.lib.C_DestroyObject(token.session, keys.publicKey)
      }
      this.counts.keygen++
      return { priv: keys.privateKey, spki, epoch }
    } catch (e) {
      this.counts.keygenErrors++
      throw this.fail(tokenError('C_GetAttributeValue', e), true)
    }
  }

  /** The persistent key `keyId` (cached handle and SPKI), or undefined when the token does not hold it. */
  private lookup(keyId: KeyId): P11Key | undefined {
    const cached = this.#keys.get(keyId)
    if (cached && cached.epoch === this.#epoch) return cached
    if (!isKeyId(keyId)) return undefined
    const token = this.usable()
    const P = pkcs11()
    try {
      const id = keyIdBytes(keyId)
      const [priv] = findObjects(token.lib, token.session, [{ type: P.CKA_CLASS, value: P.CKO_PRIVATE_KEY }, { type: P.CKA_ID, value: id }])
      const [pub] = findObjects(token.lib, token.session, [{ type: P.CKA_CLASS, value: P.CKO_PUBLIC_KEY }, { type: P.CKA_ID, value: id }])
      if (!priv || !pub) {
        // A token that went away finds nothing at all: tell that from a key it does not hold.
        if (!token.alive()) throw new TokenError('sys-signer-unavailable', 'CKR_TOKEN_NOT_PRESENT', 'the token no longer answers')
        return undefined
      }
      const [mod, exp] = token.lib.C_GetAttributeValue(token.session, pub, [{ type: P.CKA_MODULUS }, { type: P.CKA_PUBLIC_EXPONENT }])
      const k = { priv, spki: rsaSpki(mod.value as Buffer, exp.value as Buffer), epoch: this.#epoch }
      this.#keys.set(keyId, k)
      return k
    } catch (e) {
      throw this.fail(tokenError('C_FindObjects', e), true)
    }
  }

  /** The open token (slow or not), or the AppError of why there is none. */
  private usable(): Token {
    if (this.#token && (!this.#problem || this.#problem.label === 'sys-signer-slow')) return this.#token
    throw this.appError(this.#problem ?? { label: 'sys-signer-unavailable', args: { signer: this.name, reason: 'the token is not open' }, since: this.#o.clock.date().toISOString() })
  }

  /** Record the failure; when the token may be gone (`check`), find out, and if so close it and try again later. */
  private fail(e: TokenError | SlowError | AppError, check: boolean): AppError {
    if (e instanceof AppError) return e
    if (e instanceof SlowError) {
      this.#slowAt = this.#o.clock.now()
      this.setProblem({ label: 'sys-signer-slow', args: { signer: this.name, operation: e.operation, ms: String(e.ms) } })
      return this.appError(this.#problem!)
    }
    if (check && e.label === 'sys-signer-unavailable' && this.#token?.alive()) {
      // The token answers: this one operation failed (a stale handle, a bad input); the signer stays available.
      return new AppError('sys-signer', { reason: `${this.name}: ${e.message}` })
    }
    this.down(e)
    return this.appError(this.#problem!)
  }

  private down(e: TokenError): void {
    this.#token?.close()
    this.#token = undefined
    this.#epoch++
    this.#keys.clear()
    this.#pool.drop()
    this.setProblem({ label: e.label, args: { signer: this.name, reason: e.message } })
    this.schedule(this.#retryMs)
    this.#retryMs = Math.min(this.#o.retry.maxMs, Math.round(this.#retryMs * this.#o.retry.multiplier))
  }

  private connect(): void {
    this.#o.clock.clear(this.#timer)
    if (this.#stopped) return
    try {
      this.#token = Token.open(this.#o)
      this.#epoch++
      this.#retryMs = this.#o.retry.firstMs
      this.setProblem(undefined)
      this.#pool.drop()
      if (this.#o.checkMs > 0) this.schedule(this.#o.checkMs)
    } catch (e) {
      this.down(e instanceof TokenError ? e : tokenError('open', e))
    }
  }

  /** The next attempt (unavailable) or check (available); an idle token that stopped answering is noticed here. */
  private schedule(ms: number): void {
    this.#o.clock.clear(this.#timer)
    if (this.#stopped) return
    this.#timer = this.#o.clock.setTimeout(() => {
      if (!this.#token) return this.connect()
      if (!this.#token.alive()) return this.down(new TokenError('sys-signer-unavailable', 'CKR_TOKEN_NOT_PRESENT', 'the token no longer answers'))
      if (this.#problem?.label === 'sys-signer-slow' && this.#o.clock.now() - this.#slowAt >= this.#o.checkMs) this.setProblem(undefined)
      this.schedule(this.#o.checkMs)
    }, ms, { background: true })
  }

  private timed(operation: string, started: number, slowMs = this.#o.slowMs): void {
    const ms = performance.now() - started
    if (ms > slowMs) this.#slowAt = this.#o.clock.now()
    if (ms > slowMs) this.setProblem({ label: 'sys-signer-slow', args: { signer: this.name, operation, ms: String(slowMs) } })
    else if (this.#problem?.label === 'sys-signer-slow' && this.#problem.args.operation === operation) this.setProblem(undefined)
  }

  private setProblem(p: Omit<SignerProblem, 'since'> | undefined): void {
    const before = this.#problem
    if (p && before && before.label === p.label && before.args.reason === p.args.reason) return
    this.#problem = p ? { ...p, since: before?.since ?? this.#o.clock.date().toISOString() } : undefined
    if ((before === undefined) !== (p === undefined) || before?.label !== p?.label) this.#o.onChange?.(this.#problem)
  }

  private appError(p: SignerProblem): AppError {
    return new AppError(p.label, p.args)
  }

  [inspect.custom](): string {
    return `Pkcs11Signer(${this.name})`
  }
}

/**
 * RSA-2048 key generation is a prime search: in SoftHSM2 ~0.3–1 s idle and several seconds on a loaded machine, on
 * hardware often seconds. It is slow only above slow_ms × 5 (a signature above slow_ms); it times out at slow_ms × 10.
 */
const KEYGEN_SLOW_FACTOR = 5

class SlowError extends Error {
  constructor(readonly operation: string, readonly ms: number) {
    super(`${operation} took more than ${ms} ms`)
  }
}

function withTimeout<T>(clock: Clock, p: Promise<T>, ms: number, operation: string): Promise<T> {
  let timer: TimerHandle | undefined
  return Promise.race([p, new Promise<never>((_, reject) => { timer = clock.setTimeout(() => reject(new SlowError(operation, ms)), ms, { background: true }) })]).finally(() => clock.clear(timer))
}

/** The SubjectPublicKeyInfo DER of an RSA public key given by its modulus and exponent (big-endian bytes). */
export function rsaSpki(modulus: Buffer, exponent: Buffer): Uint8Array {
  const key = createPublicKey({ key: { kty: 'RSA', n: modulus.toString('base64url'), e: exponent.toString('base64url') }, format: 'jwk' })
  return new Uint8Array(key.export({ type: 'spki', format: 'der' }))
}

function keyIdBytes(keyId: KeyId): Buffer {
  if (!isKeyId(keyId)) throw new RangeError(`key id ${JSON.stringify(keyId)} is not 40 uppercase hex digits`)
  return Buffer.from(keyId, 'hex')
}
