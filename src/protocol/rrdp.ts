/**
 * RFC 8182 (RRDP) documents: notification, snapshot and delta. Encoding is plain string building (no DOM), with
 * chunked generators so a 200 MB snapshot never has to be one string; decoding is for tests and offline inspection.
 * Used by the RRDP module (pubd/rrdp/), whose entry (pubd/rrdp/index.ts) re-exports it.
 */
import { DecodeError, InspectionError } from '../util/errors.js'
import { escapeAttr, parseXml, type XmlElement } from './xml.js'
import { attr, base64Text, hexHash, noChildren, noText, optAttr, show } from './xml-read.js'

export const RRDP_NS = 'http://www.ripe.net/rpki/rrdp'

export interface Notification {
  sessionId: string
  /** A number while it is a safe integer; decoding returns a bigint above 2^53 - 1. */
  serial: bigint | number
  snapshot: { uri: string; hash: string }
  deltas: { serial: number; uri: string; hash: string }[]
}

export interface Snapshot {
  sessionId: string
  serial: number
  publishes: { uri: string; content: Uint8Array }[]
}

export type DeltaElement =
  | { type: 'publish'; uri: string; hash?: string; content: Uint8Array }
  | { type: 'withdraw'; uri: string; hash: string }

export interface Delta {
  sessionId: string
  serial: number
  elements: DeltaElement[]
}

/** What the chunked encoders take: like Snapshot/Delta, but the objects may come from any iterable (a DB cursor). */
export interface SnapshotSource {
  sessionId: string
  serial: number
  publishes: Iterable<{ uri: string; content: Uint8Array }>
}
export interface DeltaSource {
  sessionId: string
  serial: number
  elements: Iterable<DeltaElement>
}

export interface ChunkOptions {
  /** Approximate size of each chunk in bytes; default 1 MiB. */
  chunkBytes?: number
}

export interface SnapshotChunkOptions extends ChunkOptions {
  /** Told where each `<publish>` element sits in the output (byte offset and length), in output order. */
  onElement?: (uri: string, offset: number, length: number) => void
}

export interface RrdpDecodeOptions {
  /** Largest accepted document in bytes; default {@link RRDP_MAX_BYTES}. */
  maxBytes?: number
}

/** 256 MiB: room for today's largest snapshots; raise it per call if needed. */
export const RRDP_MAX_BYTES = 256 * 1024 * 1024

const NOTIFICATION = 'RFC 8182 §3.5.1'
const SNAPSHOT = 'RFC 8182 §3.5.2'
const DELTA = 'RFC 8182 §3.5.3'
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const DEFAULT_CHUNK = 1024 * 1024

//------------ Encoding ---------------------------------------------------------------------------------------------
// Canonical form (Krill style): no declaration, root attributes xmlns, version, session_id, serial; one element per
// line, base64 on one line, hashes in lowercase, notification deltas in descending serial order.

export function encodeNotification(n: Notification): string {
  const rule = NOTIFICATION
  checkHead(n.sessionId, n.serial, rule)
  const deltas = [...n.deltas].sort((a, b) => b.serial - a.serial)
  // Written directly, as the snapshot elements are: a notification lists every delta kept (hundreds within the
  // retention time of a busy repository) and is written at every serial; built as a tree it cost more than the delta.
  const lines = [
    `<notification xmlns="${RRDP_NS}" version="1" session_id="${escapeAttr(n.sessionId)}" serial="${n.serial}">`,
    `  <snapshot uri="${escapeAttr(n.snapshot.uri)}" hash="${hash64(n.snapshot.hash, rule)}"/>`,
  ]
  for (const d of deltas) {
    checkSerial(d.serial, rule)
    lines.push(`  <delta serial="${d.serial}" uri="${escapeAttr(d.uri)}" hash="${hash64(d.hash, rule)}"/>`)
  }
  lines.push('</notification>', '')
  return lines.join('\n')
}

/** The whole snapshot as one string (fine up to a few hundred MB; prefer {@link encodeSnapshotChunks} for files). */
export function encodeSnapshot(s: SnapshotSource): string {
  return joinChunks(encodeSnapshotChunks(s))
}

