/** KeyPool: warm takes never wait, refill in the background, bounded concurrency, stop() leaves nothing behind. */
import { createPublicKey } from 'node:crypto'
import t from 'tap'
import { generateRsaKeyPair, KeyPool, type KeyPair } from '../../../src/crypto/key-pool.js'

let real: KeyPair
t.before(async () => {
  real = await generateRsaKeyPair()
})

/** A generator whose generations finish only when the test says so. */
function controlled() {
  const pending: { resolve: (k: KeyPair) => void; reject: (e: unknown) => void }[] = []
  let running = 0, maxRunning = 0
  const generate = () => new Promise<KeyPair>((resolve, reject) => {
    running++
    maxRunning = Math.max(maxRunning, running)
    pending.push({ resolve: (k) => { running--; resolve(k) }, reject: (e) => { running--; reject(e) } })
  })
  return {
    generate, pending,
    get maxRunning() { return maxRunning },
    finishAll: async () => { while (pending.length) { pending.shift()!.resolve(real); await tick() } },
  }
}
const tick = () => new Promise((r) => setImmediate(r))

t.test('generateRsaKeyPair: RSA-2048, e = 65537, SPKI exported', async (t) => {
  const d = real.publicKey.asymmetricKeyDetails!
  t.equal(d.modulusLength, 2048)
  t.equal(d.publicExponent, 65537n)
  t.same(new Uint8Array(createPublicKey(real.privateKey).export({ type: 'spki', format: 'der' })), real.spki)
})

t.test('fills to size with bounded concurrency, then stops generating', async (t) => {
  const g = controlled()
  const pool = new KeyPool({ size: 5, concurrency: 2, generate: g.generate })
  t.equal(g.pending.length, 0, 'nothing before start()')
  pool.start()
  t.equal(pool.stats().inFlight, 2)
  await g.finishAll()
  t.equal(g.maxRunning, 2, 'never more than concurrency in flight')
  t.match(pool.stats(), { size: 5, ready: 5, inFlight: 0, generated: 5, running: true })
  await pool.stop()
  t.equal(pool.stats().ready, 0, 'stop() drops ready keys')
})

t.test('take() from a warm pool does not wait; taking refills', async (t) => {
  const g = controlled()
  const pool = new KeyPool({ size: 3, concurrency: 1, generate: g.generate })
  pool.start()
  await g.finishAll()
  let got: KeyPair | undefined
  void pool.take().then((k) => { got = k })
  await Promise.resolve()
  t.equal(got, real, 'resolved within a microtask')
  t.equal(pool.stats().ready, 2)
  t.equal(pool.stats().inFlight, 0, 'taking does not pay for starting a keygen')
  await tick()
  t.equal(pool.stats().inFlight, 1, 'refill started on the next turn')
  t.ok(pool.tryTake())
  t.ok(pool.tryTake())
  t.equal(pool.tryTake(), undefined, 'tryTake never waits')
  const many = pool.takeMany(3)
  await g.finishAll()
  t.equal((await many).length, 3)
  t.match(pool.stats(), { taken: 6, waiting: 0 })
  await pool.stop()
})

t.test('before start(): keys on demand only', async (t) => {
  const g = controlled()
  const pool = new KeyPool({ size: 10, concurrency: 4, generate: g.generate })
  const p = pool.takeMany(2)
  t.equal(pool.stats().inFlight, 2, 'only as many as asked for')
  await g.finishAll()
  t.equal((await p).length, 2)
  t.equal(pool.stats().ready, 0)
  await pool.stop()
})

t.test('stop() rejects waiters, awaits in-flight work, refuses later takes', async (t) => {
  const g = controlled()
  const pool = new KeyPool({ size: 2, concurrency: 2, generate: g.generate })
  pool.start()
  const waiting = [pool.take(), pool.take(), pool.take()]
  t.equal(pool.stats().waiting, 3)
  let stopped = false
  const stopping = pool.stop().then(() => { stopped = true })
  for (const w of waiting) await t.rejects(w, /stopped/)
  await tick()
  t.notOk(stopped, 'stop() waits for generations in flight')
  await g.finishAll()
  await stopping
  t.ok(stopped)
  t.equal(pool.stats().ready, 0, 'keys finished after stop are dropped')
  await t.rejects(pool.take(), /stopped/)
})

t.test('generation errors go to onError and to one waiter; no retry storm', async (t) => {
  const errors: unknown[] = []
  let calls = 0
  const pool = new KeyPool({
    size: 4, concurrency: 2, onError: (e) => errors.push(e),
    generate: () => { calls++; return Promise.reject(new Error('no entropy')) },
  })
  await t.rejects(pool.take(), /no entropy/)
  t.equal(errors.length, 1)
  pool.start()
  await tick()
  await tick()
  t.equal(calls, 3, 'a failing generator is not retried in a loop')
  t.equal(pool.stats().failed, 3)
  pool.onError = () => { throw new Error('hook bug') }
  await t.rejects(pool.take(), /no entropy/, 'a throwing hook is contained')
  await pool.stop()
})

t.test('real keys through the pool', async (t) => {
  const pool = new KeyPool({ size: 1, concurrency: 1 })
  pool.start()
  const k = await pool.take()
  t.equal(k.publicKey.asymmetricKeyDetails?.modulusLength, 2048)
  await pool.stop()
  t.equal(pool.stats().inFlight, 0, 'nothing in flight after stop(): the process can exit')
})

t.test('options are checked', async (t) => {
  t.throws(() => new KeyPool({ concurrency: 0 }), RangeError)
  t.throws(() => new KeyPool({ size: -1 }), RangeError)
  t.ok(new KeyPool().concurrency >= 1)
  t.equal(new KeyPool().size, 32)
})
