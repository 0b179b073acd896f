/**
 * Signers benchmark (issue 25 item 2, `make bench BENCH=signers`): what keeping keys in an HSM costs, measured with
 * the software signer and with SoftHSM2 in the same run, both through the Signer interface:
 *  - key generation per second: SoftSigner.createKey on a pool of size 0 (every key generated on demand) vs
 *    Pkcs11Signer.createKey (a persistent RSA-2048 key pair made in the token), at the same concurrency;
 *  - signatures per second with a persistent key (RSA-2048, SHA-256, a 100-byte input);
 *  - the time of one one-off key take from each signer's warm pool (median over takes, the pool refilled between);
 *  - a 10-ROA change end to end (POST …/routes → the notification holding the new ROAs on disk, median of a few runs)
 *    against svcd in testbed mode with the CA keys in the software signer and in SoftHSM2 (two svcd runs; one-off EE
 *    keys stay in software in both, as by default).
 * Each figure is printed with the ratio HSM / software. The SoftHSM2 token is made in a temporary directory
 * (test/helpers/softhsm.ts) and removed at the end.
 */
import { availableParallelism } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { RoaJson } from '../src/api/cas.js'
import { KeyPool } from '../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../src/crypto/soft-signer.js'
import type { Signer } from '../src/crypto/signer.js'
import { Pkcs11Signer } from '../src/signers/pkcs11-signer.js'
import { systemClock } from '../src/clock.js'
import { softHsm } from '../test/helpers/softhsm.js'
import { addChildCa, startTestbed, timedRoaUpdate, waitCertified } from './cas.bench.js'
import { sleep } from './lib/daemon.js'
import { type BenchContext, median, ms, num } from './lib/report.js'

const CONCURRENCY = Math.min(2, availableParallelism())

function ratio(hsm: number, soft: number): string {
  return `HSM/software ${(hsm / soft).toFixed(2)}`
}