/**
 * The snapshot as UTF-8 chunks of about `chunkBytes`, ready to hash and write. Each object is written straight into
 * the chunk buffer (about 170 ms for 100,000 objects of 2 KB); every chunk is a fresh buffer the caller may keep.
 */
export function* encodeSnapshotChunks(s: SnapshotSource, opts: SnapshotChunkOptions = {}): Generator<Buffer> {
  const w = new ChunkWriter(opts.chunkBytes ?? DEFAULT_CHUNK)
  w.text(snapshotHead(s))
  const at = opts.onElement
  for (const p of s.publishes) yield* w.element(snapshotElementOpen(p.uri), p.content, SNAPSHOT_ELEMENT_CLOSE, at && ((offset, length) => at(p.uri, offset, length)))
  w.text(SNAPSHOT_TAIL)
  yield w.rest()
}

/**
 * The pieces a snapshot is made of, for writers that assemble one from parts (pubd/rrdp-writer.ts copies unchanged
 * elements from the previous snapshot file): the root's opening tag, one `<publish>` element, the closing tag.
 * Their concatenation, head + elements + tail, is exactly what {@link encodeSnapshotChunks} writes.
 */
export function snapshotHead(h: { sessionId: string; serial: number }): string {
  checkHead(h.sessionId, h.serial, SNAPSHOT)
  return rootOpen('snapshot', h)
}

export const SNAPSHOT_TAIL = '</snapshot>\n'

export function encodeSnapshotElement(uri: string, content: Uint8Array): Buffer {
  return Buffer.from(`${snapshotElementOpen(uri)}${b64(content)}${SNAPSHOT_ELEMENT_CLOSE}`, 'utf8')
}

/** One snapshot `<publish>` element around its base64 content: the same text for the whole and the assembled file. */
function snapshotElementOpen(uri: string): string {
  return `  <publish uri="${escapeAttr(uri)}">`
}

const SNAPSHOT_ELEMENT_CLOSE = '</publish>\n'

/** The whole delta as one string. */
export function encodeDelta(d: DeltaSource): string {
  return joinChunks(encodeDeltaChunks(d))
}

function joinChunks(chunks: Iterable<Buffer>): string {
  const parts: string[] = []
  for (const c of chunks) parts.push(c.toString('utf8'))
  return parts.join('')
}

/** The delta as UTF-8 chunks of about `chunkBytes`. */
export function* encodeDeltaChunks(d: DeltaSource, opts: ChunkOptions = {}): Generator<Buffer> {
  checkHead(d.sessionId, d.serial, DELTA)
  const w = new ChunkWriter(opts.chunkBytes ?? DEFAULT_CHUNK)
  w.text(rootOpen('delta', d))
  let count = 0
  for (const e of d.elements) {
    count++
    const uri = escapeAttr(e.uri)
    if (e.type === 'withdraw') {
      yield* w.element(`  <withdraw uri="${uri}" hash="${hash64(e.hash, DELTA)}"/>\n`)
    } else {
      const hash = e.hash === undefined ? '' : ` hash="${hash64(e.hash, DELTA)}"`
      yield* w.element(`  <publish uri="${uri}"${hash}>`, e.content, '</publish>\n')
    }
  }
  // RFC 8182 §3.5.3: a delta holds at least one publish or withdraw element.
  if (count === 0) throw new InspectionError(DELTA, 'a delta must contain at least one publish or withdraw element')
  w.text('</delta>\n')
  yield w.rest()
}

/** Writes text and base64 straight into chunk-sized buffers; hands out each buffer once it is full. */
class ChunkWriter {
  private buf: Buffer
  private off = 0
  /** Bytes handed out so far (the offset of `buf` in the output). */
  private flushed = 0

  constructor(private readonly chunk: number) {
    this.buf = Buffer.allocUnsafe(2 * chunk)
  }

