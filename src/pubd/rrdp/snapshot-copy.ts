/**
 * The next RRDP snapshot assembled from the previous file (RFC 8182 §3.5.2): unchanged elements copied as byte
 * ranges (planned by snapshot-layout.ts), only changed objects read and encoded, so a serial costs a copy of the file,
 * not a read and encoding of every object. Used by writer.ts.
 */
import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { encodeSnapshotElement, snapshotHead, SNAPSHOT_TAIL } from '../../protocol/rrdp.js'
import { readFully, writeAll } from '../durable-writer.js'
import type { ObjectLookup } from './model.js'
import { addElement, COPY_BYTES, planCopy, type SnapshotLayout } from './snapshot-layout.js'

/**
 * Write the new snapshot `rel` under `dir` from the previous one: its elements for URIs that did not change, copied
 * from its file, then the objects that changed (and still exist) encoded anew; places noted in `layout`. The result
 * holds exactly the current objects (RFC 8182 §3.5.2.3): every change since the previous serial is in `changed`, and
 * everything else is as it was. The copy is pipelined over windows of the previous file in three reused buffers
 * (fresh ones cost a page fault per 4 KiB, more than the copy itself): reading window i+1 and writing window i-1
 * overlap with hashing window i.
 */
export async function copySnapshot(dir: string, rel: string, previous: SnapshotLayout, head: { sessionId: string; serial: number }, changed: ReadonlyMap<string, unknown>, view: ObjectLookup, layout: SnapshotLayout): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256')
  let size = 0
  const hashed = (pieces: Buffer[]) => {
    for (const p of pieces) {
      hash.update(p)
      size += p.length
    }
    return pieces
  }
  const start = Buffer.from(snapshotHead(head), 'utf8')
  const windows = planCopy(previous, changed, start.length, layout)
  const src = await open(join(dir, previous.path), 'r')
  const out = await open(join(dir, rel), 'w', 0o644).catch(async (e: unknown) => {
    await src.close()
    throw e
  })
  const buffers: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)]
  const readWindow = async (i: number): Promise<Buffer> => {
    const w = windows[i]
    if (buffers[i % 3].length < w.to - w.from) buffers[i % 3] = Buffer.allocUnsafe(Math.max(COPY_BYTES, w.to - w.from))
    await readFully(src, buffers[i % 3], w.to - w.from, w.from)
    return buffers[i % 3]
  }
  // A read or write in flight may fail while another is awaited: each is awaited in turn, and marked handled here
  // so that the failure surfaces there rather than as an unhandled rejection.
  const inFlight = <T>(p: Promise<T>): Promise<T> => (p.catch(() => undefined), p)
  let reading: Promise<Buffer> | undefined
  let writing: Promise<void> = inFlight(writeAll(out, hashed([start])))
  try {
    reading = windows.length ? inFlight(readWindow(0)) : undefined
    for (let i = 0; i < windows.length; i++) {
      const buf = await reading!
      // Buffer (i + 1) % 3 last held window i - 2, whose write was awaited before window i - 1's began.
      reading = i + 1 < windows.length ? inFlight(readWindow(i + 1)) : undefined
      const w = windows[i]
      const pieces = hashed(w.keep.map(([offset, length]) => buf.subarray(offset - w.from, offset - w.from + length)))
      await writing
      writing = inFlight(writeAll(out, pieces))
    }
    await writing
    let pos = size
    const fresh: Buffer[] = []
    for (const uri of changed.keys()) {
      const object = view.object(uri)
      if (!object) continue
      const element = encodeSnapshotElement(uri, object.content)
      addElement(layout, uri, pos, element.length)
      pos += element.length
      fresh.push(element)
    }
    fresh.push(Buffer.from(SNAPSHOT_TAIL, 'utf8'))
    await writeAll(out, hashed(fresh))
    await out.sync()
    return { hash: hash.digest('hex'), size }
  } finally {
    await Promise.allSettled([reading, writing])
    await src.close()
    await out.close()
  }
}
