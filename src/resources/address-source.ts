/**
 * Which source a peer address counts as for a rate limit (http/rate-limit.ts; issue 22 defect 7): an IPv4 address as
 * it is (also when written IPv4-mapped, ::ffff:a.b.c.d, RFC 4291 §2.5.5.2), an IPv6 address by its /64 (one host or
 * site usually holds a whole /64, so counting each of its 2^64 addresses apart would be no limit at all); anything
 * else as itself, no address as 'unknown'. The composition root hands it to the HTTP edge.
 */
import { formatAddress, parseAddress } from './ip-address.js'

const MAPPED = 0xffffn << 32n

export function addressSource(ip: string | undefined): string {
  if (!ip) return 'unknown'
  let a: { family: 4 | 6; addr: bigint }
  try {
    a = parseAddress(ip.split('%')[0]!)
  } catch {
    return ip
  }
  if (a.family === 4) return formatAddress(4, a.addr)
  if (a.addr >> 32n === MAPPED >> 32n) return formatAddress(4, a.addr & 0xffffffffn)
  const groups = Array.from({ length: 4 }, (_, i) => Number((a.addr >> BigInt(112 - 16 * i)) & 0xffffn).toString(16))
  return `${groups.join(':')}::/64`
}
