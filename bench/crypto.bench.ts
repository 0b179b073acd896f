/**
 * Crypto and ASN.1 benchmark (design.md §5 "Benchmarks"): raw RSA-2048 keygen vs the KeyPool at the same
 * concurrency, warm-pool take latency, sync signing, key identifiers, and the strict DER reader on a real ROA.
 * Run: node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/crypto.bench.ts  (BENCH_KEYS=n)
 */
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { int, octetString, oid, seq, setOf, utcTime } from '../src/asn1/der.js'
import {
  checkDer, cursor, type DerNode, expectSequence, firstChild, oidIs, parseDer, parseEmbedded, readBitString,
  readInt, readOctetString, readOid, readX509Time,
} from '../src/asn1/der-reader.js'
import { idPeIpAddrBlocks } from '../src/asn1/oids.js'
import { decodeIpAddrBlocks } from '../src/asn1/rfc3779.js'
import { keyIdentifier } from '../src/crypto/key-id.js'
import { generateRsaKeyPair, KeyPool } from '../src/crypto/key-pool.js'
import { MemoryKeyStore, SoftSigner } from '../src/crypto/soft-signer.js'

const KEYS = Number(process.env.BENCH_KEYS ?? 24)
const CORES = availableParallelism()
const ROA = '../shared/fixtures/objects/krill-localhost-chain/localhost/repo/benchmark-0/0/AS64512.roa'

function line(name: string, value: string): void {
  console.log(`${name.padEnd(58)} ${value}`)
}

/** Run `fn` repeatedly for about `ms` milliseconds; ops per second. */
function rate(fn: () => unknown, ms = 1000): number {
  for (let i = 0; i < 200; i++) fn()
  let n = 0
  const t0 = performance.now()
  let t = t0
  while (t - t0 < ms) {
    for (let i = 0; i < 100; i++) fn()
    n += 100
    t = performance.now()
  }
  return (n * 1000) / (t - t0)
}

