/** Small byte helpers shared by the library (concat, compare, equality). No allocation surprises. */

/** Concatenate byte arrays into one new array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let len = 0
  for (const p of parts) len += p.length
  const out = new Uint8Array(len)
  let off = 0
  for (const p of parts) {
    out.set(p, off)
    off += p.length
  }
  return out
}

/** Lexicographic comparison (as DER SET OF sorting needs): negative, zero or positive. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i]
  }
  return a.length - b.length
}

/** True when both arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && compareBytes(a, b) === 0
}

/** A Uint8Array view of a Buffer or ArrayBuffer without copying. */
export function asBytes(b: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (b instanceof Uint8Array && b.constructor === Uint8Array) return b
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  return new Uint8Array(b)
}
