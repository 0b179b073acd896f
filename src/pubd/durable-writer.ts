/**
 * Durable file writing for the repository output (design.md §2 "one durable-write module"): write every byte
 * (short writes continued), fsync files and directories, read a stretch of a file fully, write a gzip copy. Used by
 * the RRDP module (pubd/rrdp/).
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'

/**
 * Write the chunks (gathered into writes of about 4 MiB, without copying them) and fsync the file. One write is in
 * flight while the next chunks are made (and hashed), so producing and writing overlap.
 */
export async function writeDurably(path: string, chunks: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<void> {
  const fh = await open(path, 'w', 0o644)
  let inFlight: Promise<void> = Promise.resolve()
  try {
    let pending: Buffer[] = []
    let size = 0
    for await (const c of chunks) {
      pending.push(c)
      size += c.length
      if (size >= 4 * 1024 * 1024) {
        await inFlight
        inFlight = writeAll(fh, pending)
        inFlight.catch(() => undefined) // awaited before the next write or at the end
        pending = []
        size = 0
      }
    }
    await inFlight
    if (size) await writeAll(fh, pending)
    await fh.sync()
  } finally {
    await inFlight.catch(() => undefined)
    await fh.close()
  }
}

/** writev until every byte is written (a short write continues where it stopped). */
export async function writeAll(fh: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers
  while (rest.length) {
    let { bytesWritten } = await fh.writev(rest)
    if (bytesWritten === 0 && rest.some((b) => b.length > 0)) throw new Error('the file system accepted no more bytes')
    while (rest.length && bytesWritten >= rest[0].length) {
      bytesWritten -= rest[0].length
      rest = rest.slice(1)
    }
    if (rest.length && bytesWritten > 0) rest = [rest[0].subarray(bytesWritten), ...rest.slice(1)]
  }
}

/** Read `length` bytes at `position` into the start of `buf`; a file that ends before is an error. */
export async function readFully(fh: FileHandle, buf: Buffer, length: number, position: number): Promise<void> {
  for (let got = 0; got < length; ) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got)
    if (bytesRead === 0) throw new Error(`the previous snapshot ended at ${position + got} bytes, before ${position + length}`)
    got += bytesRead
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/**
 * Write `<path>.gz` beside `path`, gzip-compressed (the publication-server BCP: RRDP files are compressed once, when
 * written, not per request), and fsync it. zlib runs on libuv's thread pool; `level` 1 to 4 keeps it fast. The
 * temporary name is renamed only when complete, so a reader never sees a truncated `.gz`.
 */
export async function writeGzip(path: string, level: number): Promise<number> {
  const tmp = `${path}.gz.tmp`
  try {
    await pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), createGzip({ level, chunkSize: 256 * 1024 }), createWriteStream(tmp, { mode: 0o644 }))
    const fh = await open(tmp, 'r+')
    let size: number
    try {
      await fh.sync()
      size = (await fh.stat()).size
    } finally {
      await fh.close()
    }
    await rename(tmp, `${path}.gz`)
    return size
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined) // no half-written copy left to keep its directory
    throw e
  }
}
