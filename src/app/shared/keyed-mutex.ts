import type { SharedLocks } from '../../store/interfaces.js'

/**
 * One async critical section per key (per CA): commands on one CA run one at a time, different CAs in parallel. With
 * `shared` (several instances on one database), the section also holds the key's lock among the instances, taken
 * after this instance's turn came and given back before the next one's.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>()

  constructor(private readonly shared?: SharedLocks) {}

  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const mine = new Promise<void>((r) => (release = r))
    const tail = prev.then(() => mine)
    this.tails.set(key, tail)
    await prev
    try {
      if (!this.shared) return await fn()
      await this.shared.acquire(key)
      try {
        return await fn()
      } finally {
        await this.shared.release(key)
      }
    } finally {
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}
