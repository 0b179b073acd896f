/**
 * KeyPool: RSA-2048 key pairs generated asynchronously in the background (design.md; rpki-encoding.md §5: keygen
 * costs ~150 ms, so a ROA or manifest must never wait for a prime search). Used by soft-signer.ts for one-off EE
 * keys and new persistent keys. No timers: stop() awaits the generations in flight, so a process can exit.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto'
import { availableParallelism } from 'node:os'

/** A generated key pair; `spki` is the SubjectPublicKeyInfo DER, exported once at generation time. */
export interface KeyPair {
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  readonly spki: Uint8Array
}

export interface KeyPoolOptions<T = KeyPair> {
  /** Keys kept ready once started (default 32). */
  size?: number
  /** Generations in flight at most (default os.availableParallelism()). */
  concurrency?: number
  /** Called with every generation failure (the pool keeps going). */
  onError?: (err: unknown) => void
  /** The key generator (default: RSA-2048, e = 65537 in node:crypto); a PKCS#11 signer passes its token's. */
  generate?: () => Promise<T>
  /** Called with each ready key dropped by stop() (a token's session key is destroyed there). */
  discard?: (key: T) => void
}

export interface KeyPoolStats {
  size: number
  concurrency: number
  running: boolean
  ready: number
  inFlight: number
  waiting: number
  generated: number
  taken: number
  failed: number
}

/** RSA-2048 (e = 65537) through the libuv threadpool. */
export function generateRsaKeyPair(): Promise<KeyPair> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 65537 }, (err, publicKey, privateKey) => {
      if (err) reject(err)
      else resolve({ privateKey, publicKey, spki: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })) })
    })
  })
}

interface Waiter<T> {
  resolve(k: T): void
  reject(e: unknown): void
}

export class KeyPool<T = KeyPair> {
  readonly size: number
  readonly concurrency: number
  onError: (err: unknown) => void
  private readonly generate: () => Promise<T>
  private readonly discard: (key: T) => void
  private readonly ready: T[] = []
  private readonly waiters: Waiter<T>[] = []
  private readonly inFlight = new Set<Promise<void>>()
  private state: 'idle' | 'running' | 'stopped' = 'idle'
  private refillPending = false
  private counts = { generated: 0, taken: 0, failed: 0 }

  constructor(opts: KeyPoolOptions<T> = {}) {
    this.size = opts.size ?? 32
    this.concurrency = opts.concurrency ?? availableParallelism()
    if (!(this.size >= 0) || !(this.concurrency >= 1)) throw new RangeError('key pool size must be ≥ 0 and concurrency ≥ 1')
    this.onError = opts.onError ?? (() => {})
    this.generate = opts.generate ?? (generateRsaKeyPair as unknown as () => Promise<T>)
    this.discard = opts.discard ?? (() => {})
  }

  /** Start filling the pool up to `size` and keep it filled. Before start() keys are made on demand only. */
  start(): void {
    this.state = 'running'
    this.pump()
  }

  /** Stop refilling, reject waiting takers, await the generations in flight and drop the ready keys. */
  async stop(): Promise<void> {
    this.state = 'stopped'
    for (const w of this.waiters.splice(0)) w.reject(new Error('key pool stopped'))
    await Promise.all([...this.inFlight])
    this.drop()
  }

  /** Drop the ready keys (a token that reconnected closed the sessions they lived in); the pool refills. */
  drop(): void {
    for (const k of this.ready.splice(0)) {
      try {
        this.discard(k)
      } catch {
        // A key that cannot be discarded is gone with its session anyway.
      }
    }
    this.pump()
  }

  /** A ready key at once, else the next one generated. Rejects after stop(). */
  take(): Promise<T> {
    const k = this.tryTake()
    if (k !== undefined) return Promise.resolve(k)
    if (this.state === 'stopped') return Promise.reject(new Error('key pool stopped'))
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject })
      this.pump()
    })
  }

  /** A ready key, or undefined when none is ready (never waits). */
  tryTake(): T | undefined {
    const k = this.ready.pop()
    if (k !== undefined) {
      this.counts.taken++
      this.scheduleRefill()
    }
    return k
  }

  /** `n` keys (ready ones first). */
  takeMany(n: number): Promise<T[]> {
    return Promise.all(Array.from({ length: n }, () => this.take()))
  }

  stats(): KeyPoolStats {
    return {
      size: this.size, concurrency: this.concurrency, running: this.state === 'running', ready: this.ready.length,
      inFlight: this.inFlight.size, waiting: this.waiters.length, ...this.counts,
    }
  }

  /** Refill on the next turn of the event loop, so that taking a ready key never pays for starting a keygen. */
  private scheduleRefill(): void {
    if (this.refillPending || this.state !== 'running') return
    this.refillPending = true
    setImmediate(() => {
      this.refillPending = false
      this.pump()
    })
  }

  /** Launch generations while below concurrency and below demand (the reserve when running, plus waiters). */
  private pump(): void {
    if (this.state === 'stopped') return
    const target = (this.state === 'running' ? this.size : 0) + this.waiters.length
    while (this.inFlight.size < this.concurrency && this.ready.length + this.inFlight.size < target) this.launch()
  }

  private launch(): void {
    const p: Promise<void> = this.generate().then(
      (k) => {
        this.inFlight.delete(p)
        this.deliver(k)
        this.pump()
      },
      (err) => {
        // No retry from here (a failing generator must not spin): the next take() or success pumps again.
        this.inFlight.delete(p)
        this.counts.failed++
        this.waiters.shift()?.reject(err)
        try {
          this.onError(err)
        } catch {
          // A throwing hook must not become an unhandled rejection of a promise nobody awaits.
        }
      },
    )
    this.inFlight.add(p)
  }

  private deliver(k: T): void {
    this.counts.generated++
    if (this.state === 'stopped') {
      try {
        this.discard(k)
      } catch {
        // as in drop()
      }
      return
    }
    const w = this.waiters.shift()
    if (w === undefined) this.ready.push(k)
    else {
      this.counts.taken++
      w.resolve(k)
    }
  }
}
