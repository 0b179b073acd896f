/**
 * What the RRDP directory shows was served, against the database (RFC 9697: a serial, once published, never gets
 * other content; the publication-server BCP: after a restore, start a new session rather than reuse serials). Read at
 * start-up by pubd/rrdp-writer.ts.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { RrdpState } from '../store/interfaces.js'

const gunzipAsync = promisify(gunzip)

/** Why the files on disk show more than the database holds (it was restored), or undefined. */
export async function servedAhead(dir: string, state: RrdpState): Promise<string | undefined> {
  const served: { session: string; serial: number }[] = []
  for (const name of ['notification.xml', 'notification.xml.gz']) {
    const head = await readNotificationHead(join(dir, name))
    if (head) served.push(head)
  }
  const ahead = served.find((n) => n.session === state.session && n.serial > state.serial)
  if (ahead) return `the notification served serial ${ahead.serial}, the database is at ${state.serial}`
  if (served.length && served.every((n) => n.session !== state.session)) return `the notification served session ${served[0].session}, the database has ${state.session}`
  // The next serial's directory may be left by a cycle that stopped before recording it (never notified).
  const serials = await readdir(join(dir, state.session)).catch(() => [] as string[])
  const later = serials.map(Number).find((n) => n > state.serial + 1)
  return later ? `serial ${later} was written, the database is at ${state.serial}` : undefined
}

/** The session and serial of a notification file (plain or gzip), or undefined when there is none or it is unreadable. */
async function readNotificationHead(path: string): Promise<{ session: string; serial: number } | undefined> {
  try {
    let bytes = await readFile(path)
    if (path.endsWith('.gz')) bytes = await gunzipAsync(bytes)
    const head = bytes.subarray(0, 1024).toString('utf8')
    const session = /session_id="([^"]+)"/.exec(head)?.[1]
    const serial = /serial="([0-9]+)"/.exec(head)?.[1]
    return session && serial ? { session, serial: Number(serial) } : undefined
  } catch {
    return undefined
  }
}
