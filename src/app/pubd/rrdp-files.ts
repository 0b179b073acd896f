/**
 * Serving the RRDP files (RFC 8182) under GET /rrdp/: only current file names (the notification, and snapshots and
 * deltas by session/serial/random), opened before they are looked at, since the RRDP writer replaces the
 * notification by a rename at any moment. Used by the PublicationService.
 */
import { closeSync, createReadStream, fstatSync, openSync, type ReadStream } from 'node:fs'
import { join } from 'node:path'

export interface RrdpFile {
  stream: ReadStream
  size: number
  mtime: Date
  etag: string
  notification: boolean
  /** 'gzip' when the bytes are the compressed copy (Content-Encoding: gzip). */
  encoding: 'gzip' | 'identity'
}

const RRDP_PATH = /^(notification\.xml|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[1-9][0-9]{0,15}\/[0-9a-f]{16}\/(snapshot|delta)\.xml)$/

/**
 * The file `rel` under `dir`, or undefined for anything that is not a current RRDP file name or not a file. With
 * `gzip`, its compressed copy when there is one (files written before copies existed have none: the plain file then).
 */
export function openRrdpFile(dir: string, rel: string, gzip = false): RrdpFile | undefined {
  if (!RRDP_PATH.test(rel)) return undefined
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