/** `n` createKey calls with CONCURRENCY in flight; keys per second. */
async function keygenRate(signer: Signer, n: number): Promise<number> {
  let started = 0
  const t0 = performance.now()
  const worker = async () => {
    while (started < n) {
      started++
      await signer.createKey()
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return (n * 1000) / (performance.now() - t0)
}

/** Signatures per second with the persistent key `keyId` over a 100-byte input, for about `msFor` ms. */
function signRate(signer: Signer, keyId: string, msFor = 1500): number {
  const key = signer.signingKey(keyId)
  const data = new Uint8Array(100).fill(7)
  for (let i = 0; i < 20; i++) key.sign(data)
  let n = 0
  const t0 = performance.now()
  while (performance.now() - t0 < msFor) {
    key.sign(data)
    n++
  }
  return (n * 1000) / (performance.now() - t0)
}

/** Median and max time of one oneOffKey() from a warm pool: wait until `ready()` reports it full before each take. */
async function warmTake(signer: Signer, full: () => boolean, takes = 8): Promise<{ median: number; max: number }> {
  const times: number[] = []
  for (let i = 0; i < takes; i++) {
    for (const end = performance.now() + 120_000; !full(); await sleep(20)) if (performance.now() > end) throw new Error('the pool did not fill in 2 min')
    const t0 = performance.now()
    const k = await signer.oneOffKey()
    times.push(performance.now() - t0)
    k.destroy()
  }
  return { median: median(times), max: Math.max(...times) }
}

/** Median time of a 10-ROA change (API call → notification on disk) against svcd with `top` in its config. */
async function tenRoas(ctx: BenchContext, label: string, top: string, runs: number): Promise<number> {
  const d = await startTestbed({ top })
  try {
    await addChildCa(d, 'hsm10', { asn: '', ipv4: '10.0.0.0/16', ipv6: '' })
    const jail = (await waitCertified(d, 'hsm10')).repo_info!.sia_base
    const adds: number[] = []
    for (let run = 0; run < runs; run++) {
      await d.idle({ windowMs: 500, maxShare: 0.05 })
      const roas: RoaJson[] = Array.from({ length: 10 }, (_, k) => ({ asn: 64512 + k, prefix: `10.0.${run * 10 + k}.0/24`, max_length: 24 }))
      const a = await timedRoaUpdate(d, 'hsm10', jail, { added: roas, removed: [] }, 10)
      adds.push(a.publishedMs)
      ctx.log(`  ${label} run ${run + 1}: add 10 ROAs → API answered ${ms(a.apiMs)}, notification on disk ${ms(a.publishedMs)}`)
    }
    return median(adds)
  } finally {
    await d.dispose()
  }
}

export async function runSignersBench(ctx: BenchContext): Promise<void> {
  const cleanups: (() => unknown)[] = []
  const hsm = softHsm({ teardown: (fn) => cleanups.push(fn) }, { label: 'svc-bench' })
  // The PKCS#11 library reads SOFTHSM2_CONF at C_Initialize; svcd started below inherits it.
  process.env.SOFTHSM2_CONF = hsm.conf
  const keys = ctx.quick ? 8 : 16
  const runs = ctx.quick ? 3 : 5
  const soft = new SoftSigner(new MemoryKeyStore(), new KeyPool({ size: 0, concurrency: CONCURRENCY }))
  const p11 = new Pkcs11Signer({
    name: 'hsm', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true,
    retry: { firstMs: 1000, multiplier: 2, maxMs: 60_000 }, slowMs: 10_000, oneOffPoolSize: 0, concurrency: CONCURRENCY, checkMs: 0, clock: systemClock,
  })
  p11.start()
  try {
    if (p11.problem()) throw new Error(`SoftHSM2 token: ${p11.problem()!.label} ${JSON.stringify(p11.problem()!.args)}`)
    ctx.log(`RSA-2048 through the Signer interface, concurrency ${CONCURRENCY}; SoftHSM2 ${hsm.lib}, token in ${hsm.tokenDir}`)

    const kSoft = await keygenRate(soft, keys)
    const kHsm = await keygenRate(p11, keys)
    ctx.log(`key generation (${keys} keys): software ${kSoft.toFixed(1)} keys/s, SoftHSM2 ${kHsm.toFixed(1)} keys/s (${ratio(kHsm, kSoft)})`)
    ctx.row('key generation, software signer (createKey, no pool)', kSoft, `${kSoft.toFixed(1)} keys/s`)
    ctx.row('key generation, SoftHSM2 (Pkcs11Signer.createKey)', kHsm, `${kHsm.toFixed(1)} keys/s`, undefined, { limit: ratio(kHsm, kSoft) })

    const sSoft = signRate(soft, await soft.createKey())
    const sHsm = signRate(p11, await p11.createKey())
    ctx.log(`signatures (100-byte input, SHA-256 RSA PKCS#1 v1.5): software ${num(sSoft)}/s, SoftHSM2 ${num(sHsm)}/s (${ratio(sHsm, sSoft)})`)
    ctx.row('signatures, software signer', sSoft, `${num(sSoft)}/s (${(1000 / sSoft).toFixed(2)} ms each)`)
    ctx.row('signatures, SoftHSM2 (C_Sign in the token)', sHsm, `${num(sHsm)}/s (${(1000 / sHsm).toFixed(2)} ms each)`, undefined, { limit: ratio(sHsm, sSoft) })
  } finally {
    await p11.stop()
  }

  // One-off keys from a warm pool: the software KeyPool (KeyPair objects) and the token's (session objects).
  const poolSize = 4
  const softPool = new KeyPool({ size: poolSize, concurrency: CONCURRENCY })
  const soft2 = new SoftSigner(new MemoryKeyStore(), softPool)
  softPool.start()
  const p11Pool = new Pkcs11Signer({
    name: 'hsm', libPath: hsm.lib, slot: hsm.label, userPin: hsm.pin, login: true,
    retry: { firstMs: 1000, multiplier: 2, maxMs: 60_000 }, slowMs: 10_000, oneOffPoolSize: poolSize, concurrency: CONCURRENCY, checkMs: 0, clock: systemClock,
  })
  p11Pool.start()
  p11Pool.startPool()
  try {
    const tSoft = await warmTake(soft2, () => softPool.stats().ready >= poolSize)
    const tHsm = await warmTake(p11Pool, () => p11Pool.poolStats().ready >= poolSize)
    ctx.log(`one-off key take from a warm pool (size ${poolSize}): software median ${(tSoft.median * 1000).toFixed(0)} µs (max ${(tSoft.max * 1000).toFixed(0)} µs), SoftHSM2 median ${(tHsm.median * 1000).toFixed(0)} µs (max ${(tHsm.max * 1000).toFixed(0)} µs) (${ratio(tHsm.median, tSoft.median)})`)
    ctx.row('one-off key take, warm pool, software (median)', tSoft.median, `${(tSoft.median * 1000).toFixed(0)} µs`)
    ctx.row('one-off key take, warm pool, SoftHSM2 (median)', tHsm.median, `${(tHsm.median * 1000).toFixed(0)} µs`, undefined, { limit: ratio(tHsm.median, tSoft.median) })
  } finally {
    await softPool.stop()
    await p11Pool.stop()
  }

  // A 10-ROA change end to end, CA keys in software and in SoftHSM2 (svcd opens the same token: a fresh process).
  try {
    const rSoft = await tenRoas(ctx, 'software', '', runs)
    const rHsm = await tenRoas(ctx, 'SoftHSM2', `default_signer = "hsm"\n${hsm.signerToml('hsm', 'slow_ms = 60000')}`, runs)
    ctx.log(`10-ROA change, API call → notification on disk (median of ${runs}): CA keys in software ${ms(rSoft)}, in SoftHSM2 ${ms(rHsm)} (${ratio(rHsm, rSoft)})`)
    ctx.row(`10-ROA change end to end, CA keys in software (median of ${runs})`, rSoft, ms(rSoft))
    ctx.row(`10-ROA change end to end, CA keys in SoftHSM2 (median of ${runs})`, rHsm, ms(rHsm), undefined, { limit: ratio(rHsm, rSoft) })
  } finally {
    for (const fn of cleanups.reverse()) await fn()
  }
}
