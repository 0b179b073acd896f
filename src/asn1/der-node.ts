/**
 * DerNode: one TLV of a DER input, as a view (offsets into the original buffer, no copies), and DerBudget, the
 * node and depth budget shared by one parse. Built by der-reader.ts; read by der-values.ts and the objects layer.
 */

export const DEFAULT_MAX_NODES = 1_000_000
export const DEFAULT_MAX_DEPTH = 64

/** Shared per parse: the budget of headers and depth. */
export class DerBudget {
  nodes = 0
  constructor(readonly maxNodes: number, readonly maxDepth: number) {}
}

/** One TLV of the input. `tag` is the first identifier octet (0x30 SEQUENCE, 0xa0 [0] constructed, …). */
export class DerNode {
  constructor(
    /** The whole input buffer (not just this TLV). */
    readonly bytes: Uint8Array,
    readonly tag: number,
    /** 0 universal, 1 application, 2 context-specific, 3 private. */
    readonly cls: number,
    readonly constructed: boolean,
    /** The tag number (0x30 → 16). */
    readonly number: number,
    /** Offset of the identifier octet. */
    readonly start: number,
    readonly headerLength: number,
    /** Length of the contents. */
    readonly length: number,
    /** Offset just after the contents. */
    readonly end: number,
    /** End of the enclosing contents (where the siblings stop). */
    readonly limit: number,
    readonly depth: number,
    readonly budget: DerBudget,
  ) {}

  /** Offset of the first contents octet. */
  get contentStart(): number {
    return this.start + this.headerLength
  }

  /** The contents octets (a view into `bytes`). */
  content(): Uint8Array {
    return this.bytes.subarray(this.start + this.headerLength, this.end)
  }

  /** The complete TLV (a view into `bytes`), e.g. the signed TBSCertificate. */
  raw(): Uint8Array {
    return this.bytes.subarray(this.start, this.end)
  }
}

const TAG_NAMES: Record<number, string> = {
  0x01: 'BOOLEAN', 0x02: 'INTEGER', 0x03: 'BIT STRING', 0x04: 'OCTET STRING', 0x05: 'NULL', 0x06: 'OBJECT IDENTIFIER',
  0x0c: 'UTF8String', 0x13: 'PrintableString', 0x16: 'IA5String', 0x17: 'UTCTime', 0x18: 'GeneralizedTime',
  0x30: 'SEQUENCE', 0x31: 'SET',
}

/** 'SEQUENCE', 'INTEGER', '[0]' … for error messages. */
export function tagName(tag: number): string {
  const name = TAG_NAMES[tag]
  if (name !== undefined) return name
  if ((tag & 0xc0) === 0x80) return `[${tag & 0x1f}]${tag & 0x20 ? '' : ' primitive'}`
  return `tag 0x${tag.toString(16).padStart(2, '0')}`
}
