/**
 * Objects benchmark (issue 3): build+sign a ROA with its EE certificate using pre-generated (pooled) keys, decode a
 * ROA, decode a 5,000-entry manifest; with the machine's own signing rate as the ceiling for the build figure.
 * `run()` prints plain lines (for the `make bench` runner); or run it directly from the project root, e.g.
 *   npx tsc -p tsconfig.check.json --noEmit false --outDir dist-bench && node dist-bench/bench/objects.bench.js
 */
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { KeyPool } from '../src/crypto/key-pool.js'
import type { OneOffKey, SigningKey } from '../src/crypto/signer.js'
import { MemoryKeyStore, SoftSigner } from '../src/crypto/soft-signer.js'
import { AsBlocks } from '../src/resources/asn.js'
import { IpBlocks, parsePrefix } from '../src/resources/ip.js'
import { buildCert, decodeCert } from '../src/objects/cert.js'
import { buildManifest, decodeManifest, type FileAndHash } from '../src/objects/manifest.js'
import { buildRoa, decodeRoa, inspectRoa } from '../src/objects/roa.js'
import type { ObjectIssuer } from '../src/objects/signed-object.js'

const KRILL_ROA = '../shared/fixtures/objects/krill-localhost-chain/localhost/repo/benchmark-0/0/AS64512.roa'
const FROM = new Date('2026-01-01T00:00:00Z')
const UNTIL = new Date('2027-01-01T00:00:00Z')

function line(name: string, value: string): void {
  console.log(`${name}: ${value}`)
}

/** Per CPU-second rate of the last rate() call: the machine may be shared, and this is less sensitive to that. */
let lastCpuRate = 0

/** Operations per second (wall clock) of `fn` over about `ms` milliseconds, after a warm-up; the best of three rounds. */
function rate(fn: (i: number) => unknown, ms = 1000): number {
  for (let i = 0; i < 200; i++) fn(i)
  let best = 0
  lastCpuRate = 0
  for (let round = 0; round < 3; round++) {
    let n = 0
    const cpu = process.cpuUsage()
    const start = performance.now()
    while (performance.now() - start < ms / 3) fn(n++)
    best = Math.max(best, (n * 1000) / (performance.now() - start))
    const used = process.cpuUsage(cpu)
    lastCpuRate = Math.max(lastCpuRate, (n * 1e6) / Math.max(1, used.user + used.system))
  }
  return best
}

/** '1234/s (5678/s per CPU-second)'. */
function perSecond(wall: number): string {
  return `${wall.toFixed(0)}/s (${lastCpuRate.toFixed(0)}/s per CPU-second)`
}

/** A CA key and `n` one-off EE keys from a key pool (generated before any timing, then the pool is stopped). */
async function keys(n: number): Promise<{ ca: SigningKey; ees: OneOffKey[] }> {
  const pool = new KeyPool({ size: 0 })
  const signer = new SoftSigner(new MemoryKeyStore(), pool)
  const ca = signer.signingKey(await signer.createKey())
  const ees = await Promise.all(Array.from({ length: n }, () => signer.oneOffKey()))
  await pool.stop()
  return { ca, ees }
}

function issuerOf(ca: SigningKey): ObjectIssuer {
  return { key: ca, name: ca.keyId, crlUri: `rsync://bench.example/repo/ca/${ca.keyId}.crl`, certUri: `rsync://bench.example/repo/ta/${ca.keyId}.cer` }
}

function roaSpec(i: number): { asn: number; prefixes: { prefix: ReturnType<typeof parsePrefix>; maxLength?: number }[] } {
  return { asn: 64496 + (i % 1000), prefixes: [{ prefix: parsePrefix(`10.${(i >> 8) & 255}.${i & 255}.0/24`), maxLength: 24 + (i % 5) }] }
}

function manifestFiles(n: number): FileAndHash[] {
  const files: FileAndHash[] = []
  for (let i = 0; i < n; i++) {
    const hash = new Uint8Array(32)
    hash[0] = i >> 8
    hash[1] = i & 255
    files.push({ file: `${i.toString(16).toUpperCase().padStart(40, '0')}.roa`, hash })
  }
  return files
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

export async function run(): Promise<void> {
  console.log(`svc objects bench: node ${process.version}`)
  const { ca, ees } = await keys(16)
  const issuer = issuerOf(ca)
  const data = new Uint8Array(900).fill(7)
  const signs = rate(() => ca.sign(data))
  line('RSA-2048 sign (sync, the build ceiling)', `${signs.toFixed(0)}/s (a ROA needs 2 signatures: at most ${(signs / 2).toFixed(0)}/s)`)
  const build = rate((i) => buildRoa(roaSpec(i), ees[i % ees.length], issuer, { serial: BigInt(i + 1), uri: `rsync://bench.example/repo/ca/${i}.roa`, notBefore: FROM, notAfter: UNTIL, signingTime: FROM }), 3000)
  line('roa build+sign (pooled key)', `${perSecond(build)}; target ≥ 1000/s; ${((build / (signs / 2)) * 100).toFixed(0)} % of the signing ceiling`)

  const roa = buildRoa(roaSpec(7), ees[0], issuer, { serial: 7n, uri: 'rsync://bench.example/repo/ca/7.roa', notBefore: FROM, notAfter: UNTIL, signingTime: FROM })
  const decode = rate(() => decodeRoa(roa), 3000)
  line(`roa decode (ours, ${roa.length} B)`, `${perSecond(decode)}; target ≥ 100000/s`)
  let krill: Uint8Array | undefined
  try {
    krill = new Uint8Array(readFileSync(KRILL_ROA))
  } catch {
    line('roa decode (Krill)', `skipped (${KRILL_ROA} not found)`)
  }
  if (krill) {
    const k = krill
    line(`roa decode (Krill AS64512.roa, ${k.length} B)`, perSecond(rate(() => decodeRoa(k), 3000)))
  }
  line('roa decode + inspect', perSecond(rate(() => inspectRoa(decodeRoa(roa)))))

  const files = manifestFiles(5000)
  const t0 = performance.now()
  const mft = buildManifest({ manifestNumber: 1n, thisUpdate: FROM, nextUpdate: UNTIL, files }, ees[1], issuer, { serial: 9n, uri: 'rsync://bench.example/repo/ca/x.mft', signingTime: FROM })
  line('manifest build, 5000 entries', `${(performance.now() - t0).toFixed(1)} ms (${mft.length} B)`)
  const times: number[] = []
  for (let i = 0; i < 15; i++) {
    const start = performance.now()
    decodeManifest(mft)
    times.push(performance.now() - start)
  }
  line('manifest decode, 5000 entries', `first ${times[0].toFixed(1)} ms, median ${median(times).toFixed(1)} ms (target < 50 ms)`)

  const caCert = buildCert({
    profile: 'rpki', kind: 'ca', serial: 2n, issuerName: ca.keyId, subjectName: ees[2].keyId, subjectSpki: ees[2].spki, notBefore: FROM, notAfter: UNTIL,
    crldp: issuer.crlUri, aia: issuer.certUri, sia: { caRepository: 'rsync://bench.example/repo/child/', rpkiManifest: 'rsync://bench.example/repo/child/x.mft' },
    resources: { ipv4: IpBlocks.parse('10.0.0.0/8', 4), asn: AsBlocks.parse('AS64496-AS65535') },
  }, ca)
  line('CA certificate decode', perSecond(rate(() => decodeCert(caCert))))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((e: unknown) => {
    console.error(e)
    process.exitCode = 1
  })
}
