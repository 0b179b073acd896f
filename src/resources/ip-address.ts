/**
 * IP address text ⇄ bigint: IPv4 dotted quads and IPv6 (RFC 4291 §2.2 input forms, RFC 5952 output form).
 * Strict and linear-time. Used by ip.ts (prefixes, ranges, IpBlocks); re-exported there for everyone else.
 */
import { ParseError } from '../util/errors.js'
import { shown } from './resource-list.js'

export type IpFamily = 4 | 6

/** Address size in bits: 32 for IPv4, 128 for IPv6. */
export function addressBits(family: IpFamily): 32 | 128 {
  return family === 4 ? 32 : 128
}

/** The largest address of a family (all ones). */
export function maxAddress(family: IpFamily): bigint {
  return family === 4 ? 0xffffffffn : (1n << 128n) - 1n
}

export function familyName(family: IpFamily): string {
  return family === 4 ? 'IPv4' : 'IPv6'
}

function bad(text: string, family: IpFamily, why: string): ParseError {
  return new ParseError('', `${shown(text)} is not an ${familyName(family)} address: ${why}`)
}

/** The first character of `text` outside the class `allowed` (one fast test first), or undefined. */
function strayChar(text: string, all: RegExp, allowed: RegExp): string | undefined {
  if (all.test(text)) return undefined
  for (const c of text) if (!allowed.test(c)) return c
  return undefined
}

const IPV4_TEXT = /^[0-9.]*$/
const IPV4_CHAR = /[0-9.]/
const IPV6_TEXT = /^[0-9a-fA-F:.]*$/
const IPV6_CHAR = /[0-9a-fA-F:.]/

/**
 * IPv4 dotted quad to a number (0..2^32-1) in one pass (hot path: no split). Four decimal octets 0-255, without
 * leading zeros (other parsers read those as octal).
 */
function ipv4Number(text: string): number {
  const stray = strayChar(text, IPV4_TEXT, IPV4_CHAR)
  if (stray !== undefined) throw bad(text, 4, `unexpected character ${shown(stray)}`)
  if (text.length > 15) throw bad(text, 4, 'too long')
  let value = 0
  let octets = 0
  for (let i = 0; ; i++) {
    const start = i
    let octet = 0
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) octet = octet * 10 + c - 48
    if (i === start) throw bad(text, 4, 'empty octet')
    if (i - start > 1 && text.charCodeAt(start) === 48) throw bad(text, 4, `octet ${shown(text.slice(start, i))} has a leading zero`)
    if (octet > 255) throw bad(text, 4, `octet ${octet} is out of range (0-255)`)
    value = value * 256 + octet
    octets++
    // Only '.' can follow here: the characters were checked before.
    if (i === text.length) break
  }
  if (octets !== 4) throw bad(text, 4, `it has ${octets} octets, expected 4`)
  return value
}

const COLON = 58
const DOT = 46

/** The value of a hex digit's char code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}

/**
 * Reads the groups of an IPv6 address in one pass (hot path: no split, no regex), noting where '::' stands.
 * An embedded IPv4 address may only form the last 32 bits (RFC 4291 §2.2 (3)).
 */
function ipv6Groups(text: string): { groups: number[]; gapAt: number } {
  const groups: number[] = []
  let gapAt = -1
  let i = 0
  if (text.charCodeAt(0) === COLON && text.charCodeAt(1) === COLON) {
    gapAt = 0
    i = 2
  }
  while (i < text.length) {
    const start = i
    let value = 0
    for (let d = hexDigit(text.charCodeAt(i)); d >= 0; d = hexDigit(text.charCodeAt(++i))) value = value * 16 + d
    if (text.charCodeAt(i) === DOT) {
      if (text.indexOf(':', start) >= 0) throw bad(text, 6, 'an embedded IPv4 address may only stand in the last 32 bits')
      const v4 = ipv4Number(text.slice(start))
      groups.push(Math.floor(v4 / 65536), v4 % 65536)
      break
    }
    if (i === start) throw bad(text, 6, `empty group (a single ':' where '::' or a number belongs)`)
    if (i - start > 4) throw bad(text, 6, `group ${shown(text.slice(start, i))} has more than 4 hex digits`)
    groups.push(value)
    if (i === text.length) break
    // Only ':' can follow here: the characters were checked before.
    if (text.charCodeAt(++i) === COLON) {
      if (gapAt >= 0) throw bad(text, 6, "'::' may appear only once")
      gapAt = groups.length
      i++
    } else if (i === text.length) {
      throw bad(text, 6, `empty group (a single ':' where '::' or a number belongs)`)
    }
  }
  return { groups, gapAt }
}

