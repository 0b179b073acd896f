/**
 * Benchmark of the resources layer: parsing, printing and set algebra on RIR-sized resource sets (20,000
 * entries), and ROA delta parsing. Exports runResourcesBench() for a bench runner; run directly, it prints.
 */
import { pathToFileURL } from 'node:url'
import { AsBlocks } from '../src/resources/asn.js'
import { IpBlocks } from '../src/resources/ip.js'
import { parseRoaDelta } from '../src/resources/roa-payload.js'

export interface BenchRow {
  name: string
  /** Median milliseconds per operation. */
  ms: number
}

/** Median of `runs` timed calls, after two warm-up calls. */
function time(fn: () => unknown, runs = 7): number {
  fn()
  fn()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    fn()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(runs / 2)]
}

function inputs(n: number): { asn: string; ipv4: string; ipv6: string; delta: string } {
  const asn: string[] = []
  const ipv4: string[] = []
  const ipv6: string[] = []
  const delta: string[] = []
  for (let i = 0; i < n; i++) {
    asn.push(`AS${i * 3}`)
    ipv4.push(`${10 + (i >> 12)}.${(i >> 4) & 255}.${(i & 15) * 16}.0/28`)
    ipv6.push(`2001:db8:${(i * 2).toString(16)}::/48`)
    delta.push(`A: 10.${(i >> 8) & 255}.${i & 255}.0/24-24 => AS${i} # roa ${i}`)
  }
  return { asn: asn.join(', '), ipv4: ipv4.join(', '), ipv6: ipv6.join(','), delta: delta.join('\n') }
}

export function runResourcesBench(n = 20000): BenchRow[] {
  const text = inputs(n)
  const asn = AsBlocks.parse(text.asn)
  const ipv4 = IpBlocks.parse(text.ipv4, 4)
  const ipv6 = IpBlocks.parse(text.ipv6, 6)
  const cut6 = IpBlocks.parse('2001:db8:100::-2001:db8:8fff:ffff:ffff:ffff:ffff:ffff', 6)
  return [
    { name: `AsBlocks.parse, ${n} ASNs`, ms: time(() => AsBlocks.parse(text.asn)) },
    { name: `IpBlocks.parse, ${n} IPv4 prefixes`, ms: time(() => IpBlocks.parse(text.ipv4, 4)) },
    { name: `IpBlocks.parse, ${n} IPv6 prefixes`, ms: time(() => IpBlocks.parse(text.ipv6, 6)) },
    { name: `IpBlocks.toString, ${n} IPv6 prefixes`, ms: time(() => ipv6.toString()) },
    { name: `IpBlocks.difference, ${n} IPv6 runs`, ms: time(() => ipv6.difference(cut6)) },
    { name: `IpBlocks.union of two ${n}-run sets`, ms: time(() => ipv4.union(ipv4.difference(IpBlocks.parse('10.0.0.0/9', 4)))) },
    { name: `AsBlocks.contains, ${n} ranges`, ms: time(() => asn.contains(asn)) },
    { name: `parseRoaDelta, ${n} lines`, ms: time(() => parseRoaDelta(text.delta)) },
  ]
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of runResourcesBench()) console.log(`${row.name.padEnd(44)} ${row.ms.toFixed(2).padStart(8)} ms`)
}
