/**
 * SHA-256 (RFC 6234), the one digest of the RPKI (RFC 7935 §2): of a whole buffer, as bytes or as lowercase hex (the
 * hash RFC 8181 PDUs and RFC 8182 RRDP elements carry, and the stored object hash). Used by the library and the services.
 */
import { createHash } from 'node:crypto'

/** The SHA-256 digest of `bytes`. */
export function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest())
}

/** The SHA-256 digest of `bytes` in lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}
