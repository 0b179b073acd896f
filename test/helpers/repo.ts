/** Reading what a running svcd publishes: RRDP over HTTPS (notification, snapshot, deltas) and the rsync tree. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { decodeDelta, decodeNotification, decodeSnapshot, type Notification } from '../../src/protocol/rrdp.js'
import { httpsGet } from './daemon.js'

export interface RrdpView {
  notification: Notification
  notificationXml: string
  snapshotXml: string
  /** uri → content (hex SHA-256 of it) from the snapshot */
  objects: Map<string, string>
}

/** Fetch the notification and its snapshot; check the snapshot hash and session/serial. */
export async function readRrdp(baseUrl: string): Promise<RrdpView> {
  const n = await httpsGet(baseUrl + 'rrdp/notification.xml')
  if (n.status !== 200) throw new Error(`notification: HTTP ${n.status}`)
  const notification = decodeNotification(n.body)
  const snap = await httpsGet(notification.snapshot.uri)
  if (snap.status !== 200) throw new Error(`snapshot: HTTP ${snap.status}`)
  if (sha(snap.raw) !== notification.snapshot.hash) throw new Error('snapshot hash does not match the notification')
  const s = decodeSnapshot(snap.raw)
  if (s.sessionId !== notification.sessionId || s.serial !== Number(notification.serial)) throw new Error('snapshot session/serial mismatch')
  return { notification, notificationXml: n.body, snapshotXml: snap.body, objects: new Map(s.publishes.map((p) => [p.uri, sha(p.content)])) }
}

/** Fetch every delta of the notification, check its hash, and return their XML. */
export async function readDeltas(n: Notification): Promise<{ serial: number; xml: string; elements: number }[]> {
  const out = []
  for (const d of n.deltas) {
    const r = await httpsGet(d.uri)
    if (r.status !== 200) throw new Error(`delta ${d.serial}: HTTP ${r.status}`)
    if (sha(r.raw) !== d.hash) throw new Error(`delta ${d.serial}: hash mismatch`)
    out.push({ serial: d.serial, xml: r.body, elements: decodeDelta(r.raw).elements.length })
  }
  return out
}

/** Poll until `cond` holds for the RRDP view (or fail after `ms`). */
export async function waitRrdp(baseUrl: string, cond: (v: RrdpView) => boolean, ms = 15_000): Promise<RrdpView> {
  const end = Date.now() + ms
  let last: RrdpView | undefined
  let err: unknown
  while (Date.now() < end) {
    try {
      last = await readRrdp(baseUrl)
      if (cond(last)) return last
    } catch (e) {
      err = e
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`RRDP did not reach the expected state: ${last ? `serial ${String(last.notification.serial)}, ${last.objects.size} objects` : String(err)}`)
}

/** Copy the rsync module with the rsync client and return relative path → hex SHA-256. */
export function rsyncFetch(moduleUri: string): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rsync-'))
  try {
    const r = spawnSync('rsync', ['-rt', '--contimeout=10', '--timeout=30', moduleUri, dir + '/'], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`rsync ${moduleUri} failed (${r.status}): ${r.stderr}`)
    const files = new Map<string, string>()
    const walk = (d: string, rel: string) => {
      for (const e of readdirSync(d)) {
        const p = join(d, e)
        if (statSync(p).isDirectory()) walk(p, rel + e + '/')
        else files.set(rel + e, sha(readFileSync(p)))
      }
    }
    walk(dir, '')
    return files
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function sha(b: Uint8Array | string): string {
  return createHash('sha256').update(b).digest('hex')
}