  /** One element: an opening text, optional content written as base64, a closing text; `at` learns where it went. */
  *element(open: string, content?: Uint8Array, close = '', at?: (offset: number, length: number) => void): Generator<Buffer> {
    const need = 3 * (open.length + close.length) + (content ? Math.ceil(content.length / 3) * 4 : 0)
    if (this.off + need > this.buf.length) {
      if (this.off > 0) yield this.hand(this.off)
      this.buf = Buffer.allocUnsafe(Math.max(2 * this.chunk, need))
    }
    const start = this.off
    this.off += this.buf.write(open, this.off, 'utf8')
    if (content) this.off += this.buf.write(b64(content), this.off, 'latin1')
    if (close) this.off += this.buf.write(close, this.off, 'utf8')
    at?.(this.flushed + start, this.off - start)
    if (this.off >= this.chunk) {
      yield this.hand(this.off)
      this.buf = Buffer.allocUnsafe(2 * this.chunk)
    }
  }

  /** Hand out the first `n` bytes of the buffer (the caller then replaces it). */
  private hand(n: number): Buffer {
    this.flushed += n
    this.off = 0
    return this.buf.subarray(0, n)
  }

  /** Text that is known to fit (the root's opening and closing tags). */
  text(s: string): void {
    if (this.off + 3 * s.length > this.buf.length) throw new Error('ChunkWriter: text does not fit')
    this.off += this.buf.write(s, this.off, 'utf8')
  }

  rest(): Buffer {
    return this.buf.subarray(0, this.off)
  }
}

function rootOpen(name: string, h: { sessionId: string; serial: number }): string {
  return `<${name} xmlns="${RRDP_NS}" version="1" session_id="${h.sessionId}" serial="${h.serial}">\n`
}

function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

function checkHead(sessionId: string, serial: bigint | number, rule: string): void {
  // RFC 8182 §3.5.1.1 (session_id is a version 4 UUID, RFC 4122) and the schema's positiveInteger serial.
  if (!UUID.test(sessionId)) throw new InspectionError(rule, `session_id ${show(sessionId)} is not a UUID`)
  checkSerial(serial, rule)
}

function checkSerial(serial: bigint | number, rule: string): void {
  const ok = typeof serial === 'bigint' ? serial > 0n : Number.isSafeInteger(serial) && serial > 0
  if (!ok) throw new InspectionError(rule, `serial ${String(serial)} is not a positive integer`)
}

function hash64(hash: string, rule: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new InspectionError(rule, `hash ${show(hash)} is not a SHA-256 hex digest`)
  return hash.toLowerCase()
}

//------------ Decoding ---------------------------------------------------------------------------------------------
// Tolerated (fixtures/README.md §3): the namespace redeclared on each element, comments before the root, any
// attribute order, UPPERCASE hashes (normalised to lowercase), base64 inline or wrapped. Refused: any other namespace,
// DTDs, entities. A <publish> with empty content decodes to a zero-length object (see decodeSnapshot).

export function decodeNotification(xml: string | Uint8Array, opts: RrdpDecodeOptions = {}): Notification {
  const el = rrdpRoot(xml, 'notification', NOTIFICATION, opts)
  const snapshots = el.children.filter((c) => c.name === 'snapshot')
  if (snapshots.length !== 1) throw new DecodeError(NOTIFICATION, `<notification> must contain exactly one <snapshot>, found ${snapshots.length}`)
  const deltas: Notification['deltas'] = []
  for (const c of el.children) {
    if (c.name !== 'snapshot' && c.name !== 'delta') throw new DecodeError(NOTIFICATION, `<notification> must not contain <${c.name}>`)
    emptyElement(c, NOTIFICATION)
    if (c.name === 'delta') deltas.push({ serial: safeSerial(c, NOTIFICATION), ...fileRef(c, NOTIFICATION) })
  }
  return { sessionId: sessionId(el, NOTIFICATION), serial: serialOf(el, NOTIFICATION), snapshot: fileRef(snapshots[0], NOTIFICATION), deltas }
}

/**
 * Policy for `<publish>` with empty content (the trimmed RIPE NCC 2019 snapshot): the schema's base64Binary allows
 * it, so it decodes to a zero-length object; whoever validates the object then rejects it on its own, without
 * throwing away the rest of the snapshot (rpki-client does the same).
 */