/** IPv6 text (RFC 4291 §2.2: full, '::'-compressed, or with a dotted IPv4 tail) to a bigint. */
function ipv6Value(text: string): bigint {
  const stray = strayChar(text, IPV6_TEXT, IPV6_CHAR)
  if (stray !== undefined) throw bad(text, 6, `unexpected character ${shown(stray)}`)
  // RFC 4291 §2.2: the longest form, eight groups with an IPv4 tail, has 45 characters.
  if (text.length > 45) throw bad(text, 6, 'too long')
  const { groups, gapAt } = ipv6Groups(text)
  const count = groups.length
  if (gapAt < 0 && count !== 8) throw bad(text, 6, `it has ${count} groups, expected 8 (or '::')`)
  // RFC 4291 §2.2 (2): '::' stands for one or more groups of zeros.
  if (gapAt >= 0 && count > 7) throw bad(text, 6, "'::' must stand for at least one group of zeros")
  if (gapAt >= 0) groups.splice(gapAt, 0, ...ZERO_GROUPS.slice(0, 8 - count))
  return fromGroups(groups)
}

const ZERO_GROUPS: readonly number[] = [0, 0, 0, 0, 0, 0, 0, 0]

/** Eight 16-bit groups to a bigint, through four 32-bit words (few bigint operations: this is the hot path). */
function fromGroups(g: readonly number[]): bigint {
  const word = (k: number): bigint => BigInt(g[2 * k] * 65536 + g[2 * k + 1])
  return (word(0) << 96n) | (word(1) << 64n) | (word(2) << 32n) | word(3)
}

/**
 * Parses an IPv4 or IPv6 address; without `family`, a ':' means IPv6. Surrounding blanks are ignored.
 * With `family`, an address of the other family is an error that says so.
 */
export function parseAddress(text: string, family?: IpFamily): { family: IpFamily; addr: bigint } {
  if (typeof text !== 'string') throw new ParseError('', `IP address: expected text, got ${typeof text}`)
  const t = text.trim()
  if (t === '') throw new ParseError('', `an ${family === undefined ? 'IP' : familyName(family)} address is missing (empty text)`)
  const found: IpFamily = t.includes(':') ? 6 : 4
  if (family !== undefined && found !== family) {
    const hint = found === 6 ? "it has a ':', so it looks like IPv6" : "it has no ':', so it looks like IPv4"
    throw new ParseError('', `${shown(t)} is not an ${familyName(family)} address (${hint})`)
  }
  return { family: found, addr: found === 4 ? BigInt(ipv4Number(t)) : ipv6Value(t) }
}

function checkAddress(family: IpFamily, addr: bigint): void {
  if (typeof addr !== 'bigint' || addr < 0n || addr > maxAddress(family)) {
    throw new RangeError(`${String(addr)} is not an ${familyName(family)} address value`)
  }
}

/**
 * Formats an address: IPv4 dotted quad; IPv6 per RFC 5952 §4 (lowercase, no leading zeros, the longest run of
 * zero groups as '::') and §5 (IPv4-mapped as '::ffff:192.0.2.1').
 */
export function formatAddress(family: IpFamily, addr: bigint): string {
  checkAddress(family, addr)
  if (family === 4) {
    const n = Number(addr)
    return `${Math.floor(n / 16777216)}.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`
  }
  const hex = addr.toString(16).padStart(32, '0')
  // RFC 5952 §5: IPv4-mapped addresses (::ffff:0:0/96) are written with the IPv4 part dotted.
  if (hex.startsWith(IPV4_MAPPED)) return `::ffff:${formatAddress(4, addr & 0xffffffffn)}`
  // RFC 5952 §4.1: groups without leading zeros; §4.3: lowercase (toString(16) is).
  const groups: string[] = []
  for (let i = 0; i < 32; i += 4) {
    let j = i
    while (j < i + 3 && hex.charCodeAt(j) === 48) j++
    groups.push(hex.slice(j, i + 4))
  }
  const [start, length] = longestZeroRun(groups)
  // RFC 5952 §4.2.2: a single zero group is never shortened to '::'.
  if (length < 2) return groups.join(':')
  return `${groups.slice(0, start).join(':')}::${groups.slice(start + length).join(':')}`
}

const IPV4_MAPPED = '00000000000000000000ffff'

/** RFC 5952 §4.2.1 and §4.2.3: the longest run of zero groups; the first one when two are equally long. */
function longestZeroRun(groups: string[]): [number, number] {
  let bestStart = -1
  let bestLength = 0
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== '0') {
      i++
      continue
    }
    let j = i
    while (j < groups.length && groups[j] === '0') j++
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i]
    i = j
  }
  return [bestStart, bestLength]
}