/** `n` generateKeyPair calls with `concurrency` in flight; keys per second. */
async function rawKeygen(n: number, concurrency: number): Promise<number> {
  let started = 0
  const t0 = performance.now()
  const worker = async () => {
    while (started < n) {
      started++
      await generateRsaKeyPair()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return (n * 1000) / (performance.now() - t0)
}

async function poolKeygen(n: number, concurrency: number): Promise<number> {
  const pool = new KeyPool({ size: 0, concurrency })
  const t0 = performance.now()
  await pool.takeMany(n)
  const r = (n * 1000) / (performance.now() - t0)
  await pool.stop()
  return r
}

/** Median and maximum latency of `await pool.take()` (and of tryTake) on a pool that holds enough keys. */
async function warmTake(): Promise<{ median: number; max: number; tryTake: number }> {
  const pool = new KeyPool({ size: 24, concurrency: CORES })
  pool.start()
  while (pool.stats().ready < 24) await new Promise((r) => setTimeout(r, 20))
  const us: number[] = []
  for (let i = 0; i < 16; i++) {
    const t0 = performance.now()
    await pool.take()
    us.push((performance.now() - t0) * 1000)
    await new Promise((r) => setImmediate(r))
  }
  us.sort((a, b) => a - b)
  const t1 = performance.now()
  for (let i = 0; i < 8; i++) pool.tryTake()
  const tryTake = ((performance.now() - t1) * 1000) / 8
  await pool.stop()
  return { median: us[us.length >> 1], max: us[us.length - 1], tryTake }
}

/** The EE certificate fields a ROA decoder visits: TBS fields, validity, SPKI, extensions (IP decoded). */
function walkEeCert(cert: DerNode): number {
  const tbs = expectSequence(firstChild(cert), 'x')
  tbs.optional(0xa0)
  tbs.next('x', 0x02), tbs.next('x', 0x30), tbs.next('x', 0x30)
  const validity = cursor(tbs.next('x', 0x30))
  readX509Time(validity.next('x')), readX509Time(validity.next('x'))
  tbs.next('x', 0x30)
  const spki = cursor(tbs.next('x', 0x30))
  spki.next('x'), readBitString(spki.next('x', 0x03))
  let exts = 0
  for (const e of cursor(firstChild(tbs.next('x', 0xa3))!).rest()) {
    const c = cursor(e)
    const id = c.next('x', 0x06)
    c.optional(0x01)
    const value = readOctetString(c.next('x', 0x04))
    if (oidIs(id, idPeIpAddrBlocks)) exts += decodeIpAddrBlocks(value).problems.length
    else readOid(id)
    exts++
  }
  return exts
}

/** RouteOriginAttestation (RFC 9582): asID, then each family and address. */
function walkRoaContent(content: DerNode): void {
  const roa = expectSequence(content, 'x')
  let n: DerNode = roa.next('x')
  if (n.tag === 0xa0) n = roa.next('x')
  readInt(n)
  for (const fam of cursor(roa.next('x', 0x30)).rest()) {
    const f = cursor(fam)
    readOctetString(f.next('x', 0x04))
    for (const a of cursor(f.next('x', 0x30)).rest()) {
      const r = cursor(a)
      readBitString(r.next('x', 0x03))
      const max = r.optional(0x02)
      if (max) readInt(max)
    }
  }
}

/** The fields a ROA decoder visits: CMS envelope, EE certificate, eContent. */
function walkRoa(bytes: Uint8Array): number {
  const ci = expectSequence(parseDer(bytes), 'RFC 5652 §3')
  if (!oidIs(ci.next('x', 0x06), '1.2.840.113549.1.7.2')) throw new Error('not signed data')
  const sd = expectSequence(firstChild(ci.next('x', 0xa0)), 'RFC 5652 §5.1')
  readInt(sd.next('x', 0x02))
  sd.next('x', 0x31)
  const eci = expectSequence(sd.next('x', 0x30), 'x')
  readOid(eci.next('x', 0x06))
  const content = parseEmbedded(firstChild(eci.next('x', 0xa0))!)
  const exts = walkEeCert(firstChild(sd.next('x', 0xa0))!)
  walkRoaContent(content)
  return exts
}

export async function run(): Promise<void> {
  console.log(`svc crypto bench: node ${process.version}, ${CORES} cores, ${KEYS} keys per keygen run`)
  // Keygen time varies a lot (prime search, other load): interleave raw and pool rounds, compare the totals.
  let rawMs = 0, poolMs = 0
  const per = Math.max(2, Math.round(KEYS / 3))
  for (let round = 0; round < 3; round++) {
    rawMs += (per * 1000) / (await rawKeygen(per, CORES))
    poolMs += (per * 1000) / (await poolKeygen(per, CORES))
  }
  const raw = (3 * per * 1000) / rawMs, pooled = (3 * per * 1000) / poolMs
  line(`RSA-2048 generateKeyPair, concurrency ${CORES} (raw)`, `${raw.toFixed(1)} keys/s`)
  line(`KeyPool, concurrency ${CORES}`, `${pooled.toFixed(1)} keys/s (${((pooled / raw) * 100).toFixed(0)} % of raw)`)
  const warm = await warmTake()
  line('await take() from a warm pool (median / max of 16)', `${warm.median.toFixed(1)} / ${warm.max.toFixed(1)} µs (tryTake ${warm.tryTake.toFixed(2)} µs)`)

  const store = new MemoryKeyStore()
  const pool = new KeyPool({ size: 0, concurrency: 1 })
  const signer = new SoftSigner(store, pool)
  const key = signer.signingKey(await signer.createKey())
  const data = new Uint8Array(900).fill(7)
  line('SigningKey.sign (sync, SHA-256, 900 B)', `${rate(() => key.sign(data), 2000).toFixed(0)} ops/s`)
  line('keyIdentifier(spki)', `${rate(() => keyIdentifier(key.spki)).toFixed(0)} ops/s`)
  await pool.stop()

  const attrs = () => setOf([seq(oid('1.2.840.113549.1.9.3'), setOf([oid('1.2.840.113549.1.9.16.1.24')])),
    seq(oid('1.2.840.113549.1.9.5'), setOf([utcTime(new Date())])), seq(oid('1.2.840.113549.1.9.4'), setOf([octetString(data.subarray(0, 32))]))])
  line('DER writer: CMS signed attributes (3, sorted)', `${rate(attrs).toFixed(0)} ops/s`)
  line('DER writer: int(2n ** 158n + 12345n)', `${rate(() => int(2n ** 158n + 12345n)).toFixed(0)} ops/s`)
  let roa: Uint8Array | undefined
  try {
    roa = new Uint8Array(readFileSync(ROA))
  } catch {
    line('strict DER reader on a ROA', `skipped (${ROA} not found)`)
  }
  if (roa) {
    const bytes = roa
    line(`strict reader: ROA fields walk (${bytes.length} B)`, `${rate(() => walkRoa(bytes), 2000).toFixed(0)} ROAs/s`)
    line('strict reader: checkDer of the whole ROA', `${rate(() => checkDer(parseDer(bytes))).toFixed(0)} ROAs/s`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run()
