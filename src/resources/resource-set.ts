/**
 * ResourceSet {asn, ipv4, ipv6}: the Internet number resources a CA holds or delegates (RFC 3779), with set
 * algebra and the JSON API text form (spec §2.4; `{"asn":"AS65000","ipv4":"10.0.0.0/8","ipv6":""}`).
 * Used by the CA domain (entitlements, child resources), api/ mappings, asn1/rfc3779.ts and protocol/.
 */
import { LibraryError, ParseError } from '../util/errors.js'
import { AsBlocks } from './asn.js'
import { IpBlocks } from './ip.js'

/** The JSON API form: each family as text, '' when empty. */
export interface ResourceSetText {
  asn: string
  ipv4: string
  ipv6: string
}

type Field = keyof ResourceSetText

/** Parses one field, naming it in the error: 'ipv4: 10.0.0.1/8 has host bits set …'. */
function parseField<T>(t: Partial<ResourceSetText>, field: Field, parse: (text: string) => T): T {
  const value: unknown = t[field]
  if (value === undefined || value === null) return parse('')
  if (typeof value !== 'string') throw new ParseError('', `${field}: expected text, got ${typeof value}`)
  try {
    return parse(value)
  } catch (e) {
    // Library code throws and does not catch; this re-throw only adds the field name for the user.
    if (e instanceof LibraryError) throw new ParseError('', `${field}: ${e.message}`, { cause: e })
    throw e
  }
}

/** AS, IPv4 and IPv6 resources together. Immutable. */
export class ResourceSet {
  private static readonly EMPTY = new ResourceSet(AsBlocks.empty(), IpBlocks.empty(4), IpBlocks.empty(6))
  private static readonly ALL = new ResourceSet(AsBlocks.all(), IpBlocks.all(4), IpBlocks.all(6))

  readonly asn: AsBlocks
  readonly ipv4: IpBlocks
  readonly ipv6: IpBlocks

  constructor(asn: AsBlocks, ipv4: IpBlocks, ipv6: IpBlocks) {
    if (ipv4.family !== 4 || ipv6.family !== 6) {
      throw new TypeError(`ResourceSet needs IPv4 then IPv6 blocks, got IPv${ipv4.family} and IPv${ipv6.family}`)
    }
    this.asn = asn
    this.ipv4 = ipv4
    this.ipv6 = ipv6
    Object.freeze(this)
  }

  static empty(): ResourceSet {
    return ResourceSet.EMPTY
  }

  /** AS0-AS4294967295, 0.0.0.0/0, ::/0: what a trust anchor holds. */
  static all(): ResourceSet {
    return ResourceSet.ALL
  }

  /** Parses the JSON API form; a missing (or null) field is empty; a ParseError names the field. */
  static parse(t: Partial<ResourceSetText>): ResourceSet {
    if (t === null || typeof t !== 'object') throw new ParseError('', `resources: expected an object with asn, ipv4 and ipv6`)
    return new ResourceSet(
      parseField(t, 'asn', (text) => AsBlocks.parse(text)),
      parseField(t, 'ipv4', (text) => IpBlocks.parse(text, 4)),
      parseField(t, 'ipv6', (text) => IpBlocks.parse(text, 6)),
    )
  }

  /** The JSON API form (spec §2.4 text per family). */
  toJSON(): ResourceSetText {
    return { asn: this.asn.toString(), ipv4: this.ipv4.toString(), ipv6: this.ipv6.toString() }
  }

  /** The RFC 6492 §3.3 attribute values (resource_set_as, _ipv4, _ipv6): no 'AS', no spaces. */
  toRfc6492(): ResourceSetText {
    return { asn: this.asn.toRfc6492(), ipv4: this.ipv4.toRfc6492(), ipv6: this.ipv6.toRfc6492() }
  }

  /** 'asn: AS1, ipv4: 10.0.0.0/8, ipv6: ' */
  toString(): string {
    return `asn: ${this.asn.toString()}, ipv4: ${this.ipv4.toString()}, ipv6: ${this.ipv6.toString()}`
  }

  isEmpty(): boolean {
    return this.asn.isEmpty() && this.ipv4.isEmpty() && this.ipv6.isEmpty()
  }

  /** Whether every resource of `o` is in this set. */
  contains(o: ResourceSet): boolean {
    return this.asn.contains(o.asn) && this.ipv4.contains(o.ipv4) && this.ipv6.contains(o.ipv6)
  }

  union(o: ResourceSet): ResourceSet {
    return new ResourceSet(this.asn.union(o.asn), this.ipv4.union(o.ipv4), this.ipv6.union(o.ipv6))
  }

  intersection(o: ResourceSet): ResourceSet {
    return new ResourceSet(this.asn.intersection(o.asn), this.ipv4.intersection(o.ipv4), this.ipv6.intersection(o.ipv6))
  }

  /** The resources of this set that are not in `o`. */
  difference(o: ResourceSet): ResourceSet {
    return new ResourceSet(this.asn.difference(o.asn), this.ipv4.difference(o.ipv4), this.ipv6.difference(o.ipv6))
  }

  equals(o: ResourceSet): boolean {
    return this.asn.equals(o.asn) && this.ipv4.equals(o.ipv4) && this.ipv6.equals(o.ipv6)
  }
}
