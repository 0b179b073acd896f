/**
 * The RRDP model (RFC 8182; design.md §6 "RRDP is one module"): sessions and serials, the file names of a serial, the
 * elements of a delta, the next serial's state, the notification's content, and how a restore is recognised. Pure
 * domain code: no I/O, no clock, no randomness (random bytes and `now` are passed in). The writer beside it
 * (writer.ts) applies it to the disk and the database; retention.ts says which deltas and files are kept.
 */
import type { DeltaElement, Notification } from '../../protocol/rrdp.js'
import { toHex } from '../../util/hex.js'
import { retainDeltas, type RrdpRetention } from './retention.js'

/** Stored in rrdp_state: the current session and serial, and the serial's snapshot. Changing it needs a migration. */
export interface RrdpState {
  session: string
  serial: number
  /** Relative to the RRDP directory: <session>/<serial>/<random>/snapshot.xml. */
  snapshotPath: string
  snapshotHash: string
  snapshotSize: number
  updated: string
}

/** Stored in rrdp_deltas: a delta the notification names (newest first when listed). Changing it needs a migration. */
export interface RrdpDeltaInfo {
  serial: number
  path: string
  hash: string
  size: number
  time: string
}

/** A file written for a serial: where (relative to the RRDP directory), its SHA-256 (hex) and size. */
export interface WrittenFile {
  path: string
  hash: string
  size: number
}

//------------ Sessions and file names ----------------------------------------------------------------------------

