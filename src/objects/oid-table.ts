/**
 * Fast OBJECT IDENTIFIER reading for the hot decode paths of src/objects/: the OIDs a field usually holds are
 * compared as bytes (no string building, no allocation); anything else falls back to the DER reader's readOid.
 * Used by algorithm.ts, distinguished-name.ts, cert-extensions.ts and signed-attributes.ts.
 */
import { oidContent } from '../asn1/der.js'
import { type DerNode, readOid } from '../asn1/der-reader.js'

export class OidTable {
  private readonly dotted: readonly string[]
  private readonly contents: readonly Uint8Array[]

  constructor(dotted: readonly string[]) {
    this.dotted = dotted
    this.contents = dotted.map((d) => oidContent(d))
  }

  /** The dotted OID of `node`: a known one by byte comparison, any other through readOid (DecodeError(rule) on bad input). */
  read(node: DerNode, rule: string): string {
    if (node.tag === 0x06) {
      const b = node.bytes
      const p = node.start + node.headerLength
      const n = node.length
      for (let k = 0; k < this.contents.length; k++) {
        const c = this.contents[k]
        if (c.length !== n) continue
        let i = 0
        while (i < n && b[p + i] === c[i]) i++
        if (i === n) return this.dotted[k]
      }
    }
    return readOid(node, rule)
  }
}
