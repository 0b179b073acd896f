/**
 * Serving the RRDP files (RFC 8182) under GET /rrdp/: only the names model.ts admits (the notification, and snapshots
 * and deltas by session/serial/random), opened before they are looked at, since the RRDP writer replaces the
 * notification by a rename at any moment. Reached through the writer (RrdpWriter.file), which the output service calls.
 */
import { closeSync, createReadStream, fstatSync, openSync, type ReadStream } from 'node:fs'
import { join } from 'node:path'
import { isServedName } from './model.js'

export interface RrdpFile {
  stream: ReadStream
  size: number
  mtime: Date
  etag: string
  notification: boolean
  /** 'gzip' when the bytes are the compressed copy (Content-Encoding: gzip). */
  encoding: 'gzip' | 'identity'
}

/**
 * The file `rel` under `dir`, or undefined for anything that is not a current RRDP file name or not a file. With
 * `gzip`, its compressed copy when there is one (files written before copies existed have none: the plain file then).
 */
export function openRrdpFile(dir: string, rel: string, gzip = false): RrdpFile | undefined {
  if (!isServedName(rel)) return undefined
  if (gzip) {
    const file = openFile(join(dir, `${rel}.gz`), rel, 'gzip')
    if (file) return file
  }
  return openFile(join(dir, rel), rel, 'identity')
}

function openFile(path: string, rel: string, encoding: RrdpFile['encoding']): RrdpFile | undefined {
  // Open first, then look at what was opened: the notification is replaced by a rename at any moment, and a size
  // taken from the name before the open could belong to another file than the bytes sent (a cut-off answer).
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  const st = fstatSync(fd)
  if (!st.isFile()) {
    closeSync(fd)
    return undefined
  }
  // The ETag differs per encoding (RFC 9110 §8.8.3: a representation's tag), as do size and mtime.
  const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}${encoding === 'gzip' ? '-gz' : ''}"`
  return { stream: createReadStream('', { fd }), size: st.size, mtime: st.mtime, etag, notification: rel === 'notification.xml', encoding }
}
