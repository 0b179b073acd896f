/**
 * Where each element of a snapshot file sits (its layout), and the plan for assembling the next snapshot from the
 * previous file: windows of byte ranges to copy for the elements that did not change (used by snapshot-copy.ts and writer.ts). Pure: part of the RRDP model.
 */

/**
 * Where each `<publish>` element of a snapshot file sits, in file order: its URI, offset and length, the first
 * `count` entries of each array. Compact for a million objects (issue 28): offsets and lengths in typed arrays
 * (12 bytes an element), the URI strings shared with the previous layout rather than copied.
 */
export interface SnapshotLayout {
  path: string
  size: number
  count: number
  uris: string[]
  offsets: Float64Array
  lengths: Uint32Array
}

export function emptyLayout(path: string, capacity = 1024): SnapshotLayout {
  return { path, size: 0, count: 0, uris: [], offsets: new Float64Array(capacity), lengths: new Uint32Array(capacity) }
}

export function addElement(l: SnapshotLayout, uri: string, offset: number, length: number): void {
  if (l.count === l.offsets.length) {
    const offsets = new Float64Array(l.count * 2 || 1024)
    offsets.set(l.offsets)
    const lengths = new Uint32Array(offsets.length)
    lengths.set(l.lengths)
    l.offsets = offsets
    l.lengths = lengths
  }
  l.uris.push(uri)
  l.offsets[l.count] = offset
  l.lengths[l.count] = length
  l.count++
}

/** Unchanged elements are copied from the previous snapshot in reads of at most this many bytes. */
export const COPY_BYTES = 16 * 1024 * 1024

/** A stretch of the previous snapshot file read at once, and the parts of it that are kept ([offset, length]). */
export interface CopyWindow {
  from: number
  to: number
  keep: [number, number][]
}

/**
 * The elements of `previous` that are not `changed`, in file order, as windows of at most COPY_BYTES (one larger
 * element gets a window of its own); adjacent kept elements merge into one part. Their new places, after a head of
 * `headBytes`, are noted in `layout`.
 */
export function planCopy(previous: SnapshotLayout, changed: ReadonlyMap<string, unknown>, headBytes: number, layout: SnapshotLayout): CopyWindow[] {
  const windows: CopyWindow[] = []
  let w: CopyWindow | undefined
  let pos = headBytes
  for (let i = 0; i < previous.count; i++) {
    const uri = previous.uris[i]!
    if (changed.has(uri)) continue
    const offset = previous.offsets[i]!
    const length = previous.lengths[i]!
    addElement(layout, uri, pos, length)
    pos += length
    if (!w || offset + length - w.from > COPY_BYTES) windows.push((w = { from: offset, to: offset, keep: [] }))
    const last = w.keep[w.keep.length - 1]
    if (last && last[0] + last[1] === offset) last[1] += length
    else w.keep.push([offset, length])
    w.to = offset + length
  }
  return windows
}
