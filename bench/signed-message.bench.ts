/**
 * RFC 6492 / RFC 8181 CMS wrapper benchmark (design.md §5 "Benchmarks"): wrap/s with the MessageSigner's reused
 * short-lived EE key (signed-message.ts header), against a fresh one-off EE key per message (Krill's policy, keygen
 * at 2 in flight), and unwrap+verify/s of our messages and of a real Krill message.
 * Run: node --import=./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/signed-message.bench.ts  (BENCH_KEYS=n)
 */
import { createPrivateKey, createPublicKey, sign } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { keyIdentifier, keyIdHex } from '../src/crypto/key-id.js'
import { generateRsaKeyPair } from '../src/crypto/key-pool.js'
import type { SigningKey } from '../src/crypto/signer.js'
import { createIdCert } from '../src/protocol/id-cert.js'
import { MessageSigner, unwrapMessage, wrapMessage } from '../src/protocol/signed-message.js'

// The project root, whether run from bench/ or compiled to dist-bench/bench/ (make bench).
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist-bench/') ? '../..' : '..', import.meta.url))
const KEYS = Number(process.env.BENCH_KEYS ?? 12)
const NOW = new Date('2026-03-01T12:00:00Z')
const LIST = '<msg xmlns="http://www.hactrn.net/uris/rpki/publication-spec/" type="query" version="4"><list/></msg>'
const KRILL = `${ROOT}../shared/fixtures/rfc6492/cms/krill-list.der`
const KRILL_ID = `${ROOT}../shared/fixtures/rfc6492/cms/krill-ca1-bpki-id.cer`

function line(name: string, value: string): void {
  console.log(`${name.padEnd(58)} ${value}`)
}

function signingKey(privatePem: Buffer | string): SigningKey {
  const pk = createPrivateKey(privatePem)
  const spki = new Uint8Array(createPublicKey(pk).export({ type: 'spki', format: 'der' }))
  const ski = keyIdentifier(spki)
  return { keyId: keyIdHex(ski), ski, spki, sign: (d) => new Uint8Array(sign('sha256', d, pk)) }
}

/** Run `fn` repeatedly for about `ms` milliseconds; ops per second. */
function rate(fn: () => unknown, ms = 1500): number {
  for (let i = 0; i < 50; i++) fn()
  let n = 0
  const t0 = performance.now()
  let t = t0
  while (t - t0 < ms) {
    for (let i = 0; i < 20; i++) fn()
    n += 20
    t = performance.now()
  }
  return (n * 1000) / (t - t0)
}

/** Like rate(), awaiting each operation. */
async function asyncRate(fn: () => Promise<unknown>, ms = 1500): Promise<number> {
  for (let i = 0; i < 50; i++) await fn()
  let n = 0
  const t0 = performance.now()
  while (performance.now() - t0 < ms) {
    await fn()
    n++
  }
  return (n * 1000) / (performance.now() - t0)
}

function publishQuery(bytes: number): string {
  const body = 'QUFB'.repeat(Math.ceil(bytes / 4))
  return `<msg xmlns="http://www.hactrn.net/uris/rpki/publication-spec/" type="query" version="4"><publish uri="rsync://x/a.cer">${body}</publish></msg>`
}

/** Krill's policy: a new RSA key and EE certificate for every message, keygen with 2 in flight (the KeyPool default
 *  on 2 cores); messages per second, keygen included. */
async function oneOffRate(idKey: SigningKey, idCert: Uint8Array, n: number): Promise<number> {
  let done = 0
  const t0 = performance.now()
  const worker = async () => {
    while (done < n) {
      done++
      const pair = await generateRsaKeyPair()
      const s = new MessageSigner({ idKey, idCert })
      s.useEeKey(signingKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), NOW)
      wrapMessage(LIST, s, NOW)
    }
  }
  await Promise.all([worker(), worker()])
  return (n * 1000) / (performance.now() - t0)
}

export async function run(): Promise<void> {
  const idKey = signingKey(readFileSync(`${ROOT}fixtures/keys/bpki-id.pem`))
  const eeKey = signingKey(readFileSync(`${ROOT}fixtures/keys/bpki-ee.pem`))
  const idCert = createIdCert(idKey, new Date('2026-01-01T00:00:00Z'))
  const signer = new MessageSigner({ idKey, idCert, newEeKey: async () => eeKey })
  await signer.prepare(NOW)
  line('wrap, reused EE (list query, 100 B XML)', `${rate(() => wrapMessage(LIST, signer, NOW)).toFixed(0)} msgs/s`)
  const q100k = publishQuery(100_000)
  line('wrap, reused EE (publish query, 100 KB XML)', `${rate(() => wrapMessage(q100k, signer, NOW), 1000).toFixed(0)} msgs/s`)
  line('MessageSigner.sign (await prepare + wrap, list query)', `${(await asyncRate(() => signer.sign(LIST, NOW))).toFixed(0)} msgs/s`)
  const msg = wrapMessage(LIST, signer, NOW)
  line('unwrap + verify our list query', `${rate(() => unwrapMessage(msg, { idCert, now: NOW })).toFixed(0)} msgs/s`)
  const big = wrapMessage(q100k, signer, NOW)
  line('unwrap + verify our 100 KB publish query', `${rate(() => unwrapMessage(big, { idCert, now: NOW }), 1000).toFixed(0)} msgs/s`)
  if (existsSync(KRILL)) {
    const krill = new Uint8Array(readFileSync(KRILL)), krillId = new Uint8Array(readFileSync(KRILL_ID))
    const at = new Date('2022-01-11T12:44:46Z')
    line('unwrap + verify a Krill list (real fixture)', `${rate(() => unwrapMessage(krill, { idCert: krillId, now: at })).toFixed(0)} msgs/s`)
  } else {
    line('unwrap + verify a Krill list (real fixture)', `skipped (${KRILL} not found)`)
  }
  line(`wrap, one-off EE key per message (Krill policy, ${KEYS} msgs)`, `${(await oneOffRate(idKey, idCert, KEYS)).toFixed(1)} msgs/s`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run()