/** A new session id: a version 4 UUID (RFC 8182 §3.5.1.3, RFC 9562 §5.4) from 16 random bytes. */
export function sessionId(random16: Uint8Array): string {
  if (random16.length < 16) throw new Error('a session id needs 16 random bytes')
  const b = Uint8Array.from(random16.subarray(0, 16))
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = toHex(b)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** The random part of a serial's directory: 8 bytes as 16 hex digits, so that file names are never reused. */
export const SERIAL_DIR_RANDOM_BYTES = 8

/** The directory of a serial's files: <session>/<serial>/<random>, unique and immutable (design.md "Serving"). */
export function serialDir(session: string, serial: number, random8: Uint8Array): string {
  return `${session}/${serial}/${toHex(random8.subarray(0, SERIAL_DIR_RANDOM_BYTES))}`
}

/** The names served under /rrdp/: the notification, and snapshots and deltas by session, serial and random part. */
const SERVED_NAME = /^(notification\.xml|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[1-9][0-9]{0,15}\/[0-9a-f]{16}\/(snapshot|delta)\.xml)$/

/** Is `rel` the name of an RRDP file (never a path outside the directory, never a temporary or other file)? */
export function isServedName(rel: string): boolean {
  return SERVED_NAME.test(rel)
}

/** The URI of a file (relative path) under the RRDP base URI (ending with '/'). */
export function fileUri(baseUri: string, rel: string): string {
  return baseUri + slashes(rel)
}

/** A relative path with '/' separators. */
export function slashes(rel: string): string {
  return rel.split('\\').join('/')
}

//------------ A serial ---------------------------------------------------------------------------------------------

/** What the model reads of the repository at the start of a serial: the current object at a URI. */
export interface ObjectLookup {
  object(uri: string): { hash: string; content: Uint8Array } | undefined
}

/**
 * The elements of the next delta (RFC 8182 §3.5.3): the net change per URI since the last serial, from the first
 * previous hash recorded per changed URI (`before`): publish (with the old hash when replacing) or withdraw.
 */
export function deltaElements(view: ObjectLookup, before: ReadonlyMap<string, string | null>): DeltaElement[] {
  const out: DeltaElement[] = []
  for (const [uri, previous] of before) {
    const now = view.object(uri)
    if (now && now.hash === previous) continue
    if (now) out.push(previous ? { type: 'publish', uri, hash: previous, content: now.content } : { type: 'publish', uri, content: now.content })
    else if (previous) out.push({ type: 'withdraw', uri, hash: previous })
  }
  return out
}

/** What the safety floor compares for a serial of `elements` leaving `after` objects: the objects before and after it. */
export function floorCounts(after: number, elements: readonly DeltaElement[]): { before: number; after: number } {
  const publishes = elements.filter((e) => e.type === 'publish')
  const added = publishes.filter((e) => !e.hash).length
  const withdrawn = elements.length - publishes.length
  return { before: after - added + withdrawn, after }
}

/**
 * The next serial recorded from the files a cycle wrote: its state, its delta, and which deltas the notification
 * keeps and drops by the retention rule (retention.ts). `deltas` are the recorded ones, newest first.
 */
export function nextSerial(
  previous: RrdpState,
  written: { snapshot: WrittenFile; delta: WrittenFile },
  deltas: readonly RrdpDeltaInfo[],
  retention: RrdpRetention,
  now: Date,
): { state: RrdpState; delta: RrdpDeltaInfo; keep: RrdpDeltaInfo[]; drop: number[] } {
  const serial = previous.serial + 1
  const { snapshot, delta: d } = written
  const state: RrdpState = { session: previous.session, serial, snapshotPath: snapshot.path, snapshotHash: snapshot.hash, snapshotSize: snapshot.size, updated: now.toISOString() }
  const delta: RrdpDeltaInfo = { serial, path: d.path, hash: d.hash, size: d.size, time: now.toISOString() }
  const all = [delta, ...deltas]
  const keep = retainDeltas(all, state.snapshotSize, retention, now)
  const drop = all.filter((x) => !keep.includes(x)).map((x) => x.serial)
  return { state, delta, keep, drop }
}

/** A new session's first state: serial 1, its snapshot, no deltas (RFC 8182 §3.3.2). */
export function firstSerial(session: string, snapshot: WrittenFile, now: Date): RrdpState {
  return { session, serial: 1, snapshotPath: snapshot.path, snapshotHash: snapshot.hash, snapshotSize: snapshot.size, updated: now.toISOString() }
}

//------------ The notification -------------------------------------------------------------------------------------

/** The notification of a state (RFC 8182 §3.5.1): its session and serial, the snapshot, and the deltas kept. */
export function notificationOf(state: RrdpState, deltas: readonly RrdpDeltaInfo[], baseUri: string): Notification {
  return {
    sessionId: state.session,
    serial: state.serial,
    snapshot: { uri: fileUri(baseUri, state.snapshotPath), hash: state.snapshotHash },
    deltas: deltas.map((d) => ({ serial: d.serial, uri: fileUri(baseUri, d.path), hash: d.hash })),
  }
}

/** The session and serial a notification names: `"<session>/<serial>"`, as the writer remembers what it served. */
export function servedKey(state: Pick<RrdpState, 'session' | 'serial'>): string {
  return `${state.session}/${state.serial}`
}

/** The files a state's notification names, each with its gzip copy ('/' separators): never removed. */
export function referencedFiles(state: RrdpState, deltas: readonly Pick<RrdpDeltaInfo, 'path'>[]): Set<string> {
  return new Set([state.snapshotPath, ...deltas.map((d) => d.path)].flatMap((p) => [p, `${p}.gz`]).map(slashes))
}

//------------ Restore detection ------------------------------------------------------------------------------------

/** The session and serial at the head of a notification document (its first KiB), or undefined. */
export function notificationHead(head: string): { session: string; serial: number } | undefined {
  const session = /session_id="([^"]+)"/.exec(head)?.[1]
  const serial = /serial="([0-9]+)"/.exec(head)?.[1]
  return session && serial ? { session, serial: Number(serial) } : undefined
}

/**
 * Why the RRDP directory shows more than the database holds (it was restored from a backup), or undefined (RFC 9697: a
 * serial, once published, never gets other content; the publication-server BCP: then start a new session). `served`:
 * the heads of the notifications on disk; `serialDirs`: the names of the serial directories of the state's session.
 */
export function restoreReason(state: Pick<RrdpState, 'session' | 'serial'>, served: readonly { session: string; serial: number }[], serialDirs: readonly string[]): string | undefined {
  const ahead = served.find((n) => n.session === state.session && n.serial > state.serial)
  if (ahead) return `the notification served serial ${ahead.serial}, the database is at ${state.serial}`
  if (served.length && served.every((n) => n.session !== state.session)) return `the notification served session ${served[0]!.session}, the database has ${state.session}`
  // The next serial's directory may be left by a cycle that stopped before recording it (never notified).
  const later = serialDirs.map(Number).find((n) => n > state.serial + 1)
  return later ? `serial ${later} was written, the database is at ${state.serial}` : undefined
}