export function decodeSnapshot(xml: string | Uint8Array, opts: RrdpDecodeOptions = {}): Snapshot {
  const el = rrdpRoot(xml, 'snapshot', SNAPSHOT, opts)
  const publishes = el.children.map((c) => {
    if (c.name !== 'publish') throw new DecodeError(SNAPSHOT, `<snapshot> must not contain <${c.name}>`)
    noChildren(c, SNAPSHOT)
    return { uri: uriOf(c, SNAPSHOT), content: base64Text(c.text, SNAPSHOT, '<publish> content') }
  })
  return { sessionId: sessionId(el, SNAPSHOT), serial: safeSerial(el, SNAPSHOT), publishes }
}

export function decodeDelta(xml: string | Uint8Array, opts: RrdpDecodeOptions = {}): Delta {
  const el = rrdpRoot(xml, 'delta', DELTA, opts)
  if (el.children.length === 0) throw new DecodeError(DELTA, '<delta> must contain at least one publish or withdraw element')
  const elements = el.children.map((c): DeltaElement => {
    noChildren(c, DELTA)
    const uri = uriOf(c, DELTA)
    if (c.name === 'withdraw') {
      noText(c, DELTA)
      return { type: 'withdraw', uri, hash: hexHash(attr(c, 'hash', DELTA), DELTA, '<withdraw>', 64) }
    }
    if (c.name !== 'publish') throw new DecodeError(DELTA, `<delta> must not contain <${c.name}>`)
    const out: DeltaElement = { type: 'publish', uri, content: base64Text(c.text, DELTA, '<publish> content') }
    const hash = optAttr(c, 'hash')
    if (hash !== undefined) out.hash = hexHash(hash, DELTA, '<publish>', 64)
    return out
  })
  return { sessionId: sessionId(el, DELTA), serial: safeSerial(el, DELTA), elements }
}

function rrdpRoot(xml: string | Uint8Array, name: string, rule: string, opts: RrdpDecodeOptions): XmlElement {
  const el = parseXml(xml, { maxBytes: opts.maxBytes ?? RRDP_MAX_BYTES })
  if (el.ns !== RRDP_NS) throw new DecodeError(rule, `<${el.name}> is in namespace ${show(el.ns)}, not the RRDP namespace ${RRDP_NS}`)
  if (el.name !== name) throw new DecodeError(rule, `expected an RRDP <${name}>, got <${el.name}>`)
  const version = el.attrs.version
  if (version !== '1') throw new DecodeError(rule, `<${name}> version ${version === undefined ? '(missing)' : show(version)} is not supported; RRDP is version "1"`)
  noText(el, rule)
  for (const c of el.children) {
    if (c.ns !== RRDP_NS) throw new DecodeError(rule, `<${c.name}> is in namespace ${show(c.ns)}, not the RRDP namespace`)
  }
  return el
}

function emptyElement(el: XmlElement, rule: string): void {
  noText(el, rule)
  noChildren(el, rule)
}

function fileRef(el: XmlElement, rule: string): { uri: string; hash: string } {
  return { uri: uriOf(el, rule), hash: hexHash(attr(el, 'hash', rule), rule, `<${el.name}>`, 64) }
}

function uriOf(el: XmlElement, rule: string): string {
  const uri = attr(el, 'uri', rule)
  if (uri === '') throw new DecodeError(rule, `<${el.name}> has an empty uri`)
  return uri
}

function sessionId(el: XmlElement, rule: string): string {
  const id = attr(el, 'session_id', rule)
  if (!UUID.test(id)) throw new DecodeError(rule, `session_id ${show(id)} is not a UUID`)
  return id
}

function serialOf(el: XmlElement, rule: string): bigint | number {
  const text = attr(el, 'serial', rule)
  if (!/^[0-9]{1,40}$/.test(text) || /^0+$/.test(text)) throw new DecodeError(rule, `<${el.name}> serial ${show(text)} is not a positive integer`)
  const n = BigInt(text)
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}

function safeSerial(el: XmlElement, rule: string): number {
  const n = serialOf(el, rule)
  if (typeof n === 'bigint') throw new DecodeError(rule, `<${el.name}> serial ${n} is too large`)
  return n
}
